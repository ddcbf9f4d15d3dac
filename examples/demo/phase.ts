import { setTimeout as sleep } from 'node:timers/promises';
import { Partitioners, type Admin, type Kafka } from 'kafkajs';
import { createTopicsWithLeaders, uniqueName } from '@load-aware/integration-tests';
import { startInstance, type InstanceHandle } from './instances.js';
import type { DemoOptions } from './options.js';
import { produceBacklog, runSteadyProducer } from './producer.js';
import type { AssignerKind, InstanceSpec } from './protocol.js';
import { emptyPhaseRecord, type PhaseRecord, type Sample } from './record.js';
import { PhaseTracker } from './tracker.js';
import type { Traffic } from './traffic.js';
import { inspectGroup, inspectLookbackSeconds } from './inspect.js';

/** How often the parent samples end offsets and builds a timeline point. */
export const SAMPLE_MS = 1000;
/** An admin request that takes longer is skipped (the next sample tries again). */
export const ADMIN_TIMEOUT_MS = 5000;

/** What the live view is shown while a phase runs. */
export interface PhaseObserver {
  /** A new sample, with what the view needs beyond it. */
  sample(sample: Sample, context: SampleContext): void;
  /** A notable event, printed as a line. */
  note(line: string): void;
}

/** Group-level state shown next to a sample. */
export interface SampleContext {
  /** Latest generation id seen (-1 before the first join). */
  generation: number;
  /** Generations each instance's members joined so far. */
  rebalances: Record<string, number>;
  triggers: number;
  moved: boolean;
}

/** The clients and settings a phase runs with. */
export interface PhaseContext {
  brokers: string[];
  kafka: Kafka;
  admin: Admin;
  options: DemoOptions;
  traffic: Traffic;
  signal: AbortSignal;
  observer: PhaseObserver;
}

/** The instances of a phase: instance-a, instance-b, ... with their member counts. */
export function instanceIds(options: { instances: readonly number[] }): Array<{ instanceId: string; members: number }> {
  return options.instances.map((members, i) => ({ instanceId: `instance-${String.fromCharCode(97 + i)}`, members }));
}

/** `promise`, or a rejection naming `what` after `ms` ms. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} took over ${String(ms)} ms`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
  });
}

/** Where a harness runs its instance processes, and what they consume. */
export interface InstanceSite {
  brokers: string[];
  /** `client` absent: KafkaJS consumers (the harnesses that only run KafkaJS pass none). */
  options: Pick<DemoOptions, 'partitions' | 'workMs' | 'cpuMs' | 'preset'> & Partial<Pick<DemoOptions, 'client'>>;
  groupId: string;
  topic: string;
}

/**
 * What one instance process is asked to run; `lifetimeMs` is its safety net (it exits by itself
 * after that long). Shared by the demo's phases, the sustainable-throughput probes and the
 * rolling restart, so they differ only in what they say they differ in.
 */
export function instanceSpec(
  assigner: AssignerKind,
  site: InstanceSite,
  instance: { instanceId: string; members: number },
  lifetimeMs: number,
  trackAllPartitions = true,
): InstanceSpec {
  const { brokers, options, groupId, topic } = site;
  return {
    ...(options.client === 'platformatic' ? { client: 'platformatic' as const } : {}),
    brokers,
    groupId,
    topic,
    partitions: options.partitions,
    instanceId: instance.instanceId,
    members: instance.members,
    assigner,
    workMs: options.workMs,
    cpuMs: options.cpuMs,
    statsIntervalMs: SAMPLE_MS,
    lifetimeMs,
    maxBytesPerPartition: 16_384,
    sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 500,
    preset: options.preset,
    trackAllPartitions,
  };
}

/** {@link instanceSpec} for every instance of the demo's layout. */
export function instanceSpecs(
  assigner: AssignerKind,
  where: InstanceSite & { options: DemoOptions },
  lifetimeMs: number,
): InstanceSpec[] {
  return instanceIds(where.options).map((instance) => instanceSpec(assigner, where, instance, lifetimeMs));
}

/**
 * Runs one phase: a fresh topic, a backlog, the instance processes with `assigner`, the steady
 * producer with the hotspot moving midway, and a sample every second until the phase ends (or
 * the signal aborts). Always stops its producer loop and instances and deletes its topic.
 */
export async function runPhase(assigner: AssignerKind, ctx: PhaseContext): Promise<PhaseRecord> {
  const { options, traffic, admin, signal, observer } = ctx;
  const topic = uniqueName('demo');
  const groupId = uniqueName(`demo-${assigner}`);
  const layout = instanceIds(options);
  // Not KafkaJS's waitForLeaders: right after the previous phase's topic was deleted, a loaded
  // broker can still answer UNKNOWN_TOPIC_OR_PARTITION for the new one, and waitForLeaders gives up.
  await createTopicsWithLeaders(admin, [{ topic, numPartitions: options.partitions, replicationFactor: 1 }], 60_000);
  const phaseMs = options.phaseSeconds * 1000;
  const abort = new AbortController();
  const onOuterAbort = (): void => {
    abort.abort();
  };
  signal.addEventListener('abort', onOuterAbort);
  const handles: InstanceHandle[] = [];
  // A producer per phase: KafkaJS keeps refreshing metadata of every topic a producer wrote to,
  // and the previous phase's topic is deleted.
  const producer = ctx.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  try {
    await producer.connect();
    const backlogMessages = await produceBacklog(producer, topic, traffic.before, options.backlogSeconds);
    observer.note(`${assigner}: topic ${topic}, backlog of ${String(backlogMessages)} messages written`);

    const t0 = Date.now();
    const endAt = t0 + phaseMs;
    const moveAt = t0 + phaseMs / 2;
    const tracker = new PhaseTracker(
      emptyPhaseRecord({
        assigner,
        topic,
        groupId,
        startedAt: new Date(t0).toISOString(),
        durationSeconds: options.phaseSeconds,
        moveAtSeconds: options.phaseSeconds / 2,
        instances: layout,
        partitions: options.partitions,
        eventsPerSecond: options.eventsPerSecond,
        backlogMessages,
        producedMessages: backlogMessages,
      }),
      t0,
      endAt,
      SAMPLE_MS,
      observer,
    );

    for (const spec of instanceSpecs(assigner, { brokers: ctx.brokers, options, groupId, topic }, phaseMs + 120_000)) {
      handles.push(
        startInstance(spec, (event) => {
          tracker.onEvent(event);
        }),
      );
    }
    let failure: Error | undefined;
    for (const h of handles) {
      h.ready.catch((err: unknown) => {
        failure ??= err instanceof Error ? err : new Error(String(err));
      });
    }

    const producing = runSteadyProducer(producer, {
      topic,
      before: traffic.before,
      after: traffic.after,
      moveAt,
      endAt,
      tickMs: 100,
      signal: abort.signal,
    });
    producing.catch(() => undefined);

    // A function, not the property: the loop condition would narrow it to false for the checker.
    const aborted = (): boolean => abort.signal.aborted;
    let moved = false;
    let next = t0 + SAMPLE_MS;
    while (!abort.signal.aborted && Date.now() < endAt) {
      await sleep(Math.max(0, next - Date.now()));
      next += SAMPLE_MS;
      // Ctrl-C reaches the instances too (one process group): their exit is then expected.
      if (aborted()) break;
      if (failure !== undefined) throw failure;
      const dead = handles.find((h) => h.exited);
      if (dead !== undefined) throw new Error(`instance ${dead.spec.instanceId} exited: ${dead.stderr().trim()}`);
      const now = Date.now();
      if (!moved && now >= moveAt) {
        moved = true;
        const hottest = traffic.after.indexOf(Math.max(...traffic.after));
        observer.note(`${assigner}: hotspot moved, partition ${String(hottest)} is now the hottest`);
      }
      let ends: Array<{ partition: number; offset: string }>;
      try {
        ends = await withTimeout(admin.fetchTopicOffsets(topic), ADMIN_TIMEOUT_MS, 'fetchTopicOffsets');
      } catch {
        continue;
      }
      tracker.sample(now, ends, now < moveAt ? traffic.before : traffic.after, moved);
    }
    // The producer stops by itself at endAt; aborting it here could drop its last tick.
    const record = tracker.finish(await producing);
    if (!aborted()) {
      observer.note(`${assigner}: load-aware inspect at the end of the phase`);
      const { text, view } = await inspectGroup(ctx.brokers, groupId, inspectLookbackSeconds(phaseMs / 1000));
      for (const line of text.split('\n')) observer.note(line);
      if (view !== undefined) {
        record.cli = view;
        observer.note(
          `${assigner}: load-aware plan: busiest ÷ ideal ${view.ratio.toFixed(2)} → ${view.proposedRatio.toFixed(2)} with ${String(view.moves)} moves`,
        );
      }
    }
    return record;
  } finally {
    abort.abort();
    signal.removeEventListener('abort', onOuterAbort);
    await Promise.all(handles.map((h) => h.stop()));
    await producer.disconnect().catch(() => undefined);
    await admin.deleteTopics({ topics: [topic], timeout: 10_000 }).catch(() => undefined);
  }
}
