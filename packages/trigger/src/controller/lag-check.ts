/**
 * The coordinator's look at how far behind the group is: its lag in messages and in seconds, and
 * with a member capacity the time it needs to drain (`groupLag()`; the definitions are in
 * docs/proactive-rebalancing.md, "Lag and time to drain"). The offsets are read through the
 * target's `readProgress`, the rates are the weights the check already read: no extra source.
 */
import {
  errorMessageOf,
  escapeLogText,
  groupLag,
  lagOf,
  LAG_UNMEASURED_REASONS,
  type DrainTime,
  type GroupLag,
  type LagUnmeasured,
  type Logger,
  type PartitionProgress,
  type TopicPartition,
  type WeightedPartition,
} from '@load-aware/assignor/internal';
import type { TriggerAssigner } from '../contract/target.js';
import { figure, seconds } from '../contract/text.js';
import type { ObservedGroup } from './observe.js';

/** Where a lag check's answer goes: the gauges; undefined removes them (nothing measured). */
export interface LagSink {
  lag(group: string, lag: GroupLag | undefined): void;
}

/** What one read of the group's progress came to. */
export type ProgressRead =
  | { readonly kind: 'read'; readonly progress: ReadonlyArray<PartitionProgress> }
  /** The target cannot read progress: it has no `readProgress`, or no reader for this group. */
  | { readonly kind: 'unreadable' }
  | { readonly kind: 'failed'; readonly err: unknown };

/**
 * Reads the committed and end offsets of `partitions` within `timeoutMs`. Never rejects: a failed
 * read must not fail the check, whose trigger decision does not depend on it.
 */
export async function readGroupProgress(
  assigner: TriggerAssigner,
  groupId: string,
  partitions: ReadonlyArray<TopicPartition>,
  timeoutMs: number,
): Promise<ProgressRead> {
  if (typeof assigner.readProgress !== 'function') return { kind: 'unreadable' };
  try {
    const reading = assigner.readProgress(groupId, partitions, timeoutMs);
    if (reading === undefined) return { kind: 'unreadable' };
    return { kind: 'read', progress: await reading };
  } catch (err) {
    return { kind: 'failed', err };
  }
}

/** The figures a lag line was logged with, to tell whether the next one says something new. */
export interface LagLine {
  readonly lagSeconds: number | undefined;
  readonly drainSeconds: DrainTime | undefined;
  readonly unmeasured: Readonly<Record<LagUnmeasured, number>>;
}

/**
 * Figures below this many seconds count as this many when comparing: a group a few seconds
 * behind is caught up as far as the log is concerned, and noise there would double every check.
 */
export const LAG_LOG_FLOOR_SECONDS = 10;

/**
 * True when `now` differs materially from the last line logged: the first line of a group; lag
 * in seconds or time to drain at least doubled or halved (figures below
 * {@link LAG_LOG_FLOOR_SECONDS} counted as that); a figure appeared or went away; the drain
 * switched between a time and `never`; or partitions of some kind started or stopped being left
 * out. Compared with the last line logged, not the last check, so a slow drift logs too.
 */
export function lagChangedMaterially(last: LagLine | undefined, now: LagLine): boolean {
  if (last === undefined) return true;
  if (LAG_UNMEASURED_REASONS.some((r) => last.unmeasured[r] > 0 !== now.unmeasured[r] > 0)) return true;
  return changed(last.lagSeconds, now.lagSeconds) || changed(last.drainSeconds, now.drainSeconds);
}

function changed(last: DrainTime | undefined, now: DrainTime | undefined): boolean {
  if (typeof last !== 'number' || typeof now !== 'number') return last !== now;
  const before = Math.max(last, LAG_LOG_FLOOR_SECONDS);
  const after = Math.max(now, LAG_LOG_FLOOR_SECONDS);
  return after >= 2 * before || after <= before / 2;
}

/** What {@link createLagCheck} measures with. */
export interface LagCheckSettings {
  /** The member capacity the check's sizing used (stated or derived); undefined: no time to drain. */
  memberCapacity(): number | undefined;
}

/**
 * Creates the lag check of one controller: at each judged check, measures the group's lag from a
 * progress read and the check's weights, publishes it, and logs it at INFO when it changed
 * materially ({@link lagChangedMaterially}). A target that cannot read progress gets one WARN
 * and no gauges; a failed read a WARN (then DEBUG while it keeps failing) and no gauges, since
 * stale figures would read as current ones.
 */
export function createLagCheck(settings: LagCheckSettings, sink: LagSink) {
  const said = new Map<string, LagLine>();
  const failing = new Set<string>();
  let warnedUnreadable = false;
  return (
    group: ObservedGroup,
    rates: ReadonlyArray<WeightedPartition>,
    read: ProgressRead,
    logger: Logger,
  ): GroupLag | undefined => {
    const id = group.groupId;
    if (read.kind !== 'read') {
      sink.lag(id, undefined);
      said.delete(id);
      if (read.kind === 'unreadable') {
        if (!warnedUnreadable) {
          warnedUnreadable = true;
          logger.warn(
            {},
            "group lag is not measured: this consumer's trigger target cannot read the group's committed " +
              'and end offsets (readProgress); the lag gauges stay absent',
          );
        }
      } else if (!failing.has(id)) {
        failing.add(id);
        logger.warn(
          { err: read.err, code: (read.err as { code?: unknown }).code },
          escapeLogText(
            `group lag not read: ${errorMessageOf(read.err)}; the lag gauges are absent until a read works`,
          ),
        );
      } else {
        logger.debug({ err: read.err }, 'group lag not read again');
      }
      return undefined;
    }
    failing.delete(id);
    const capacity = settings.memberCapacity();
    const lag = groupLag({
      members: group.members,
      lags: read.progress.map((p) => ({ topic: p.topic, partition: p.partition, lag: lagOf(p.committed, p.end) })),
      rates,
      memberCapacity: capacity,
    });
    sink.lag(id, lag);
    const line = { lagSeconds: lag.lagSeconds, drainSeconds: lag.drainSeconds, unmeasured: lag.unmeasured };
    if (lagChangedMaterially(said.get(id), line)) {
      said.set(id, line);
      logLag(logger, lag, capacity);
    }
    return lag;
  };
}

/** The INFO line of one measured lag. */
function logLag(logger: Logger, lag: GroupLag, capacity: number | undefined): void {
  const slowest = lag.slowest;
  const fields = {
    lagMessages: lag.lag,
    lagSeconds: lag.lagSeconds,
    drainSeconds: lag.drainSeconds,
    memberCapacity: capacity,
    slowestInstance: slowest?.instanceId,
    slowestMember: slowest?.memberId,
    slowestArrivalRate: slowest?.arrivalRate,
    noCommitPartitions: lag.unmeasured.no_commit,
    noRatePartitions: lag.unmeasured.no_rate,
    notReadPartitions: lag.unmeasured.not_read,
  };
  const behind =
    lag.lagSeconds === undefined
      ? 'time behind unknown (no arrival rate where messages wait)'
      : `${seconds(lag.lagSeconds * 1000)} behind at the current arrival rate`;
  const who = slowest === undefined ? '' : ` (slowest: instance ${slowest.instanceId})`;
  let drain = '';
  if (capacity !== undefined && lag.drainSeconds === 'never' && slowest !== undefined) {
    drain =
      `; never drains at this load: a member of instance ${slowest.instanceId} receives ` +
      `${figure(slowest.arrivalRate)}, at or above the member capacity of ${figure(capacity)}`;
  } else if (typeof lag.drainSeconds === 'number') {
    drain = `; drains in ${seconds(lag.drainSeconds * 1000)} at a member capacity of ${figure(capacity!)}${who}`;
  } else if (capacity === undefined) {
    drain = who;
  }
  const apart = leftOut(lag.unmeasured);
  logger.info(
    fields,
    escapeLogText(`group lag: ${String(lag.lag)} messages, ${behind}${drain}${apart === '' ? '' : `; ${apart}`}`),
  );
}

/** `left out: 2 partition(s) without a committed offset, …`, or nothing. */
function leftOut(unmeasured: Readonly<Record<LagUnmeasured, number>>): string {
  const parts = [
    [unmeasured.no_commit, 'without a committed offset'],
    [unmeasured.no_rate, 'with messages waiting and no arrival rate (in the messages, not the seconds)'],
    [unmeasured.not_read, 'whose offsets were not read'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, what]) => `${String(n)} partition(s) ${what}`);
  return said.length === 0 ? '' : `left out: ${said.join(', ')}`;
}
