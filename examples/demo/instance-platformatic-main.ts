/**
 * One consumer instance of the demo with `--client platformatic`: `members` @platformatic/kafka
 * consumers of one group, doing the same per-message work as the KafkaJS instance
 * (instance-main.ts) and printing the same JSON lines (protocol.ts), with either platformatic's
 * own round-robin assigner (timed by a wrapper) or `@load-aware/platformatic` with offset-rate
 * weights read through a platformatic `Admin` and the proactive trigger through
 * `assigner.triggerTarget(consumer, admin)` (the "fast preset"). Needs the Node platformatic
 * needs (>= 22.22 or >= 24.6). Stops when its stdin closes, on SIGINT/SIGTERM, or after
 * `lifetimeMs`.
 *
 * argv[2] is a JSON InstanceSpec.
 */
import { performance } from 'node:perf_hooks';
import type { Consumer, GroupPartitionsAssigner, MessagesStream } from '@platformatic/kafka';
import { Registry } from 'prom-client';
import { LoadAwareAssigner } from '@load-aware/platformatic';
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
import type { InstanceSpec } from './protocol.js';

/** Platformatic's own round-robin, timed: the same assignment, reported as the KafkaJS phase's is. */
function timedRoundRobin(instanceId: string, inner: GroupPartitionsAssigner): GroupPartitionsAssigner {
  return (current, members, topics, metadata) => {
    const started = performance.now();
    const result = inner(current, members, topics, metadata);
    roundRobinAssigned(instanceId, started);
    return result;
  };
}

interface Member {
  consumer: Consumer;
  stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  trigger: TriggerController | undefined;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as InstanceSpec;
  const { instanceId, preset } = spec;
  if (spec.staticMembership === true) throw new Error('the platformatic demo runs dynamic members only');
  const logger = reportingLogger(instanceId);
  // ESM only: a dynamic import, which the CommonJS build keeps as one.
  const { Admin, Consumer: ConsumerClass, roundRobinAssigner } = await import('@platformatic/kafka');
  const registry = new Registry();
  const admin =
    spec.assigner === 'load-aware'
      ? new Admin({ clientId: `${instanceId}-admin`, bootstrapBrokers: spec.brokers })
      : undefined;
  let weights: OffsetRateWeightSource | undefined;
  let assigner: ReturnType<typeof LoadAwareAssigner> | undefined;
  if (admin !== undefined) {
    weights = createOffsetRateWeightSource({
      kafka: admin,
      rateIntervalMs: preset.rateIntervalMs,
      sampleIntervalMs: preset.sampleIntervalMs,
      logger,
      registry,
    }).start();
    await warmUp(weights, spec);
    // Capacity = members, as in the KafkaJS instance: members process one message at a time.
    assigner = LoadAwareAssigner({ instanceId, capacity: spec.members, weights, logger, registry });
  }
  const stats = new InstanceStats(spec);
  const members: Member[] = [];

  const startMember = async (member: number): Promise<void> => {
    const base = {
      groupId: spec.groupId,
      // The client id starts every member id, so round-robin orders members by instance.
      clientId: `${instanceId}-${String(member)}`,
      bootstrapBrokers: spec.brokers,
      sessionTimeout: spec.sessionTimeoutMs,
      // Platformatic requires rebalanceTimeout >= sessionTimeout.
      rebalanceTimeout: Math.max(spec.rebalanceTimeoutMs ?? spec.sessionTimeoutMs, spec.sessionTimeoutMs),
      heartbeatInterval: spec.heartbeatIntervalMs,
      maxWaitTime: 250,
      maxBytes: spec.maxBytesPerPartition * 8,
      autocommit: 1000,
    };
    const consumer: Consumer =
      assigner === undefined
        ? new ConsumerClass({ ...base, partitionAssigner: timedRoundRobin(instanceId, roundRobinAssigner) })
        : assigner.attach(new ConsumerClass({ ...base, ...assigner.groupOptions() }));
    consumer.on('consumer:group:join', (payload) => {
      const partitions = (payload.assignments ?? [])
        .filter((a) => a.topic === spec.topic)
        .flatMap((a) => a.partitions)
        .sort((a, b) => a - b);
      stats.assigned(consumer, partitions);
      const at = Date.now();
      emit({
        event: 'generation',
        instanceId,
        memberId: payload.memberId,
        generationId: payload.generationId ?? -1,
        isLeader: payload.isLeader === true,
        joinedAt: at,
        partitions,
        at,
      });
    });
    const trigger =
      assigner === undefined || admin === undefined
        ? undefined
        : createTriggerController(
            { target: assigner.triggerTarget(consumer, admin) },
            triggerOptions(preset, logger, registry),
          );
    const entry: Member = { consumer, stream: undefined, trigger };
    // Listed before joining, so a stop during start-up still closes it.
    members.push(entry);
    const stream = await consumer.consume({ topics: [spec.topic] });
    entry.stream = stream;
    void (async () => {
      for await (const message of stream) await stats.process(member, message.partition, message.offset, message.value);
    })().catch((err: unknown) => {
      emit({ event: 'warn', instanceId, message: `stream: ${String(err)}`, at: Date.now() });
    });
  };

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    stats.stop();
    await Promise.allSettled(members.flatMap((m) => (m.trigger === undefined ? [] : [m.trigger.stop()])));
    await Promise.allSettled(members.flatMap((m) => (m.stream === undefined ? [] : [m.stream.close()])));
    // close() sends LeaveGroup.
    await Promise.allSettled(members.map((m) => m.consumer.close()));
    stats.final();
    await weights?.stop();
    await admin?.close().catch(() => undefined);
    process.exit(0);
  };
  // Dynamic members only: every stop leaves.
  stopWhenAsked(spec, () => stop());

  await Promise.all(Array.from({ length: spec.members }, (_, member) => startMember(member)));
  stats.ready();
}

runInstance(main);
