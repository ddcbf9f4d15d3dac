/**
 * One @platformatic/kafka member of the rebalance benchmark (`--client platformatic`): the same
 * spec, commands and JSON lines as the KafkaJS member (protocol.ts), from a platformatic
 * `Consumer` with `@load-aware/platformatic`'s assigner in eager or cooperative mode. Needs the
 * Node platformatic needs (>= 22.22 or >= 24.6). What platformatic reports differs a little:
 * heartbeats come from `consumer:heartbeat:end`, a cooperative revocation round from
 * `consumer:group:rebalance` (reported as `rebalancing`), and there are no request events.
 * A fire is `assigner.requestRebalance()` whatever the fire mode: platformatic has one rejoin
 * path (`joinGroup()`), and its consumer keeps processing while it runs.
 *
 * argv[2] is a JSON MemberSpec.
 */
import type { Consumer, MessagesStream } from '@platformatic/kafka';
import { Registry } from 'prom-client';
import { LoadAwareAssigner } from '@load-aware/platformatic';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import { emit, now, serveMember, work } from './member-process.js';
import type { MemberSpec } from './protocol.js';

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as MemberSpec;
  const { instanceId, tuning } = spec;
  // ESM only: a dynamic import, which the CommonJS build keeps as one.
  const { Admin, Consumer: ConsumerClass } = await import('@platformatic/kafka');
  const registry = new Registry();
  const mode = spec.assigner === 'platformatic-cooperative' ? 'cooperative' : 'eager';
  const assigner = LoadAwareAssigner({ instanceId, registry, mode });
  const consumer: Consumer = assigner.attach(
    new ConsumerClass({
      groupId: spec.groupId,
      clientId: instanceId,
      bootstrapBrokers: spec.brokers,
      heartbeatInterval: tuning.heartbeatInterval,
      sessionTimeout: tuning.sessionTimeout,
      // Platformatic requires rebalanceTimeout >= sessionTimeout.
      rebalanceTimeout: Math.max(tuning.rebalanceTimeout, tuning.sessionTimeout),
      maxWaitTime: tuning.maxWaitTimeInMs,
      autocommit: 100,
      ...assigner.groupOptions(),
    }),
  );
  consumer.on('consumer:heartbeat:end', (payload: { generationId: number }) => {
    emit({ event: 'heartbeat', instanceId, generationId: payload.generationId, at: now() });
  });
  consumer.on('consumer:group:join', (payload) => {
    const partitions = (payload.assignments ?? [])
      .filter((a) => a.topic === spec.topic)
      .flatMap((a) => a.partitions)
      .sort((a, b) => a - b);
    emit({ event: 'join', instanceId, isLeader: payload.isLeader === true, partitions, at: now() });
  });
  consumer.on('consumer:group:rebalance', () => {
    emit({ event: 'rebalancing', instanceId, at: now() });
  });

  const admin = spec.trigger
    ? new Admin({ clientId: `${instanceId}-trigger`, bootstrapBrokers: spec.brokers })
    : undefined;
  let trigger: TriggerController | undefined;
  if (admin !== undefined) {
    trigger = createTriggerController(
      { target: assigner.triggerTarget(consumer, admin) },
      { checkIntervalMs: spec.triggerCheckIntervalMs, registry },
    );
  }

  // Set once consume() returns; a stop may come before that.
  const consuming: { stream?: MessagesStream<Buffer, Buffer, Buffer, Buffer> } = {};
  const member = serveMember(spec, registry, {
    fire: () => {
      const asked = assigner.requestRebalance(spec.groupId);
      return Promise.resolve({ epoch: assigner.epochOf(spec.groupId), asked });
    },
    close: async () => {
      await trigger?.stop().catch(() => undefined);
      await consuming.stream?.close().catch(() => undefined);
      // close() sends LeaveGroup.
      await consumer.close().catch((err: unknown) => {
        emit({ event: 'warn', instanceId, message: `close: ${String(err)}`, at: now() });
      });
      await admin?.close().catch(() => undefined);
    },
  });

  // Platformatic connects lazily: "connected" means the client exists and can be told to run.
  emit({ event: 'connected', instanceId, at: now() });
  await member.untilRun();
  if (member.stopping) return;
  emit({ event: 'running', instanceId, at: now() });
  const stream = await consumer.consume({ topics: [spec.topic] });
  consuming.stream = stream;
  for await (const message of stream) {
    await work(spec);
    member.processed(message.partition);
  }
}

main().catch((err: unknown) => {
  emit({ event: 'crash', instanceId: 'unknown', message: err instanceof Error ? err.message : String(err), at: now() });
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
