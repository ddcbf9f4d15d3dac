import { sizeGroup, type GroupSize, type Logger, type WeightedPartition } from '@load-aware/assignor/internal';
import type { SizingSettings } from '../config/options.js';
import type { ObservedGroup } from './observe.js';
import type { UsedCapacity } from './capacity-check.js';

/** Where a sizing check's answer goes: the gauges. */
export interface SizingSink {
  sizing(group: string, size: GroupSize): void;
}

/**
 * Sizes the group at each judged check (`sizeGroup()` on the weights the check read, at the
 * capacity the capacity check chose), publishes
 * the answer, and logs it when it changes: INFO with the counts, WARN naming the partitions that
 * make scaling out futile. Instances are counted as the group runs them now: as many members each
 * as its largest instance.
 */
export function createSizingCheck(settings: Pick<SizingSettings, 'targetUtilization'>, sink: SizingSink) {
  const said = new Map<string, string>();
  return (
    group: ObservedGroup,
    partitions: ReadonlyArray<WeightedPartition>,
    capacity: UsedCapacity,
    logger: Logger,
  ): GroupSize => {
    const perInstance = new Map<string, number>();
    for (const m of group.members) perInstance.set(m.instanceId, (perInstance.get(m.instanceId) ?? 0) + 1);
    const membersPerInstance = Math.max(1, ...perInstance.values());
    const size = sizeGroup({
      partitions,
      memberCapacity: capacity.memberCapacity,
      targetUtilization: settings.targetUtilization,
      membersPerInstance,
    });
    sink.sizing(group.groupId, size);
    const heavy = size.futilePartitions.map((p) => `${p.topic}:${String(p.partition)}`);
    const summary = `${String(size.desiredMembers)}/${String(size.desiredInstances)}/${heavy.join(',')}`;
    if (said.get(group.groupId) !== summary) {
      said.set(group.groupId, summary);
      const fields = {
        desiredMembers: size.desiredMembers,
        desiredInstances: size.desiredInstances,
        membersPerInstance,
        members: group.members.length,
        targetUtilization: settings.targetUtilization,
        memberCapacity: capacity.memberCapacity,
        capacitySource: capacity.source,
      };
      logger.info(
        fields,
        `group size: ${String(size.desiredMembers)} members (or ${String(size.desiredInstances)} instances of ` +
          `${String(membersPerInstance)}) keep every member within ${String(Math.round(100 * settings.targetUtilization))}% ` +
          `of its capacity; the group has ${String(group.members.length)}`,
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
