/** How a lookup was served: from a fresh stored answer, by joining a query in flight, or by a new query. */
export type LookupResult = 'hit' | 'joined' | 'miss';

/** A lookup's outcome: how it was served, and the (possibly still pending) value. */
export interface Lookup<T> {
  readonly result: LookupResult;
  readonly value: Promise<T>;
}

/** Stores answers per key for a while and lets concurrent callers share one load. */
export interface AnswerCache<T> {
  /** Returns the fresh answer for `key`, or the one being loaded, or starts `load()`. */
  get(key: string, load: () => Promise<T>): Lookup<T>;
}

/** Options of {@link createAnswerCache}. */
export interface AnswerCacheOptions {
  /** How long an answer stays fresh after it arrived; 0 stores nothing (in-flight sharing only). */
  readonly maxAgeMs: number;
  /** Most keys kept; the oldest answer goes first. Bounds memory when topic sets keep changing. */
  readonly maxEntries: number;
  /** Milliseconds from a monotonic clock. */
  readonly now: () => number;
}

/**
 * A small cache keyed by the requested topic set. Two things it is for:
 * - callers that arrive while a query for the same key is running wait for that query instead of
 *   sending another (several consumers of one process can lead different groups at once);
 * - with `maxAgeMs`, an answer that arrived late (after the assignor had stopped waiting and
 *   fallen back) is still there for the next rebalance, which then does not wait on a slow
 *   server a second time.
 * Failures are never stored: the next caller tries again.
 */
export function createAnswerCache<T>(options: AnswerCacheOptions): AnswerCache<T> {
  const { maxAgeMs, maxEntries, now } = options;
  const fresh = new Map<string, { value: T; storedAt: number }>();
  const inFlight = new Map<string, Promise<T>>();

  const store = (key: string, value: T): void => {
    if (maxAgeMs <= 0) return;
    const storedAt = now();
    fresh.delete(key); // Re-inserting moves the key to the young end of the Map's order.
    for (const [k, entry] of fresh) {
      if (fresh.size < maxEntries && storedAt - entry.storedAt < maxAgeMs) break;
      fresh.delete(k);
    }
    fresh.set(key, { value, storedAt });
  };

  return {
    get(key, load) {
      const entry = fresh.get(key);
      if (entry !== undefined) {
        if (now() - entry.storedAt < maxAgeMs) return { result: 'hit', value: Promise.resolve(entry.value) };
        fresh.delete(key);
      }
      const pending = inFlight.get(key);
      if (pending !== undefined) return { result: 'joined', value: pending };
      // Started through a resolved promise so that even a load that throws synchronously rejects
      // instead of throwing out of get().
      const value = Promise.resolve()
        .then(load)
        .then((v) => {
          store(key, v);
          return v;
        });
      inFlight.set(key, value);
      const settle = (): void => {
        if (inFlight.get(key) === value) inFlight.delete(key);
      };
      // Handles the rejection on this branch only; callers still see it on `value`.
      value.then(settle, settle);
      return { result: 'miss', value };
    },
  };
}
