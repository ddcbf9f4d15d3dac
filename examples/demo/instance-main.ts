/**
 * One consumer instance of the demo, run as its own process by the parent (see instances.ts):
 * `members` KafkaJS consumers of one group, doing real per-message work (work.ts), with either
 * KafkaJS's round-robin assigner or load-aware with offset-rate weights and the proactive trigger
 * (the "fast preset"). It reports to the parent as JSON lines (protocol.ts) and stops when its
 * stdin closes, on SIGINT/SIGTERM, or after `lifetimeMs`: it never outlives the demo.
 *
 * argv[2] is a JSON InstanceSpec.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, PartitionAssigners, type Consumer, type PartitionAssigner } from 'kafkajs';
import { Registry } from 'prom-client';
import { LoadAwareAssigner, type Logger } from '@load-aware/assignor';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import type { InstanceEvent, InstanceSpec } from './protocol.js';
import { processMessage } from './work.js';

/** Longest wait for the first measured rates before the consumers join. */
const WARM_UP_LIMIT_MS = 5000;

function emit(event: InstanceEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/**
 * Forwards what the parent measures from the library's own logs: the leader's assignment lines
 * (with `durationMs`, and the defaulted-weight count), its "moves" line, the trigger's fires, and
 * every warning.
 */
function reportingLogger(instanceId: string): Logger {
  const ignore = (): void => undefined;
  return {
    debug: ignore,
    info: (fields, message = '') => {
      const at = Date.now();
      const { durationMs, result, defaulted, moved, previouslyOwned } = fields;
      if (typeof durationMs === 'number' && typeof result === 'string') {
        emit({
          event: 'assignment',
          instanceId,
          result,
          durationMs,
          ...(typeof defaulted === 'number' ? { defaulted } : {}),
          at,
        });
      } else if (typeof moved === 'number' && typeof previouslyOwned === 'number') {
        emit({ event: 'placement', instanceId, moved, previouslyOwned, at });
      } else if (message.startsWith('rebalance initiated')) {
        emit({ event: 'trigger', instanceId, message, at });
      }
    },
    warn: (_fields, message = '') => {
      emit({ event: 'warn', instanceId, message, at: Date.now() });
    },
    error: (_fields, message = '') => {
      emit({ event: 'warn', instanceId, message, at: Date.now() });
    },
  };
}

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
        emit({
          event: 'assignment',
          instanceId,
          result: 'round_robin',
          durationMs: performance.now() - started,
          at: Date.now(),
        });
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
    if (spec.trackAllPartitions) {
      // Sample from the start and join once rates are known, so the first assignment is already
      // weighed (as a restarted pod would do with `track()`); bounded, then it joins anyway.
      const all = Array.from({ length: spec.partitions }, (_, partition) => ({ topic: spec.topic, partition }));
      weights.track(all);
      const warmUntil = Date.now() + WARM_UP_LIMIT_MS;
      while ((await weights.getWeights(all)).length < all.length && Date.now() < warmUntil) await sleep(200);
    }
    // Capacity = members: each member processes one message at a time, so an instance with three
    // members can take three times the load of one with a single member.
    loadAware = LoadAwareAssigner({ instanceId, capacity: spec.members, weights, logger, registry });
    assigners = [loadAware, PartitionAssigners.roundRobin];
  } else {
    assigners = [timedRoundRobin(instanceId)];
  }

  let consumed = 0;
  const offsets: Record<string, number> = {};
  const assigned = new Map<Consumer, number[]>();
  const members: Member[] = [];

  const startMember = async (): Promise<void> => {
    const consumer = kafka.consumer({
      groupId: spec.groupId,
      partitionAssigners: assigners,
      sessionTimeout: spec.sessionTimeoutMs,
      rebalanceTimeout: spec.sessionTimeoutMs,
      heartbeatInterval: spec.heartbeatIntervalMs,
      maxWaitTimeInMs: 250,
      maxBytesPerPartition: spec.maxBytesPerPartition,
      maxBytes: spec.maxBytesPerPartition * 8,
    });
    let joined: { isLeader: boolean; partitions: number[]; at: number } | undefined;
    let generation = -1;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const partitions = [...(payload.memberAssignment[spec.topic] ?? [])].sort((a, b) => a - b);
      joined = { isLeader: payload.isLeader, partitions, at: Date.now() };
      assigned.set(consumer, partitions);
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
        joinedAt: joined.at,
        partitions: joined.partitions,
        at: Date.now(),
      });
    });
    const trigger =
      loadAware === undefined
        ? undefined
        : createTriggerController(
            { consumer, assigner: loadAware },
            {
              checkIntervalMs: preset.checkIntervalMs,
              trigger: {
                threshold: preset.threshold,
                minViolatedChecks: preset.minViolatedChecks,
                cooldownMs: preset.cooldownMs,
                maxCooldownMs: preset.maxCooldownMs,
              },
              logger,
              registry,
            },
          );
    // Listed before connecting, so a stop during start-up still disconnects it.
    members.push({ consumer, trigger });
    await consumer.connect();
    await consumer.subscribe({ topic: spec.topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        await processMessage(message.value, spec.workMs, spec.cpuMs);
        consumed++;
        offsets[String(partition)] = Number(message.offset) + 1;
      },
    });
  };

  const stats = setInterval(() => {
    emit({
      event: 'stats',
      instanceId,
      consumed,
      offsets: { ...offsets },
      assigned: [...assigned.values()].flat().sort((a, b) => a - b),
      at: Date.now(),
    });
    consumed = 0;
  }, spec.statsIntervalMs);

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    clearInterval(stats);
    await Promise.allSettled(members.flatMap((m) => (m.trigger === undefined ? [] : [m.trigger.stop()])));
    await Promise.allSettled(members.map((m) => m.consumer.disconnect()));
    await weights?.stop();
    process.exit(0);
  };
  setTimeout(() => void stop(), spec.lifetimeMs).unref();
  process.stdin.on('end', () => void stop());
  process.stdin.on('error', () => void stop());
  process.stdin.resume();
  process.on('SIGTERM', () => void stop());
  // Ctrl-C reaches the whole process group; stop cleanly rather than die mid-commit.
  process.on('SIGINT', () => void stop());

  await Promise.all(Array.from({ length: spec.members }, startMember));
  emit({ event: 'ready', instanceId, at: Date.now() });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
