/** A loop running in the background until it ends by itself or is stopped. */
export interface BackgroundLoop<R> {
  /** Resolves with the loop's report when it ended by itself (or once `stop()` took effect). */
  readonly done: Promise<R>;
  /** Asks the loop to end at its next check and resolves with its report. */
  stop(): Promise<R>;
}

/**
 * Starts `loop` at once, handing it a `stopped()` check to poll between iterations; the shared
 * start/stop plumbing of the tests' background producers.
 */
export function runInBackground<R>(loop: (stopped: () => boolean) => Promise<R>): BackgroundLoop<R> {
  let stopped = false;
  const done = loop(() => stopped);
  return {
    done,
    stop: () => {
      stopped = true;
      return done;
    },
  };
}
