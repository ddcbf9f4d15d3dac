/** Drains every queued promise callback (setImmediate runs after the microtask queue is empty). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Where {@link FakeClock}'s wall clock starts: its `epochMs()` is this plus `now()`. */
export const EPOCH_MS = 1_700_000_000_000;

/**
 * A clock that only moves when told to; timers fire in time order as it advances. It has the
 * shape of the offset-rate source's `Clock` option (now, setTimeout, clearTimeout).
 */
export class FakeClock {
  private nowMs = 0;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();

  /** Monotonic milliseconds since the clock was made. */
  now(): number {
    return this.nowMs;
  }

  /** Wall-clock milliseconds: {@link EPOCH_MS} plus `now()`. */
  epochMs(): number {
    return EPOCH_MS + this.nowMs;
  }

  /** Schedules `callback` at `now() + delayMs`; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, delayMs: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.nowMs + delayMs, callback });
    return id;
  }

  /** Cancels a timer; unknown handles are ignored. */
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers set and not yet fired or cleared. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing due timers in order and letting their work settle. */
  async advance(ms: number): Promise<void> {
    const target = this.nowMs + ms;
    await flush();
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.timers)
        if (entry[1].at <= target && (next === undefined || entry[1].at < next[1].at)) next = entry;
      if (next === undefined) break;
      this.timers.delete(next[0]);
      this.nowMs = Math.max(this.nowMs, next[1].at);
      next[1].callback();
      await flush();
    }
    this.nowMs = target;
    await flush();
  }
}

/** A bare manual clock: tests move time by assigning `t`. */
export function manualClock(start = 0): { t: number; now: () => number } {
  const clock = { t: start, now: () => clock.t };
  return clock;
}
