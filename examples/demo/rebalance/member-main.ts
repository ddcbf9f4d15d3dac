/**
 * One member of the rebalance benchmark, in its own process as a pod would be: its own KafkaJS
 * client, one consumer, its own instance id. It calls `consumer.run()` at the wall-clock time the
 * parent gives (KafkaJS times heartbeats from there, so staggered starts put the members'
 * heartbeats out of phase), spends real time on every message, and reports to the parent as
 * JSON lines (protocol.ts): every processed message's finish time and partition, every
 * heartbeat with its generation, joins, rebalances, group requests. Commands on stdin fire a
 * proactive rebalance, leave, or report the pause histogram. It stops when stdin closes, on
 * SIGINT/SIGTERM, or after `lifetimeMs`: it never outlives the benchmark.
 *
 * argv[2] is a JSON MemberSpec.
 */
import { Kafka, logLevel, PartitionAssigners, type PartitionAssigner } from 'kafkajs';
import { Registry } from 'prom-client';
import { LoadAwareAssigner, type LoadAwarePartitionAssigner } from '@load-aware/assignor';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import { fire } from './member-fire.js';
import { emit, now, serveMember, work } from './member-process.js';
import type { MemberSpec } from './protocol.js';

/** Group requests worth reporting: they mark when a member joined, synced and left. */
const REPORTED_APIS = new Set(['JoinGroup', 'SyncGroup', 'LeaveGroup']);

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as MemberSpec;
  const { instanceId, tuning } = spec;
  const kafka = new Kafka({ clientId: instanceId, brokers: spec.brokers, logLevel: logLevel.NOTHING });
  // The registry the assigner registers its metrics on; the pause histogram is read from it.
  const registry = new Registry();
  let loadAware: LoadAwarePartitionAssigner | undefined;
  let assigners: PartitionAssigner[];
  if (spec.assigner === 'load-aware') {
    // The README's wiring; every partition weighs the same here, and so does its traffic.
    loadAware = LoadAwareAssigner({ instanceId, registry });
    assigners = [loadAware, PartitionAssigners.roundRobin];
  } else {
    assigners = [PartitionAssigners.roundRobin];
  }
  const consumer = kafka.consumer({
    groupId: spec.groupId,
    partitionAssigners: assigners,
    heartbeatInterval: tuning.heartbeatInterval,
    maxWaitTimeInMs: tuning.maxWaitTimeInMs,
    sessionTimeout: tuning.sessionTimeout,
    rebalanceTimeout: tuning.rebalanceTimeout,
    ...(tuning.maxBytesPerPartition === undefined ? {} : { maxBytesPerPartition: tuning.maxBytesPerPartition }),
    ...(tuning.maxBytes === undefined ? {} : { maxBytes: tuning.maxBytes }),
  });
  // Where a consumer-side pause instrument (issue 25, item 1) would be attached, if it needs one.

  consumer.on(consumer.events.HEARTBEAT, ({ payload }) => {
    emit({ event: 'heartbeat', instanceId, generationId: payload.groupGenerationId, at: now() });
  });
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    const partitions = [...(payload.memberAssignment[spec.topic] ?? [])].sort((a, b) => a - b);
    emit({ event: 'join', instanceId, isLeader: payload.isLeader, partitions, at: now() });
  });
  consumer.on(consumer.events.REBALANCING, () => {
    emit({ event: 'rebalancing', instanceId, at: now() });
  });
  consumer.on(consumer.events.REQUEST, ({ payload }) => {
    if (!REPORTED_APIS.has(payload.apiName)) return;
    emit({ event: 'request', instanceId, api: payload.apiName, sentAt: payload.sentAt, durationMs: payload.duration });
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    emit({ event: 'crash', instanceId, message: payload.error.message, at: now() });
  });

  let trigger: TriggerController | undefined;
  if (loadAware !== undefined && spec.trigger) {
    trigger = createTriggerController(
      { target: loadAware.triggerTarget(consumer) },
      { checkIntervalMs: spec.triggerCheckIntervalMs, registry },
    );
  }

  const member = serveMember(spec, registry, {
    fire: loadAware === undefined ? undefined : (mode) => fire(loadAware, spec.groupId, mode),
    close: async () => {
      await trigger?.stop().catch(() => undefined);
      await consumer.disconnect().catch((err: unknown) => {
        emit({ event: 'warn', instanceId, message: `disconnect: ${String(err)}`, at: now() });
      });
    },
  });

  await consumer.connect();
  await consumer.subscribe({ topic: spec.topic, fromBeginning: true });
  emit({ event: 'connected', instanceId, at: now() });
  await member.untilRun();
  if (member.stopping) return;
  emit({ event: 'running', instanceId, at: now() });
  await consumer.run({
    eachMessage: async ({ partition }) => {
      await work(spec);
      member.processed(partition);
    },
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
