import { withTimeout } from '@load-aware/assignor/internal';

/**
 * Time and timers as the sampler sees them. Injectable so tests drive sampling without waiting;
 * the default reads a monotonic clock, because a wall clock that jumps (NTP, suspend) would turn
 * into a bogus rate.
 */
export interface Clock {
  /** Milliseconds on a monotonic scale; only differences are used. */
  now(): number;
  /** Calls `callback` once after `delayMs`. The timer must not keep the process alive. */
  setTimeout(callback: () => void, delayMs: number): unknown;
  /** Cancels a timer returned by {@link Clock.setTimeout}; a no-op for one that already fired. */
  clearTimeout(handle: unknown): void;
  /**
   * Wall-clock milliseconds since the epoch, compared with record timestamps by time-index
   * lookups. Default `Date.now()`.
   */
  epochMs?(): number;
}

/** The real clock: `performance.now()`, `Date.now()` and unref'd Node timers. */
export const systemClock: Clock = Object.freeze({
  now: () => performance.now(),
  epochMs: () => Date.now(),
  setTimeout: (callback: () => void, delayMs: number): unknown => {
    const timer = setTimeout(callback, delayMs);
    // A weight source must never be the reason a process cannot exit.
    timer.unref();
    return timer;
  },
  clearTimeout: (handle: unknown): void => {
    clearTimeout(handle as NodeJS.Timeout);
  },
});

/** The clock's wall-clock time, ms since the epoch. */
export function epochMsOf(clock: Clock): number {
  return clock.epochMs === undefined ? Date.now() : clock.epochMs();
}

/** True for anything usable as a {@link Clock}. */
export function isClock(value: unknown): value is Clock {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  return (
    typeof c['now'] === 'function' &&
    typeof c['setTimeout'] === 'function' &&
    typeof c['clearTimeout'] === 'function' &&
    (c['epochMs'] === undefined || typeof c['epochMs'] === 'function')
  );
}

/** Races `work` against a timer of `clock`: the shared timeout rule, on the injectable clock. */
export function raceClock<T>(clock: Clock, work: Promise<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  return withTimeout(work, timeoutMs, onTimeout, clock);
}

/**
 * Resolves in a later task of the event loop, once the timers and I/O already due have run. Not
 * the injectable clock's: it waits for no time. Long synchronous work split with it cannot hold a
 * deadline timer past its time by more than one piece.
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
