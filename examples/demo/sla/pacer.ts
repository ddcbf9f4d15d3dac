/**
 * A member's fixed processing cost per message, held exact. A plain `sleep(workMs)` per message
 * takes workMs plus however late the timer fires (more on a loaded machine), so the member's
 * capacity would depend on what else the machine runs. The pacer keeps a schedule instead: a
 * message queued behind the previous one starts when that one was due to finish, not when its
 * timer happened to fire, so a member with work processes exactly 1000 / workMs messages/s and
 * a late timer is caught up on the next message. Pure: the caller passes the clock.
 */

/** A message that arrives within this long of the previous one finishing was already queued. */
export const QUEUED_WITHIN_MS = 0.5;

/** At most this much lateness is caught up: a longer stall of the process stays a stall. */
export const MAX_CATCH_UP_MS = 20;

/** One member's schedule. */
export class Pacer {
  private dueAt = Number.NEGATIVE_INFINITY;
  private returnedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly workMs: number) {
    if (!(workMs > 0)) throw new RangeError(`workMs must be > 0, got ${String(workMs)}`);
  }

  /** A message starts at `now` (ms, monotonic): how long to wait until it is done. */
  start(now: number): number {
    const queued = now - this.returnedAt <= QUEUED_WITHIN_MS;
    const begin = queued ? Math.max(this.dueAt, now - MAX_CATCH_UP_MS) : Math.max(now, this.dueAt);
    this.dueAt = begin + this.workMs;
    return Math.max(0, this.dueAt - now);
  }

  /** The message finished at `now` (after its wait); the next one may be queued behind it. */
  finished(now: number): void {
    this.returnedAt = now;
  }
}
