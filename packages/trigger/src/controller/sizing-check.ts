import {
  sizeGroup,
  utilizationForLatency,
  type GroupSize,
  type Logger,
  type WeightedPartition,
} from '@load-aware/assignor/internal';
import type { SizingSettings } from '../config/options.js';
import type { ObservedGroup } from './observe.js';
import type { UsedCapacity } from './capacity-check.js';
import { figure } from '../contract/text.js';

/** Where a sizing check's answer goes: the gauges; undefined removes them (the group is not sized). */
export interface SizingSink {
  sizing(group: string, sized: SizedGroup | undefined): void;
}

/** One sizing check's answer: the group's size and the target utilization it was sized at. */
export interface SizedGroup {
  readonly size: GroupSize;
  readonly targetUtilization: number;
}

/** The target utilization one sizing check used, or why there was none. */
type UsedTarget =
  /** `how`: where a derived target came from, for the log line; undefined for a stated one. */
  | { readonly ok: true; readonly utilization: number; readonly how: string | undefined }
  | { readonly ok: false; readonly reason: string };

/**
 * The target of one check: stated (or the default), or derived from the latency SLA and the work a
 * message cost in the capacity's window.
 */
function targetOf(settings: SizingCheckSettings, capacity: UsedCapacity): UsedTarget {
  const sla = settings.latencySla;
  if (sla === undefined) return { ok: true, utilization: settings.targetUtilization, how: undefined };
  const work = capacity.secondsPerMessage;
  if (work === undefined) return { ok: false, reason: 'busy time has not measured the work a message costs yet' };
  const derived = utilizationForLatency({
    slaSeconds: sla.seconds,
    quantile: sla.quantile,
    variability: sla.variability,
    secondsPerMessage: work,
    slots: settings.measured?.slots ?? 1,
  });
  if (!derived.ok) return { ok: false, reason: derived.reason };
  return {
    ok: true,
    utilization: derived.utilization,
    how: `the ${figure(sla.seconds)} s p${figure(100 * sla.quantile)} latency SLA at ${figure(1000 * work)} ms a message`,
  };
}

/** What the sizing check reads of the resolved `sizing` option. */
export type SizingCheckSettings = Pick<SizingSettings, 'targetUtilization' | 'latencySla' | 'measured'>;

/**
 * Sizes the group at each judged check (`sizeGroup()` on the weights the check read, at the
 * capacity the capacity check chose and the target utilization stated or derived from the latency
 * SLA), publishes the answer, and logs it when it changes: INFO with the counts, WARN naming the
 * partitions that make scaling out futile. Instances are counted as the group runs them now: as
 * many members each as its largest instance. A latency SLA no target follows from (no message
 * measured yet, or one message's work alone past the SLA) leaves the group unsized, with one WARN
 * per streak: sizing at a guess would scale the group on nothing.
 */
export function createSizingCheck(settings: SizingCheckSettings, sink: SizingSink) {
  const said = new Map<string, string>();
  const unsized = new Set<string>();
  return (
    group: ObservedGroup,
    partitions: ReadonlyArray<WeightedPartition>,
    capacity: UsedCapacity,
    logger: Logger,
  ): GroupSize | undefined => {
    const target = targetOf(settings, capacity);
    if (!target.ok) {
      // Figures from before would tell an autoscaler a size nothing supports any more.
      sink.sizing(group.groupId, undefined);
      said.delete(group.groupId);
      if (!unsized.has(group.groupId)) {
        unsized.add(group.groupId);
        logger.warn(
          { latencySla: settings.latencySla },
          `group not sized: no target utilization follows from the latency SLA: ${target.reason}`,
        );
      }
      return undefined;
    }
    unsized.delete(group.groupId);
    const perInstance = new Map<string, number>();
    for (const m of group.members) perInstance.set(m.instanceId, (perInstance.get(m.instanceId) ?? 0) + 1);
    const membersPerInstance = Math.max(1, ...perInstance.values());
    const size = sizeGroup({
      partitions,
      memberCapacity: capacity.memberCapacity,
      targetUtilization: target.utilization,
      membersPerInstance,
    });
    sink.sizing(group.groupId, { size, targetUtilization: target.utilization });
    const heavy = size.futilePartitions.map((p) => `${p.topic}:${String(p.partition)}`);
    // A derived target moves a little at every check; the line is for a changed answer.
    const summary = `${String(size.desiredMembers)}/${String(size.desiredInstances)}/${heavy.join(',')}`;
    if (said.get(group.groupId) !== summary) {
      said.set(group.groupId, summary);
      const fields = {
        desiredMembers: size.desiredMembers,
        desiredInstances: size.desiredInstances,
        membersPerInstance,
        members: group.members.length,
        targetUtilization: target.utilization,
        memberCapacity: capacity.memberCapacity,
        capacitySource: capacity.source,
      };
      logger.info(
        fields,
        `group size: ${String(size.desiredMembers)} members (or ${String(size.desiredInstances)} instances of ` +
          `${String(membersPerInstance)}) keep every member within ${figure(100 * target.utilization)}% ` +
          `of its capacity${target.how === undefined ? '' : ` (${target.how})`}; the group has ` +
          String(group.members.length),
      );
      if (size.futile) {
        logger.warn(
          { ...fields, futilePartitions: heavy.slice(0, 20), futileCount: heavy.length },
          `scale-out is futile: ${heavy.slice(0, 5).join(', ')}${heavy.length > 5 ? ', ...' : ''} alone exceed(s) ` +
            "one member's target load, and more members cannot split a partition; more partitions, a faster " +
            'handler or a larger member can',
        );
      }
    }
    return size;
  };
}
