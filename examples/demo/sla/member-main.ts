/**
 * Some members of the latency-SLA benchmark's group, run as one process by the parent
 * (phase.ts): each member is its own KafkaJS consumer and, under load-aware, its own instance of
 * capacity 1, so the assignor balances members, as the paper's consumers are. Every message
 * costs a paced `workMs` (pacer.ts), and its latency from the produce timestamp (the record's
 * CreateTime) is tallied by produce second (latency.ts) and printed as JSON lines (protocol.ts).
 * Messages produced before the parent's start line (protocol.ts) are passed over at no cost, so
 * every phase starts from an empty queue once its group has formed. Stops when its stdin closes,
 * on SIGINT/SIGTERM, or after `lifetimeMs`.
 *
 * argv[2] is a JSON SlaProcessSpec.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Kafka,
  logLevel,
  PartitionAssigners,
  type Consumer,
  type EachMessageHandler,
  type PartitionAssigner,
} from 'kafkajs';
import { Registry } from 'prom-client';
import {
  deriveMemberCapacity,
  LoadAwareAssigner,
  sizeGroup,
  utilizationForLatency,
  type Logger,
  type WeightedPartition,
} from '@load-aware/assignor';
import { createBusyTimeRecorder, type BusyTimeRecorder } from '@load-aware/busy-time';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import { runInstance } from '../instance-process.js';
import { pinnedAssigner } from '../pinned-assigner.js';
import { LatencyRecorder } from './latency.js';
import { Pacer } from './pacer.js';
import type { SlaCommand, SlaEvent, SlaProcessSpec } from './protocol.js';

/** Longest wait past a full rate window for every partition's first rate before the consumers join. */
const WARM_UP_LIMIT_MS = 5000;

/** How often the first process reports what sizing answers for its measured rates. */
const SIZING_INTERVAL_MS = 2000;

/**
 * What the trigger's `sizing: { latencySla, measured }` answers for `measured` rates: the member
 * capacity derived from this process's busy time, and the target its SLA allows at the work a
 * message cost. Undefined until a message has been measured.
 */
function sizedFromBusyTime(
  measured: ReadonlyArray<WeightedPartition>,
  busy: BusyTimeRecorder,
  slaSeconds: number,
): Extract<SlaEvent, { event: 'sizing' }>['fromBusyTime'] {
  const { busySeconds, messages } = busy.totals();
  const capacity = deriveMemberCapacity({ weights: 'events', measured: { busySeconds, messages } });
  if (!capacity.ok || capacity.secondsPerMessage === undefined) return undefined;
  const target = utilizationForLatency({ slaSeconds, secondsPerMessage: capacity.secondsPerMessage });
  if (!target.ok) return undefined;
  const { desiredMembers } = sizeGroup({
    partitions: measured,
    memberCapacity: capacity.memberCapacity,
    targetUtilization: target.utilization,
  });
  return {
    desiredMembers,
    memberCapacity: capacity.memberCapacity,
    targetUtilization: target.utilization,
    secondsPerMessage: capacity.secondsPerMessage,
  };
}

function emit(event: SlaEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/** The trigger's fires and every warning become events; the rest is dropped. */
function eventLogger(): Logger {
  const ignore = (): void => undefined;
  const warn = (_fields: Record<string, unknown>, message = ''): void => {
    emit({ event: 'warn', message, at: Date.now() });
  };
  return {
    debug: ignore,
    info: (_fields, message = '') => {
      if (message.startsWith('rebalance initiated')) emit({ event: 'trigger', message, at: Date.now() });
    },
    warn,
    error: warn,
  };
}

interface Member {
  consumer: Consumer;
  trigger: TriggerController | undefined;
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as SlaProcessSpec;
  const logger = eventLogger();
  const kafka = new Kafka({ clientId: `sla-${spec.assigner}`, brokers: spec.brokers, logLevel: logLevel.NOTHING });
  const registry = new Registry();
  const all = Array.from({ length: spec.partitions }, (_, partition) => ({ topic: spec.topic, partition }));
  let weights: OffsetRateWeightSource | undefined;
  if (spec.assigner === 'load-aware') {
    weights = createOffsetRateWeightSource({
      kafka,
      rateIntervalMs: spec.preset.rateIntervalMs,
      sampleIntervalMs: spec.preset.sampleIntervalMs,
      logger,
      registry,
    }).start();
    // Every partition from the start (the producer runs before the members start), for a whole
    // rate window before joining: the first assignment then weighs rates over as long a window
    // as a group that has run for a while. A rate over the first second or two is off by however
    // late the sampler's timers ran, up to 15% on a loaded machine. Bounded either way.
    weights.track(all);
    const windowUntil = Date.now() + spec.preset.rateIntervalMs + spec.preset.sampleIntervalMs;
    const warmUntil = windowUntil + WARM_UP_LIMIT_MS;
    while (Date.now() < warmUntil) {
      if (Date.now() >= windowUntil && (await weights.getWeights(all)).length === all.length) break;
      await sleep(200);
    }
  }
  const recorder = new LatencyRecorder(spec.slaMs);
  // Until the parent names the start, every message is passed over.
  let startAt = Number.POSITIVE_INFINITY;
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const stats = (): void => {
    // The histogram is in nanoseconds; it reads 0 until it has a sample.
    emit({ event: 'stats', tallies: recorder.drain(), loopDelayP99Ms: loopDelay.percentile(99) / 1e6, at: Date.now() });
    loopDelay.reset();
  };
  const statsTimer = setInterval(stats, spec.statsIntervalMs);
  const source = weights;
  // The handler's busy time, for the capacity and SLA target a trigger would derive from it.
  const busy = weights === undefined ? undefined : createBusyTimeRecorder({ registry });
  const sizingTimer =
    source === undefined || spec.members[0] !== 0
      ? undefined
      : setInterval(() => {
          void source.getWeights(all).then((measured) => {
            if (measured.length < all.length) return;
            const { desiredMembers } = sizeGroup({ partitions: measured, memberCapacity: spec.memberRate });
            const fromBusyTime = busy === undefined ? undefined : sizedFromBusyTime(measured, busy, spec.slaMs / 1000);
            emit({ event: 'sizing', desiredMembers, fromBusyTime, at: Date.now() });
          });
        }, SIZING_INTERVAL_MS);

  const members: Member[] = [];
  const startMember = async (member: number): Promise<void> => {
    // Member numbers are zero-padded into the client id so member ids sort by member number.
    const instanceId = `m${String(member).padStart(3, '0')}`;
    const loadAware =
      weights === undefined ? undefined : LoadAwareAssigner({ instanceId, capacity: 1, weights, logger, registry });
    let assigners: PartitionAssigner[];
    if (loadAware !== undefined) assigners = [loadAware];
    else if (spec.assigner === 'sticky') {
      if (spec.pinnedPlan === undefined) throw new Error('the sticky assigner needs a pinnedPlan');
      assigners = [pinnedAssigner(spec.topic, spec.pinnedPlan)];
    } else assigners = [PartitionAssigners.roundRobin];
    const consumer = new Kafka({
      clientId: `sla-${instanceId}`,
      brokers: spec.brokers,
      logLevel: logLevel.NOTHING,
    }).consumer({
      groupId: spec.groupId,
      partitionAssigners: assigners,
      // The demo's tuning: a rebalance costs the group well under a second (bench:rebalance).
      sessionTimeout: 10_000,
      rebalanceTimeout: 10_000,
      heartbeatInterval: 500,
      maxWaitTimeInMs: 250,
      // Short batches: a member never sits on a long batch of one partition while others wait.
      maxBytesPerPartition: 32 * 1024,
      maxBytes: 256 * 1024,
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const partitions = [...(payload.memberAssignment[spec.topic] ?? [])].sort((a, b) => a - b);
      emit({ event: 'joined', member, partitions, at: Date.now() });
    });
    const trigger =
      loadAware !== undefined && spec.trigger
        ? createTriggerController(
            { target: loadAware.triggerTarget(consumer) },
            {
              checkIntervalMs: spec.preset.checkIntervalMs,
              trigger: {
                threshold: spec.preset.threshold,
                minViolatedChecks: spec.preset.minViolatedChecks,
                cooldownMs: spec.preset.cooldownMs,
                maxCooldownMs: spec.preset.maxCooldownMs,
              },
              logger,
              registry,
            },
          )
        : undefined;
    members.push({ consumer, trigger });
    const pacer = new Pacer(spec.workMs);
    await consumer.connect();
    // From the latest offset: the producer started before the group, and the parent measures
    // only what is produced once the group has formed.
    await consumer.subscribe({ topic: spec.topic, fromBeginning: false });
    const work: EachMessageHandler = async ({ message }) => {
      const wait = pacer.start(performance.now());
      // Under a millisecond is left to the next message's schedule: Node's timers round up to 1 ms.
      if (wait >= 1) await sleep(wait);
      pacer.finished(performance.now());
      recorder.record(Number(message.timestamp), Date.now());
    };
    // Only the work is timed: messages passed over before the start cost nothing, and would
    // make a message look cheaper than it is.
    const measuredWork = busy === undefined ? work : busy.eachMessage(work);
    await consumer.run({
      eachMessage: async (payload) => {
        if (Number(payload.message.timestamp) < startAt) return;
        await measuredWork(payload);
      },
    });
  };

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    clearInterval(statsTimer);
    if (sizingTimer !== undefined) clearInterval(sizingTimer);
    await Promise.allSettled(members.flatMap((m) => (m.trigger === undefined ? [] : [m.trigger.stop()])));
    await Promise.allSettled(members.map((m) => m.consumer.disconnect()));
    // What was processed while disconnecting, or the parent would count it as unprocessed.
    stats();
    await weights?.stop();
    process.exit(0);
  };
  setTimeout(() => void stop(), spec.lifetimeMs).unref();
  // The lifeline: lines are commands; its end (the parent closed it or died) stops the process.
  const lifeline = createInterface({ input: process.stdin });
  lifeline.on('line', (line) => {
    try {
      const command = JSON.parse(line) as SlaCommand;
      startAt = command.startAt;
    } catch {
      // Not a command: ignored.
    }
  });
  lifeline.on('close', () => void stop());
  process.stdin.on('error', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());

  await Promise.all(spec.members.map((member) => startMember(member)));
  emit({ event: 'ready', at: Date.now() });
}

runInstance(main);
