/**
 * What an instance process tells the rolling-restart benchmark about its processing, beyond the
 * demo's per-second counts: where it paused (a member, or the whole process, went longer than a
 * threshold without finishing a message), when it finished its first message, and which offsets
 * it processed (so the parent counts lost and duplicate messages exactly). Pure bookkeeping, fed
 * by the instance's `eachMessage` and read out by its `stats` lines.
 */
import type { ProcessingPause, ProcessingReport } from './protocol.js';

/** Folds processed messages into {@link ProcessingReport}s; times are wall-clock ms. */
export class ProcessingMonitor {
  /** Per member: when it last finished a message (or the process became ready). */
  private readonly memberLast = new Map<number, number>();
  private instanceLast: number | undefined;
  /** Longest stretch between two messages of the process that ended since the last report. */
  private longestGap = 0;
  private firstProcessedAt: number | undefined;
  private isReady = false;
  private memberPauses: Array<ProcessingPause & { member: number }> = [];
  private instancePauses: ProcessingPause[] = [];
  private ranges = new Map<number, Array<[number, number]>>();

  /**
   * @param thresholdMs a stretch without a finished message counts as a pause when it is longer
   * @param members members of the process, numbered 0 .. members − 1
   */
  constructor(
    private readonly thresholdMs: number,
    private readonly members: number,
  ) {}

  /**
   * Every member runs (the process is ready): from now on a member that has not finished a
   * message yet is pausing since `at`, so the wait for its first message counts.
   */
  ready(at: number): void {
    this.isReady = true;
    for (let m = 0; m < this.members; m++) if (!this.memberLast.has(m)) this.memberLast.set(m, at);
    this.instanceLast ??= at;
  }

  /** Member `member` finished the message at `offset` of `partition` at `at`. */
  processed(member: number, partition: number, offset: number, at: number): void {
    const last = this.memberLast.get(member);
    if (last !== undefined && at - last > this.thresholdMs) this.memberPauses.push({ member, from: last, to: at });
    this.memberLast.set(member, at);
    if (this.instanceLast !== undefined) {
      const gap = at - this.instanceLast;
      this.longestGap = Math.max(this.longestGap, gap);
      if (gap > this.thresholdMs) this.instancePauses.push({ from: this.instanceLast, to: at });
    }
    this.instanceLast = at;
    this.firstProcessedAt ??= at;
    // A member takes a partition's messages in order, so consecutive offsets extend one range.
    const ranges = this.ranges.get(partition) ?? [];
    this.ranges.set(partition, ranges);
    const open = ranges.at(-1);
    if (open !== undefined && open[1] === offset) open[1] = offset + 1;
    else ranges.push([offset, offset + 1]);
  }

  /**
   * What happened since the previous report, with the pauses still going at `now` marked open
   * (the next report gives them again, longer or closed) unless `withOpen` is false (the
   * process's last report). Clears what it returns.
   */
  report(now: number, withOpen = true): ProcessingReport {
    const memberPauses = this.memberPauses;
    const instancePauses = this.instancePauses;
    if (this.isReady && withOpen) {
      for (const [member, last] of this.memberLast) {
        if (now - last > this.thresholdMs) memberPauses.push({ member, from: last, to: now, open: true });
      }
      if (this.instanceLast !== undefined && now - this.instanceLast > this.thresholdMs) {
        instancePauses.push({ from: this.instanceLast, to: now, open: true });
      }
    }
    const processed = Object.fromEntries([...this.ranges].map(([p, ranges]) => [String(p), ranges]));
    this.memberPauses = [];
    this.instancePauses = [];
    this.ranges = new Map();
    const longestGapMs = this.longestGap;
    this.longestGap = 0;
    return {
      memberPauses,
      instancePauses,
      longestGapMs,
      ...(this.firstProcessedAt === undefined ? {} : { firstProcessedAt: this.firstProcessedAt }),
      processed,
    };
  }
}
