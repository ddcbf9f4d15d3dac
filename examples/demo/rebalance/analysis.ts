/**
 * The pure part of the rebalance benchmark: from the finish times of every processed message,
 * the longest gap around one rebalance, per member and for the group, the paused
 * member-seconds, and the rebalance count from the generations the heartbeats carried. No
 * clock, no I/O: the unit tests feed it made-up timelines.
 *
 * Definitions (also in BENCHMARKS.md, "One rebalance"):
 * - The window runs from the cause (the moment the member or the benchmark acted) to its end,
 *   when every member has processed steadily again for the recovery time (see
 *   {@link processingSteadily}) or a time limit passed.
 * - A member's gaps in the window are the intervals between its consecutive processed messages
 *   that end after the cause and start before the window's end, the one spanning the cause
 *   included (from the last message before the rebalance to the first after it), plus the open
 *   interval from its last message to the window's end.
 * - Its normal gap is its mean interval over the baseline before the cause (baseline length ÷
 *   messages processed in it).
 * - Its paused time is the sum, over its gaps longer than the threshold, of (gap − normal gap);
 *   the group's paused member-seconds is that sum over the members.
 * - The group's longest gap is the longest interval in which no member processed anything.
 */

/** One member's processed-message finish times (ms), ascending. */
export interface MemberSeries {
  readonly instanceId: string;
  readonly times: readonly number[];
}

/** The window and the thresholds of one measurement. */
export interface GapWindow {
  /** When the cause happened (ms). */
  readonly causeAt: number;
  /** When the window closed (ms). */
  readonly endAt: number;
  /** Length of the baseline before the cause over which the normal gap is measured. */
  readonly baselineMs: number;
  /** Gaps longer than this count as paused. */
  readonly thresholdMs: number;
}

/** What one member's timeline says about the window. */
export interface MemberGapStats {
  readonly instanceId: string;
  readonly longestGapMs: number;
  /** Where the longest gap starts and ends. */
  readonly longestFrom: number;
  readonly longestTo: number;
  /** Mean interval between its messages in the baseline (0 without any). */
  readonly normalGapMs: number;
  /** Σ (gap − normal gap) over the window's gaps above the threshold. */
  readonly pausedMs: number;
  /** Gaps above the threshold wholly inside the baseline: the noise floor of the machine. */
  readonly baselineGapsOverThreshold: number;
  /** Σ (gap − normal gap) over those baseline gaps: paused time with no rebalance at all. */
  readonly baselinePausedMs: number;
  readonly messagesInWindow: number;
}

/** The gaps of `times` in the window: [from, to] pairs, as defined at the top of this file. */
export function gapsAround(times: readonly number[], causeAt: number, endAt: number): Array<[number, number]> {
  const gaps: Array<[number, number]> = [];
  // The last message at or before the cause starts the first gap; none: the gap starts at the cause.
  let i = upperBound(times, causeAt) - 1;
  let from = i >= 0 ? times[i]! : causeAt;
  for (i = i + 1; i < times.length && times[i]! <= endAt; i++) {
    gaps.push([from, times[i]!]);
    from = times[i]!;
  }
  if (from < endAt) gaps.push([from, endAt]);
  return gaps;
}

/** Index of the first element of ascending `times` greater than `value`. */
function upperBound(times: readonly number[], value: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Mean interval between messages in [from, to]: its length ÷ messages in it (0 without any). */
export function normalGapMs(times: readonly number[], from: number, to: number): number {
  const count = upperBound(times, to) - upperBound(times, from);
  return count === 0 ? 0 : (to - from) / count;
}

/** One member's longest gap, paused time and noise in the window. */
export function memberGapStats(series: MemberSeries, w: GapWindow): MemberGapStats {
  const { times } = series;
  const gaps = gapsAround(times, w.causeAt, w.endAt);
  const normal = normalGapMs(times, w.causeAt - w.baselineMs, w.causeAt);
  let longest: [number, number] = [w.causeAt, w.causeAt];
  let pausedMs = 0;
  for (const gap of gaps) {
    const length = gap[1] - gap[0];
    if (length > longest[1] - longest[0]) longest = gap;
    if (length > w.thresholdMs) pausedMs += Math.max(0, length - normal);
  }
  const baselineStart = upperBound(times, w.causeAt - w.baselineMs);
  let noise = 0;
  let baselinePausedMs = 0;
  for (let i = baselineStart + 1; i < times.length && times[i]! <= w.causeAt; i++) {
    const length = times[i]! - times[i - 1]!;
    if (length <= w.thresholdMs) continue;
    noise++;
    baselinePausedMs += Math.max(0, length - normal);
  }
  return {
    instanceId: series.instanceId,
    longestGapMs: longest[1] - longest[0],
    longestFrom: longest[0],
    longestTo: longest[1],
    normalGapMs: normal,
    pausedMs,
    baselineGapsOverThreshold: noise,
    baselinePausedMs,
    messagesInWindow: upperBound(times, w.endAt) - upperBound(times, w.causeAt),
  };
}

/** The longest interval in the window in which no member processed anything. */
export function groupLongestGapMs(members: readonly MemberSeries[], w: GapWindow): number {
  const merged = members.flatMap((m) => m.times).sort((a, b) => a - b);
  let longest = 0;
  for (const [from, to] of gapsAround(merged, w.causeAt, w.endAt)) longest = Math.max(longest, to - from);
  return longest;
}

/** Every member's stats, the group's longest gap, and the paused member-seconds. */
export function analyzeWindow(
  members: readonly MemberSeries[],
  w: GapWindow,
): { members: MemberGapStats[]; groupLongestGapMs: number; pausedMemberSeconds: number } {
  const stats = members.map((m) => memberGapStats(m, w));
  return {
    members: stats,
    groupLongestGapMs: groupLongestGapMs(members, w),
    pausedMemberSeconds: stats.reduce((sum, s) => sum + s.pausedMs, 0) / 1000,
  };
}

/**
 * Whether every member processed steadily over the last `recoveryMs` before `now`: a message
 * within `thresholdMs` of the span's start, no gap above `thresholdMs` inside it, and one
 * within `thresholdMs` of `now`. The benchmark closes a window on it.
 */
export function processingSteadily(
  members: readonly MemberSeries[],
  now: number,
  recoveryMs: number,
  thresholdMs: number,
): boolean {
  const from = now - recoveryMs;
  return members.every(({ times }) => {
    let previous = from;
    for (let i = upperBound(times, from); i < times.length && times[i]! <= now; i++) {
      if (times[i]! - previous > thresholdMs) return false;
      previous = times[i]!;
    }
    return now - previous <= thresholdMs;
  });
}

/** A heartbeat a member sent, with the generation it carried. */
export interface HeartbeatRecord {
  readonly instanceId: string;
  readonly generationId: number;
  readonly at: number;
}

/**
 * Rebalances the window saw: the highest generation any heartbeat carried by its end minus the
 * highest before the cause. undefined when no heartbeat came before the cause.
 */
export function rebalanceCount(
  heartbeats: readonly HeartbeatRecord[],
  causeAt: number,
  endAt: number,
): number | undefined {
  let before = -1;
  let after = -1;
  for (const h of heartbeats) {
    if (h.at <= causeAt) before = Math.max(before, h.generationId);
    if (h.at <= endAt) after = Math.max(after, h.generationId);
  }
  return before < 0 ? undefined : after - before;
}

/**
 * Each member's heartbeat phase at the cause: its last heartbeat before the cause, that time
 * relative to the first listed member's modulo the interval, and how long after the cause its
 * next heartbeat was due (when it would notice a rebalance at the earliest).
 */
export function heartbeatPhases(
  heartbeats: readonly HeartbeatRecord[],
  instanceIds: readonly string[],
  causeAt: number,
  intervalMs: number,
): Array<{ instanceId: string; phaseMs: number | undefined; dueInMs: number | undefined }> {
  const last = new Map<string, number>();
  for (const h of heartbeats) {
    if (h.at <= causeAt && h.at > (last.get(h.instanceId) ?? -Infinity)) last.set(h.instanceId, h.at);
  }
  const reference = last.get(instanceIds[0] ?? '');
  return instanceIds.map((instanceId) => {
    const at = last.get(instanceId);
    if (at === undefined) return { instanceId, phaseMs: undefined, dueInMs: undefined };
    const phaseMs = reference === undefined ? undefined : (((at - reference) % intervalMs) + intervalMs) % intervalMs;
    return { instanceId, phaseMs, dueInMs: Math.max(0, at + intervalMs - causeAt) };
  });
}

/** Median and range of some repeats' values. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

/** The median (mean of the middle two for an even count) and range; undefined for no values. */
export function spread(values: readonly number[]): Spread | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, n: sorted.length };
}
