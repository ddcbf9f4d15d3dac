import type { Consumer } from 'kafkajs';
import { measureRebalancePauses, observeGroup, type LoadAwarePartitionAssigner } from '@load-aware/assignor/internal';
import { GroupNotDescribedError } from '../contract/errors.js';
import type { MembershipEvent, TriggerAssigner, TriggerTarget } from '../contract/target.js';

/**
 * A KafkaJS consumer and the `LoadAwareAssigner` it uses, as the controller's {@link TriggerTarget}:
 * the group read through the consumer's own connection (`describeGroup()`, so TLS and SASL
 * apply), membership from its instrumentation events, the rebalance through the assigner's
 * `startRebalance()` (an assigner from an older version has only `requestRejoin`, and may lack
 * the readers: the controller then skips what they serve).
 */
export function kafkajsTarget(consumer: Consumer, assigner: LoadAwarePartitionAssigner): TriggerTarget {
  const legacy = assigner as Partial<LoadAwarePartitionAssigner>;
  const adapted: TriggerAssigner = {
    weights: assigner.weights,
    defaultWeight: assigner.defaultWeight,
    moveTolerance: assigner.moveTolerance,
    maxMovesPerRebalance: assigner.maxMovesPerRebalance,
    crossGroup: assigner.crossGroup,
    staticMembership: assigner.staticMembership,
    bumpEpoch: (groupId) => assigner.bumpEpoch(groupId),
    // In the background: this member keeps processing until its heartbeat learns of the
    // rebalance, like every other member, instead of waiting longest at the barrier.
    startRebalance: (groupId) =>
      typeof legacy.startRebalance === 'function' ? assigner.startRebalance(groupId) : assigner.requestRejoin(groupId),
    ...(typeof legacy.readSiblings === 'function'
      ? { readSiblings: (groupId: string, timeoutMs: number) => assigner.readSiblings(groupId, timeoutMs) }
      : {}),
    ...(typeof legacy.readProgress === 'function' ? { readProgress: assigner.readProgress.bind(assigner) } : {}),
    ...(typeof legacy.readTopicPartitions === 'function'
      ? { readTopicPartitions: assigner.readTopicPartitions.bind(assigner) }
      : {}),
    // So that the plan places with the racks the leader places with (absent before racks).
    ...(typeof legacy.replicaRacksOf === 'function' ? { replicaRacksOf: assigner.replicaRacksOf.bind(assigner) } : {}),
  };
  return {
    assigner: adapted,
    async describeGroup() {
      const description = await consumer.describeGroup();
      if ((description as unknown) === undefined) throw new GroupNotDescribedError('no entry for the group');
      return observeGroup(description);
    },
    onMembership(listener: (event: MembershipEvent) => void) {
      const { events } = consumer;
      const removers = [
        consumer.on(events.GROUP_JOIN, ({ payload }) => {
          listener({ kind: 'join', groupId: payload.groupId, memberId: payload.memberId, isLeader: payload.isLeader });
        }),
        consumer.on(events.HEARTBEAT, ({ payload }) => {
          listener({ kind: 'heartbeat', groupId: payload.groupId, memberId: payload.memberId });
        }),
        consumer.on(events.STOP, () => {
          listener({ kind: 'leave', reason: 'consumer stopped' });
        }),
        consumer.on(events.CRASH, () => {
          listener({ kind: 'leave', reason: 'consumer crashed' });
        }),
        consumer.on(events.DISCONNECT, () => {
          listener({ kind: 'leave', reason: 'consumer disconnected' });
        }),
      ];
      return () => {
        for (const remove of removers) remove();
      };
    },
    // An assigner from an older version has no recordPause: nothing to report to.
    ...(typeof legacy.recordPause === 'function'
      ? { measurePauses: () => measureRebalancePauses(consumer, assigner) }
      : {}),
  };
}
