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
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, MessagesStream } from '@platformatic/kafka';
import { Registry } from 'prom-client';
import { createLoadAwareAssigner } from '@load-aware/platformatic';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import { readPauseMetric } from './member-metrics.js';
import type { MemberCommand, MemberEvent, MemberSpec } from './protocol.js';

function emit(event: MemberEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/** Wall clock with sub-millisecond resolution, rounded to 0.1 ms. */
function now(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 10) / 10;
}

async function work(spec: MemberSpec): Promise<void> {
  if (spec.workMs <= 0) return;
  if (spec.workMode === 'sleep') {
    await sleep(spec.workMs);
    return;
  }
  const until = performance.now() + spec.workMs;
  while (performance.now() < until) {
    // spin: CPU work that cannot overlap with anything else in this process
  }
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as MemberSpec;
  const { instanceId, tuning } = spec;
  // ESM only: a dynamic import, which the CommonJS build keeps as one.
  const { Admin, Consumer: ConsumerClass } = await import('@platformatic/kafka');
  const registry = new Registry();
  const mode = spec.assigner === 'platformatic-cooperative' ? 'cooperative' : 'eager';
  const assigner = createLoadAwareAssigner({ instanceId, registry, mode });
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

  let times: number[] = [];
  let partitions: number[] = [];
  const flush = (): void => {
    if (times.length === 0) return;
    emit({ event: 'processed', instanceId, t: times, p: partitions });
    times = [];
    partitions = [];
  };
  const flusher = setInterval(flush, spec.flushIntervalMs);

  // Set once consume() returns; stop() may run before that.
  const consuming: { stream?: MessagesStream<Buffer, Buffer, Buffer, Buffer> } = {};
  let stopping: Promise<void> | undefined;
  const stop = (leave: boolean): Promise<void> =>
    (stopping ??= (async () => {
      if (leave) emit({ event: 'leaving', instanceId, at: now() });
      await trigger?.stop().catch(() => undefined);
      await consuming.stream?.close().catch(() => undefined);
      // close() sends LeaveGroup.
      await consumer.close().catch((err: unknown) => {
        emit({ event: 'warn', instanceId, message: `close: ${String(err)}`, at: now() });
      });
      await admin?.close().catch(() => undefined);
      assigner.close();
      clearInterval(flusher);
      flush();
      if (leave) emit({ event: 'left', instanceId, at: now() });
      process.exit(0);
    })());

  let runNow: () => void = () => undefined;
  const runCommanded = new Promise<void>((resolve) => {
    runNow = resolve;
  });
  const onCommand = async (command: MemberCommand): Promise<void> => {
    switch (command.cmd) {
      case 'run':
        runNow();
        return;
      case 'fire': {
        const at = now();
        const asked = assigner.requestRebalance(spec.groupId);
        emit({ event: 'fired', instanceId, mode: command.mode, epoch: assigner.epochOf(spec.groupId), asked, at });
        return;
      }
      case 'leave':
        await stop(true);
        return;
      case 'report':
        flush();
        emit({ event: 'pauseMetric', instanceId, ...(await readPauseMetric(registry)), at: now() });
        return;
    }
  };
  createInterface({ input: process.stdin }).on('line', (line) => {
    let command: MemberCommand;
    try {
      command = JSON.parse(line) as MemberCommand;
    } catch {
      return;
    }
    onCommand(command).catch((err: unknown) => {
      emit({ event: 'warn', instanceId, message: `${command.cmd}: ${String(err)}`, at: now() });
    });
  });
  process.stdin.on('end', () => void stop(false));
  process.stdin.on('error', () => void stop(false));
  process.on('SIGTERM', () => void stop(false));
  process.on('SIGINT', () => void stop(false));
  setTimeout(() => void stop(false), spec.lifetimeMs).unref();

  // Platformatic connects lazily: "connected" means the client exists and can be told to run.
  emit({ event: 'connected', instanceId, at: now() });
  if (spec.runAt === null) await runCommanded;
  else await sleep(Math.max(0, spec.runAt - Date.now()));
  if (stopping !== undefined) return;
  emit({ event: 'running', instanceId, at: now() });
  const stream = await consumer.consume({ topics: [spec.topic], mode: 'earliest' });
  consuming.stream = stream;
  for await (const message of stream) {
    await work(spec);
    times.push(now());
    partitions.push(message.partition);
  }
}

main().catch((err: unknown) => {
  emit({ event: 'crash', instanceId: 'unknown', message: err instanceof Error ? err.message : String(err), at: now() });
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
