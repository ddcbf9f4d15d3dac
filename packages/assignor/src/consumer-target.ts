import type { Consumer } from 'kafkajs';
import { GroupNotDescribedError } from './errors/errors.js';
import { measureRebalancePauses, type PauseSink } from './member/pause-meter.js';
import { observeGroup } from './protocol/described-group.js';
import type { MembershipEvent, TriggerAssigner, TriggerTarget } from './trigger-target.js';

/**
 * A KafkaJS consumer and the assigner it uses, as the trigger controller's {@link TriggerTarget}
 * (`assigner.triggerTarget(consumer)`): the group read through the consumer's own connection (so
 * TLS and SASL apply), membership from its instrumentation events, the rebalance started in the
 * background through the assigner, and the assigner's readers for the controller's extra checks.
 */
export function kafkajsTriggerTarget(
  consumer: Consumer,
  assigner: Required<TriggerAssigner> & PauseSink,
): TriggerTarget {
  const judged: TriggerAssigner = {
    weights: assigner.weights,
    defaultWeight: assigner.defaultWeight,
    moveTolerance: assigner.moveTolerance,
    maxMovesPerRebalance: assigner.maxMovesPerRebalance,
    crossGroup: assigner.crossGroup,
    staticMembership: assigner.staticMembership,
    bumpEpoch: (groupId) => assigner.bumpEpoch(groupId),
    // In the background: this member keeps processing until its heartbeat learns of the
    // rebalance, like every other member, instead of waiting longest at the barrier.
    startRebalance: (groupId) => assigner.startRebalance(groupId),
    readSiblings: (groupId, timeoutMs) => assigner.readSiblings(groupId, timeoutMs),
    readProgress: (groupId, partitions, timeoutMs) => assigner.readProgress(groupId, partitions, timeoutMs),
    readTopicPartitions: (groupId, topics, timeoutMs) => assigner.readTopicPartitions(groupId, topics, timeoutMs),
    // So that the plan places with the racks the leader places with.
    replicaRacksOf: (groupId, partitions) => assigner.replicaRacksOf(groupId, partitions),
  };
  return {
    assigner: judged,
    async describeGroup() {
      const description = await consumer.describeGroup();
      if ((description as unknown) === undefined) throw new GroupNotDescribedError(undefined);
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
    measurePauses: () => measureRebalancePauses(consumer, assigner),
  };
}
