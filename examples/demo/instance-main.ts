/**
 * One consumer instance of the demo, run as its own process by the parent (see instances.ts):
 * `members` KafkaJS consumers of one group, doing real per-message work (work.ts), with either
 * KafkaJS's round-robin assigner or load-aware with offset-rate weights and the proactive trigger
 * (the "fast preset"). It reports to the parent as JSON lines (protocol.ts) and stops when its
 * stdin closes, on SIGINT/SIGTERM, or after `lifetimeMs`: it never outlives the demo.
 *
 * With `staticMembership` (load-aware only) its consumers join as static members; SIGTERM is a
 * deploy restart (disconnect without LeaveGroup: the new process takes the places back), while a
 * closed stdin, SIGINT or the lifetime's end mean the process is gone for good and leave.
 *
 * argv[2] is a JSON InstanceSpec.
 */
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel, PartitionAssigners, type Consumer, type PartitionAssigner } from 'kafkajs';
import { Registry } from 'prom-client';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import {
  emit,
  InstanceStats,
  reportingLogger,
  roundRobinAssigned,
  runInstance,
  stopWhenAsked,
  triggerOptions,
  warmUp,
} from './instance-process.js';
import { pinnedAssigner } from './pinned-assigner.js';
import { isPinned, type InstanceSpec } from './protocol.js';

/** KafkaJS's own round-robin, timed: the same `assign()`, so the comparison costs it nothing extra. */
function timedRoundRobin(instanceId: string): PartitionAssigner {
  return (config) => {
    const inner = PartitionAssigners.roundRobin(config);
    return {
      name: inner.name,
      version: inner.version,
      protocol: (subscription) => inner.protocol(subscription),
      assign: async (group) => {
        const started = performance.now();
        const result = await inner.assign(group);
        roundRobinAssigned(instanceId, started);
        return result;
      },
    };
  };
}

interface Member {
  consumer: Consumer;
  trigger: TriggerController | undefined;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as InstanceSpec;
  const { instanceId, preset } = spec;
  const logger = reportingLogger(instanceId);
  // The client id starts every member id, so KafkaJS's round-robin orders members by instance.
  const kafka = new Kafka({ clientId: instanceId, brokers: spec.brokers, logLevel: logLevel.NOTHING });
  const registry = new Registry();
  let weights: OffsetRateWeightSource | undefined;
  let assigners: PartitionAssigner[];
  let loadAware: ReturnType<typeof LoadAwareAssigner> | undefined;
  if (spec.assigner === 'load-aware') {
    weights = createOffsetRateWeightSource({
      kafka,
      rateIntervalMs: preset.rateIntervalMs,
      sampleIntervalMs: preset.sampleIntervalMs,
      logger,
      registry,
    }).start();
    await warmUp(weights, spec);
    // Capacity = members: each member processes one message at a time, so an instance with three
    // members can take three times the load of one with a single member.
    // Static membership: the instance id is the pod's name, the same in every process of the
    // pod, so the group instance ids (`<instanceId>.<n>`) are too.
    loadAware = LoadAwareAssigner({
      instanceId,
      capacity: spec.members,
      weights,
      logger,
      registry,
      ...(spec.staticMembership === true ? { staticMembership: true } : {}),
    });
    assigners = [loadAware, PartitionAssigners.roundRobin];
  } else {
    if (spec.staticMembership === true) throw new Error('staticMembership needs the load-aware assigner');
    if (isPinned(spec.assigner)) {
      if (spec.pinnedPlan === undefined) throw new Error(`the ${spec.assigner} assigner needs a pinnedPlan`);
      assigners = [pinnedAssigner(spec.topic, spec.pinnedPlan)];
    } else {
      assigners = [timedRoundRobin(instanceId)];
    }
  }
  const stats = new InstanceStats(spec);
  const members: Member[] = [];

  const startMember = async (member: number): Promise<void> => {
    const consumer = kafka.consumer({
      groupId: spec.groupId,
      partitionAssigners: assigners,
      sessionTimeout: spec.sessionTimeoutMs,
      rebalanceTimeout: spec.rebalanceTimeoutMs ?? spec.sessionTimeoutMs,
      heartbeatInterval: spec.heartbeatIntervalMs,
      maxWaitTimeInMs: 250,
      maxBytesPerPartition: spec.maxBytesPerPartition,
      maxBytes: spec.maxBytesPerPartition * 8,
    });
    // Read now, in the job that created the consumer: the assigner holds each consumer's static
    // identity only through a WeakRef that nothing else references, so once the garbage collector
    // ran, groupInstanceIds() no longer lists it although the consumer still joins with it.
    const groupInstanceId = loadAware?.groupInstanceIds(spec.groupId).at(-1);
    let joined: { isLeader: boolean; partitions: number[]; at: number } | undefined;
    let generation = -1;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const partitions = [...(payload.memberAssignment[spec.topic] ?? [])].sort((a, b) => a - b);
      joined = { isLeader: payload.isLeader, partitions, at: Date.now() };
      stats.assigned(consumer, partitions);
    });
    // The join event has no generation id; the first heartbeat after it does.
    consumer.on(consumer.events.HEARTBEAT, ({ payload }) => {
      if (payload.groupGenerationId === generation || joined === undefined) return;
      generation = payload.groupGenerationId;
      emit({
        event: 'generation',
        instanceId,
        memberId: payload.memberId,
        generationId: generation,
        isLeader: joined.isLeader,
        ...(groupInstanceId === undefined ? {} : { groupInstanceId }),
        joinedAt: joined.at,
        partitions: joined.partitions,
        at: Date.now(),
      });
    });
    const trigger =
      loadAware === undefined
        ? undefined
        : createTriggerController(
            { target: loadAware.triggerTarget(consumer) },
            triggerOptions(preset, logger, registry),
          );
    // Listed before connecting, so a stop during start-up still disconnects it.
    members.push({ consumer, trigger });
    await consumer.connect();
    await consumer.subscribe({ topic: spec.topic, fromBeginning: true });
    await consumer.run({
      eachMessage: ({ partition, message }) => stats.process(member, partition, message.offset, message.value),
    });
  };

  let stopping = false;
  /**
   * `leave`: the process is gone for good, so static members leave the group (a scale-down)
   * instead of holding their places for `sessionTimeout`. Dynamic members always leave (KafkaJS).
   */
  const stop = async (leave: boolean): Promise<void> => {
    if (stopping) return;
    stopping = true;
    if (leave) loadAware?.leaveOnDisconnect();
    stats.stop();
    await Promise.allSettled(members.flatMap((m) => (m.trigger === undefined ? [] : [m.trigger.stop()])));
    await Promise.allSettled(members.map((m) => m.consumer.disconnect()));
    stats.final();
    await weights?.stop();
    process.exit(0);
  };
  // A SIGTERM (a rolling deploy's) comes back: static members keep their places.
  stopWhenAsked(spec, stop);

  await Promise.all(Array.from({ length: spec.members }, (_, member) => startMember(member)));
  stats.ready();
}

runInstance(main);
