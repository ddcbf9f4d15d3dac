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
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, PartitionAssigners, type Consumer, type PartitionAssigner } from 'kafkajs';
import { Registry } from 'prom-client';
import { LoadAwareAssigner, type Logger } from '@load-aware/assignor';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import { pinnedAssigner } from './pinned-assigner.js';
import { ProcessingMonitor } from './processing.js';
import { isPinned, type InstanceEvent, type InstanceSpec } from './protocol.js';
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
  const monitor =
    spec.pauseThresholdMs === undefined ? undefined : new ProcessingMonitor(spec.pauseThresholdMs, spec.members);

  let consumed = 0;
  const offsets: Record<string, number> = {};
  const assigned = new Map<Consumer, number[]>();
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
        monitor?.processed(member, partition, Number(message.offset), Date.now());
        consumed++;
        offsets[String(partition)] = Number(message.offset) + 1;
      },
    });
  };

  /** `last`: the process is stopping, so pauses still going are its own downtime, not reported. */
  const emitStats = (last = false): void => {
    const at = Date.now();
    emit({
      event: 'stats',
      instanceId,
      consumed,
      offsets: { ...offsets },
      assigned: [...assigned.values()].flat().sort((a, b) => a - b),
      ...(monitor === undefined ? {} : { processing: monitor.report(at, !last) }),
      at,
    });
    consumed = 0;
  };
  const stats = setInterval(() => {
    emitStats();
  }, spec.statsIntervalMs);

  let stopping = false;
  /**
   * `leave`: the process is gone for good, so static members leave the group (a scale-down)
   * instead of holding their places for `sessionTimeout`. Dynamic members always leave (KafkaJS).
   */
  const stop = async (leave: boolean): Promise<void> => {
    if (stopping) return;
    stopping = true;
    if (leave) loadAware?.leaveOnDisconnect();
    clearInterval(stats);
    await Promise.allSettled(members.flatMap((m) => (m.trigger === undefined ? [] : [m.trigger.stop()])));
    await Promise.allSettled(members.map((m) => m.consumer.disconnect()));
    // What was processed since the last line (and while disconnecting), or the parent would
    // count it as lost; only with processing reports, so the demo's lines stay as they were.
    if (monitor !== undefined) emitStats(true);
    await weights?.stop();
    process.exit(0);
  };
  setTimeout(() => void stop(true), spec.lifetimeMs).unref();
  process.stdin.on('end', () => void stop(true));
  process.stdin.on('error', () => void stop(true));
  process.stdin.resume();
  // What a rolling deploy sends a pod: it comes back, so static members keep their places.
  process.on('SIGTERM', () => void stop(false));
  // Ctrl-C reaches the whole process group; stop cleanly rather than die mid-commit.
  process.on('SIGINT', () => void stop(true));

  await Promise.all(Array.from({ length: spec.members }, (_, member) => startMember(member)));
  const readyAt = Date.now();
  monitor?.ready(readyAt);
  emit({ event: 'ready', instanceId, at: readyAt });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
