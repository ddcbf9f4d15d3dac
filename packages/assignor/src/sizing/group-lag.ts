/**
 * How far behind a group is, and how long it needs to catch up, from its partitions' lag and the
 * arrival rates the weights already hold (events/s with offset-rate weights). Pure.
 *
 * - **Lag** of a partition: end offset − committed offset, in messages (0 when the committed
 *   offset is past the end, after a truncation). A partition without a committed offset has no
 *   lag: where its consumer starts depends on its `fromBeginning` (auto.offset.reset), which the
 *   group does not tell, and counting the whole retained range would report a compacted topic's
 *   history as work. It is counted apart (`no_commit`), as is a partition the read did not answer
 *   for (`not_read`).
 * - **Lag in seconds** of a partition: lag ÷ its arrival rate: how long the messages waiting took
 *   to arrive at the current rate, i.e. "time behind at the current arrival rate", an estimate
 *   that is exact only while the rate holds. 0 with no lag; undefined (counted apart, `no_rate`)
 *   when messages wait but the rate is 0, unmeasured or too small for a finite quotient: no finite
 *   figure says how far behind that is.
 * - **Time to drain** of a member: its lag ÷ (member capacity − its arrival rate), the capacity
 *   being what one member processes at 100% busy in the same units. 0 with no lag; `never` when
 *   messages wait and the arrival rate is at or above the capacity: at this load it never
 *   catches up. A partition without a measured rate counts as arriving at 0, as sizing counts it.
 * - **Group**: its lag is the sum over members; its lag in seconds the largest of any partition;
 *   its time to drain the largest of any member (the group has drained when its slowest member
 *   has), `never` when some member never drains.
 */
import { isUsableWeight } from '../core/model/weights.js';
import { keyOfPartition } from '../core/structures/partition-key.js';
import type { TopicPartition, WeightedPartition } from '../core/types.js';

/** Why a partition has no lag or no lag in seconds; the `reason` label of the unmeasured gauge. */
export type LagUnmeasured = 'no_commit' | 'no_rate' | 'not_read';

/** Every {@link LagUnmeasured}, in a stable order. */
export const LAG_UNMEASURED_REASONS: ReadonlyArray<LagUnmeasured> = ['no_commit', 'no_rate', 'not_read'];

/** How far the group has read one partition, as a lag. */
export interface PartitionLagReading extends TopicPartition {
  /** Messages from the committed offset to the end; undefined when the group committed nothing there. */
  readonly lag: number | undefined;
}

/** A member as {@link groupLag} reads it. */
export interface LagMember {
  readonly memberId: string;
  readonly instanceId: string;
  /** The partitions it holds. */
  readonly assigned: ReadonlyArray<TopicPartition>;
}

/** What {@link groupLag} measures. */
export interface GroupLagInput {
  readonly members: ReadonlyArray<LagMember>;
  /** One reading per partition read; held partitions without one are counted as `not_read`. */
  readonly lags: ReadonlyArray<PartitionLagReading>;
  /** The partitions' arrival rates as weights (events/s); unmeasured ones count as 0. */
  readonly rates: ReadonlyArray<WeightedPartition>;
  /** What one member processes at 100% busy, in the rates' units; undefined: no time to drain. */
  readonly memberCapacity?: number | undefined;
}

/** A time to drain in seconds, or `never` at this load. */
export type DrainTime = number | 'never';

/** One held partition. */
export interface PartitionLag extends TopicPartition {
  /** Undefined when it has no committed offset or was not read. */
  readonly lag: number | undefined;
  /** Its arrival rate; 0 when unmeasured. */
  readonly rate: number;
  /** Lag ÷ rate; 0 without lag; undefined when unknown (see `unmeasured`). */
  readonly lagSeconds: number | undefined;
  /** Why the lag or its seconds are unknown; undefined when both are known. */
  readonly unmeasured: LagUnmeasured | undefined;
}

/** One member. */
export interface MemberLag {
  readonly memberId: string;
  readonly instanceId: string;
  /** Its partitions, in the order it holds them. */
  readonly partitions: ReadonlyArray<PartitionLag>;
  /** Sum of its partitions' known lag. */
  readonly lag: number;
  /** Sum of its partitions' rates. */
  readonly arrivalRate: number;
  /** The largest lag in seconds of its partitions; undefined when none is known (or it holds none). */
  readonly lagSeconds: number | undefined;
  /** Lag ÷ (capacity − arrival rate); undefined without a capacity. */
  readonly drainSeconds: DrainTime | undefined;
}

/** What {@link groupLag} answers. */
export interface GroupLag {
  /** Sum of the members' lag. */
  readonly lag: number;
  /** The largest lag in seconds of any held partition; undefined when none is known. */
  readonly lagSeconds: number | undefined;
  /** The slowest member's time to drain (`never` when one never drains); undefined without a capacity. */
  readonly drainSeconds: DrainTime | undefined;
  /**
   * The member the group waits for: with a capacity, the one with the longest time to drain
   * (`never` first), else the one furthest behind in seconds; undefined when no member has lag.
   */
  readonly slowest: MemberLag | undefined;
  /** Held partitions whose lag or lag in seconds is unknown, by reason. */
  readonly unmeasured: Readonly<Record<LagUnmeasured, number>>;
  readonly members: ReadonlyArray<MemberLag>;
}

/**
 * A partition's lag from its committed and end offsets (see the file comment): undefined when
 * the committed offset is negative (Kafka's -1: none) or either offset is not a finite number.
 */
export function lagOf(committed: number, end: number): number | undefined {
  if (!Number.isFinite(committed) || !Number.isFinite(end) || committed < 0) return undefined;
  return Math.max(0, end - committed);
}

/**
 * Measures the group's lag, lag in seconds and time to drain, per member and for the group (see
 * the file comment for every rule).
 *
 * @throws RangeError when `memberCapacity` is given and not a positive finite number.
 */
export function groupLag(input: GroupLagInput): GroupLag {
  const capacity = input.memberCapacity;
  if (capacity !== undefined && !(Number.isFinite(capacity) && capacity > 0))
    throw new RangeError(`memberCapacity must be a positive number, got ${String(capacity)}`);
  const lagByKey = new Map(input.lags.map((r) => [keyOfPartition(r), r.lag]));
  const rateByKey = new Map<string, number>();
  for (const p of input.rates) {
    // A source may list a partition twice: its largest usable weight, as everywhere else.
    if (!isUsableWeight(p.weight)) continue;
    const key = keyOfPartition(p);
    rateByKey.set(key, Math.max(rateByKey.get(key) ?? 0, p.weight));
  }
  const unmeasured: Record<LagUnmeasured, number> = { no_commit: 0, no_rate: 0, not_read: 0 };
  const members = input.members.map((m) => {
    const partitions = m.assigned.map((p) => partitionLag(p, lagByKey, rateByKey));
    for (const p of partitions) if (p.unmeasured !== undefined) unmeasured[p.unmeasured]++;
    return memberLag(m, partitions, capacity);
  });
  return {
    lag: sum(members.map((m) => m.lag)),
    lagSeconds: maxDefined(members.map((m) => m.lagSeconds)),
    drainSeconds: capacity === undefined ? undefined : slowestDrain(members),
    slowest: slowestMember(members, capacity !== undefined),
    unmeasured,
    members,
  };
}

function partitionLag(
  p: TopicPartition,
  lagByKey: ReadonlyMap<string, number | undefined>,
  rateByKey: ReadonlyMap<string, number>,
): PartitionLag {
  const key = keyOfPartition(p);
  const rate = rateByKey.get(key) ?? 0;
  const base = { topic: p.topic, partition: p.partition, rate };
  if (!lagByKey.has(key)) return { ...base, lag: undefined, lagSeconds: undefined, unmeasured: 'not_read' };
  const lag = lagByKey.get(key);
  if (lag === undefined) return { ...base, lag, lagSeconds: undefined, unmeasured: 'no_commit' };
  if (lag === 0) return { ...base, lag, lagSeconds: 0, unmeasured: undefined };
  // A rate so small that the quotient overflows says no more than a rate of 0.
  const seconds = lag / rate;
  if (rate > 0 && Number.isFinite(seconds)) return { ...base, lag, lagSeconds: seconds, unmeasured: undefined };
  return { ...base, lag, lagSeconds: undefined, unmeasured: 'no_rate' };
}

function memberLag(m: LagMember, partitions: ReadonlyArray<PartitionLag>, capacity: number | undefined): MemberLag {
  const lag = sum(partitions.map((p) => p.lag ?? 0));
  const arrivalRate = sum(partitions.map((p) => p.rate));
  return {
    memberId: m.memberId,
    instanceId: m.instanceId,
    partitions,
    lag,
    arrivalRate,
    lagSeconds: maxDefined(partitions.map((p) => p.lagSeconds)),
    drainSeconds: capacity === undefined ? undefined : drainTime(lag, arrivalRate, capacity),
  };
}

/** Lag ÷ the capacity left over once arrivals are served; `never` when none is left. */
function drainTime(lag: number, arrivalRate: number, capacity: number): DrainTime {
  if (lag === 0) return 0;
  const seconds = lag / (capacity - arrivalRate);
  return arrivalRate >= capacity || !Number.isFinite(seconds) ? 'never' : seconds;
}

function slowestDrain(members: ReadonlyArray<MemberLag>): DrainTime {
  if (members.some((m) => m.drainSeconds === 'never')) return 'never';
  return Math.max(0, ...members.map((m) => m.drainSeconds as number));
}

/** The member that drains last (or is furthest behind without a capacity); ties go to the first. */
function slowestMember(members: ReadonlyArray<MemberLag>, byDrain: boolean): MemberLag | undefined {
  const rank = (m: MemberLag): number => {
    if (m.lag === 0) return -1;
    if (!byDrain) return m.lagSeconds ?? 0;
    return m.drainSeconds === 'never' ? Number.POSITIVE_INFINITY : (m.drainSeconds ?? 0);
  };
  let slowest: MemberLag | undefined;
  for (const m of members) if (rank(m) >= 0 && (slowest === undefined || rank(m) > rank(slowest))) slowest = m;
  return slowest;
}

function sum(values: ReadonlyArray<number>): number {
  return values.reduce((s, v) => s + v, 0);
}

function maxDefined(values: ReadonlyArray<number | undefined>): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
}
