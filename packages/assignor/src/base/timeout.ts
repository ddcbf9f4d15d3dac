/** Where {@link withTimeout} gets its timer: Node's by default, or an injected clock's. */
export interface Timers {
  /** Calls `callback` once after `delayMs`. */
  setTimeout(callback: () => void, delayMs: number): unknown;
  /** Cancels a timer returned by `setTimeout`; a no-op for one that already fired. */
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd: a pending timeout never keeps the process alive. */
const nodeTimers: Timers = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs).unref(),
  clearTimeout: (handle) => {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/**
 * Races `work` against a timer that is always cleared, so a fast answer leaves nothing behind.
 * `work` itself keeps running after a timeout: callers that must not overlap it keep their own
 * handle on it. The one timeout rule of every load-aware package (the assignor's weight and
 * metadata budgets, the offset-rate source's sampling on its injectable clock).
 */
export async function withTimeout<T>(
  work: Promise<T>,
  timeoutMs: number,
  onTimeout: () => Error,
  timers: Timers = nodeTimers,
): Promise<T> {
  let handle: unknown;
  const timeout = new Promise<never>((_, reject) => {
    handle = timers.setTimeout(() => {
      reject(onTimeout());
    }, timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    timers.clearTimeout(handle);
  }
}
