/**
 * One assigner's run of the rolling-restart benchmark (`pnpm bench:rolling`), on the demo's
 * harness: a fresh topic with the demo's skewed traffic, the instance processes of
 * instance-main.ts, the parent's PhaseTracker fed by their JSON lines and by end offsets read
 * every second. After a warm-up it restarts every instance in turn, as a rolling deploy does:
 * graceful stop (dynamic members: disconnect, LeaveGroup; static members: SIGTERM, disconnect
 * without LeaveGroup), a pod restart delay, a new process with the same instance id, then a
 * bounded wait until the group is Stable and settled. Then the producer stops and the group
 * drains (bounded), so lost and duplicate messages are counted over everything produced. Every
 * wait has a deadline; the instances, the producer and the topic are always cleaned up.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Partitioners, type Admin, type Kafka } from 'kafkajs';
import { uniqueName } from '@load-aware/integration-tests';
import { startInstance, type InstanceHandle } from './instances.js';
import { instanceIds, instanceSpec, SAMPLE_MS, withTimeout, type PhaseObserver } from './phase.js';
import { runSteadyProducer } from './producer.js';
import type { AssignerKind, InstanceEvent } from './protocol.js';
import { settleQuietMs, type RollingOptions } from './rolling-options.js';
import { isSettled, PAUSE_THRESHOLD_MS, sampleRatio, type RollingRun, type StepRecord } from './rolling-analysis.js';
import { ProcessingCollector } from './rolling-processing.js';
import { emptyPhaseRecord, type PhaseRecord } from './record.js';
import { PhaseTracker } from './tracker.js';

/** Measured per-partition rates are the end offsets' growth over this many samples. */
const RATE_WINDOW_SAMPLES = 5;
/** An admin request that takes longer is skipped (the next poll tries again). */
const ADMIN_TIMEOUT_MS = 5000;
/** Longest wait for a new topic's partitions to have leaders. */
const TOPIC_READY_LIMIT_MS = 30_000;
/** Shortest warm-up: several rate windows of the weight source, whatever the group does. */
const WARM_UP_MIN_MS = 30_000;
/** Longest warm-up before the restarts start anyway (reported as not settled). */
const WARM_UP_LIMIT_MS = 150_000;
/** Longest wait for a new process's members to run. */
const READY_LIMIT_MS = 60_000;
/** Longest wait, after the new process is ready, for the group to settle. */
const SETTLE_LIMIT_MS = 90_000;
/** A stopping process gets this long to disconnect before SIGKILL. */
const STOP_GRACE_MS = 20_000;
/** Safety net: no instance process or producer outlives this. */
const PHASE_LIMIT_MS = 20 * 60_000;
/** JoinGroup's rebalance timeout, the same for dynamic and static members (what the demo always used). */
const REBALANCE_TIMEOUT_MS = 10_000;
/** Longest wait, once the producer stopped, for every produced message to be processed. */
const DRAIN_LIMIT_MS = 60_000;

/** The clients and settings a run uses. */
export interface RollingContext {
  brokers: string[];
  kafka: Kafka;
  admin: Admin;
  options: RollingOptions;
  /** Produce rate of each partition (events/s). */
  rates: readonly number[];
  signal: AbortSignal;
  log: (line: string) => void;
  /** Called once every first process is ready (the group formed); its failure is only logged. */
  onGroupFormed?: () => Promise<void>;
}

/** Thrown when the run was aborted (Ctrl-C); everything it started is stopped first. */
export class RollingInterruptedError extends Error {
  override readonly name = 'RollingInterruptedError';
}

/**
 * Creates the topic and waits (bounded) until every partition answers ListOffsets. Not
 * `waitForLeaders`: on a loaded machine the broker's metadata can lag the creation, and KafkaJS
 * gives up at the first UNKNOWN_TOPIC_OR_PARTITION.
 */
async function createTopic(admin: Admin, topic: string, partitions: number): Promise<void> {
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }] });
  const deadline = Date.now() + TOPIC_READY_LIMIT_MS;
  for (;;) {
    try {
      const offsets = await withTimeout(admin.fetchTopicOffsets(topic), ADMIN_TIMEOUT_MS, 'fetchTopicOffsets');
      if (offsets.length === partitions) return;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
    }
    if (Date.now() >= deadline) throw new Error(`topic ${topic}: partitions without a leader after 30 s`);
    await sleep(500);
  }
}

/** Progress lines: events as they happen, and a status line every 10 s. */
function progress(record: PhaseRecord, log: (line: string) => void): PhaseObserver {
  let lastStatus = -Infinity;
  return {
    note: log,
    sample(sample, context) {
      if (sample.t - lastStatus < 10) return;
      lastStatus = sample.t;
      const ratio = sampleRatio(record, sample);
      log(
        `  ${record.assigner} t=${sample.t.toFixed(0)}s generation ${String(context.generation)} ` +
          `busiest/ideal ${ratio === undefined ? '-' : ratio.toFixed(2)} lag ${String(Math.round(sample.totalLag))} ` +
          `trigger fires ${String(context.triggers)}`,
      );
    },
  };
}

/**
 * Runs one assigner: warm-up, then one restart step per instance in order (a, b, c, ...), so the
 * leader's instance is always among them. Resolves with everything recorded.
 */
export async function runRolling(assigner: AssignerKind, ctx: RollingContext): Promise<RollingRun> {
  const { options, admin, signal, log } = ctx;
  const topic = uniqueName('rolling');
  const groupId = uniqueName(`rolling-${assigner}`);
  const layout = instanceIds(options);
  const totalMembers = options.instances.reduce((a, b) => a + b, 0);
  const quietMs = settleQuietMs(options.preset);
  await createTopic(admin, topic, options.partitions);
  const abort = new AbortController();
  const onOuterAbort = (): void => {
    abort.abort();
  };
  signal.addEventListener('abort', onOuterAbort);
  const aborted = (): boolean => abort.signal.aborted;
  const handles = new Map<string, InstanceHandle>();
  const stopping = new Set<InstanceHandle>();
  const producer = ctx.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  // Its own switch: the producer stops before the drain, the sampling after it.
  const producerAbort = new AbortController();
  abort.signal.addEventListener('abort', () => {
    producerAbort.abort();
  });
  const isStatic = options.membership === 'static';
  let sampling: Promise<void> = Promise.resolve();
  try {
    await producer.connect();
    const t0 = Date.now();
    const since = (at: number): number => Math.round((at - t0) / 100) / 10;
    const record = emptyPhaseRecord({
      assigner,
      topic,
      groupId,
      startedAt: new Date(t0).toISOString(),
      durationSeconds: 0,
      // Unused: the traffic does not move in this benchmark.
      moveAtSeconds: 0,
      instances: layout,
      partitions: options.partitions,
      eventsPerSecond: options.eventsPerSecond,
    });
    const tracker = new PhaseTracker(record, t0, Infinity, SAMPLE_MS, progress(record, log));
    const processing = new ProcessingCollector(PAUSE_THRESHOLD_MS, since);
    let lastActivityAt = t0;
    const onEvent = (event: InstanceEvent, process: number): void => {
      if (event.event === 'generation' || event.event === 'trigger') {
        lastActivityAt = Math.max(lastActivityAt, event.at);
      }
      if (event.event === 'ready') processing.ready(event.instanceId, process, event.at);
      if (event.event === 'stats' && event.processing !== undefined) {
        processing.report(event.instanceId, process, event.at, event.processing);
      }
      if (event.event === 'assignment' && event.defaulted !== undefined) {
        log(
          `${assigner}: ${event.instanceId} leads: assignment with ${String(event.defaulted)} of ` +
            `${String(options.partitions)} weights defaulted`,
        );
      }
      tracker.onEvent(event);
    };

    /** Processes started per instance: the next one's number. */
    const started = new Map<string, number>();
    const start = (instanceId: string, members: number): { handle: InstanceHandle; process: number } => {
      const spec = {
        ...instanceSpec(
          assigner,
          { brokers: ctx.brokers, options, groupId, topic },
          { instanceId, members },
          PHASE_LIMIT_MS + 60_000,
          options.trackAllPartitions,
        ),
        sessionTimeoutMs: options.sessionTimeoutSeconds * 1000,
        rebalanceTimeoutMs: REBALANCE_TIMEOUT_MS,
        pauseThresholdMs: PAUSE_THRESHOLD_MS,
        // Same instance id in every process of a pod: the group instance ids are derived from it.
        ...(isStatic ? { staticMembership: true } : {}),
      };
      const process = started.get(instanceId) ?? 0;
      started.set(instanceId, process + 1);
      const handle = startInstance(spec, (event) => {
        onEvent(event, process);
      });
      handles.set(instanceId, handle);
      return { handle, process };
    };
    const checkInstances = (): void => {
      for (const h of handles.values()) {
        if (h.exited && !stopping.has(h)) {
          throw new Error(`instance ${h.spec.instanceId} exited: ${h.stderr().trim()}`);
        }
      }
    };
    const awaitReady = async (h: InstanceHandle): Promise<boolean> => {
      const deadline = Date.now() + READY_LIMIT_MS;
      // An object, not a local: the loop condition would narrow a local to false for the checker.
      const state = { ready: false };
      h.ready.then(
        () => {
          state.ready = true;
        },
        () => undefined,
      );
      while (!state.ready && Date.now() < deadline && !aborted()) {
        checkInstances();
        await sleep(200);
      }
      return state.ready;
    };

    const producing = runSteadyProducer(producer, {
      topic,
      before: ctx.rates,
      after: ctx.rates,
      moveAt: Infinity,
      endAt: t0 + PHASE_LIMIT_MS,
      tickMs: 100,
      signal: producerAbort.signal,
    });
    producing.catch(() => undefined);

    // Samples: end offsets every second; per-partition rates measured over the last 5 s.
    sampling = (async () => {
      const history: Array<{ at: number; ends: number[] }> = [];
      let next = Date.now() + SAMPLE_MS;
      while (!aborted()) {
        await sleep(Math.max(0, next - Date.now()));
        next += SAMPLE_MS;
        if (aborted()) break;
        let ends: Array<{ partition: number; offset: string }>;
        try {
          ends = await withTimeout(admin.fetchTopicOffsets(topic), ADMIN_TIMEOUT_MS, 'fetchTopicOffsets');
        } catch {
          continue;
        }
        const now = Date.now();
        const current = new Array<number>(options.partitions).fill(0);
        for (const { partition, offset } of ends) current[partition] = Number(offset);
        history.push({ at: now, ends: current });
        if (history.length > RATE_WINDOW_SAMPLES + 1) history.shift();
        const first = history[0]!;
        const span = (now - first.at) / 1000;
        const rates = span > 0 ? current.map((end, p) => (end - first.ends[p]!) / span) : [...ctx.rates];
        tracker.sample(now, ends, rates, false);
      }
    })();
    sampling.catch(() => undefined);

    const waitSettled = async (deadline: number, minUntil = 0): Promise<boolean> => {
      while (Date.now() < deadline && !aborted()) {
        await sleep(1000);
        checkInstances();
        if (Date.now() < minUntil) continue;
        let group: { state: string; members: unknown[] } | undefined;
        try {
          const described = await withTimeout(admin.describeGroups([groupId]), ADMIN_TIMEOUT_MS, 'describeGroups');
          group = described.groups[0];
        } catch {
          continue;
        }
        if (group === undefined) continue;
        const settled = isSettled({
          groupState: group.state,
          groupMembers: group.members.length,
          totalMembers,
          partitions: options.partitions,
          latest: tracker.generationsSoFar().at(-1),
          lastActivityAt,
          now: Date.now(),
          quietMs,
        });
        if (settled) return true;
      }
      return false;
    };
    const ratioNow = (): string => {
      const last = record.samples.at(-1);
      const ratio = last === undefined ? undefined : sampleRatio(record, last);
      return ratio === undefined ? '-' : ratio.toFixed(2);
    };

    log(`${assigner}: topic ${topic}, group ${groupId}; starting ${layout.map((l) => l.instanceId).join(', ')}`);
    for (const { instanceId, members } of layout) start(instanceId, members);
    for (const h of handles.values()) {
      if (!(await awaitReady(h))) {
        if (aborted()) break;
        throw new Error(`instance ${h.spec.instanceId} not ready within ${String(READY_LIMIT_MS / 1000)} s`);
      }
    }
    await ctx.onGroupFormed?.().catch((err: unknown) => {
      log(`${assigner}: ${err instanceof Error ? err.message : String(err)}`);
    });
    const warmSettled = await waitSettled(t0 + WARM_UP_LIMIT_MS, t0 + WARM_UP_MIN_MS);
    if (aborted()) throw new RollingInterruptedError('interrupted');
    const warmedAt = since(Date.now());
    log(
      `${assigner}: warm-up ${warmSettled ? 'settled' : 'NOT settled (time limit)'} at ${warmedAt.toFixed(0)} s, ` +
        `busiest/ideal ${ratioNow()}`,
    );

    const steps: StepRecord[] = [];
    for (const [index, { instanceId, members }] of layout.entries()) {
      const stopAt = Date.now();
      lastActivityAt = Math.max(lastActivityAt, stopAt);
      log(
        `${assigner}: step ${String(index + 1)}: stopping ${instanceId} ` +
          (isStatic ? '(deploy restart: SIGTERM, disconnect, no LeaveGroup)' : '(graceful: disconnect, LeaveGroup)'),
      );
      const old = handles.get(instanceId)!;
      stopping.add(old);
      // Its members are leaving: from now on it holds nothing and is out of the ideal.
      tracker.setRunning(instanceId, false, stopAt);
      await old.stop(STOP_GRACE_MS, isStatic ? 'SIGTERM' : 'stdin');
      const stoppedAt = Date.now();
      await sleep(options.restartDelaySeconds * 1000, undefined, { signal: abort.signal }).catch(() => undefined);
      if (aborted()) break;
      const startAt = Date.now();
      lastActivityAt = Math.max(lastActivityAt, startAt);
      log(`${assigner}: step ${String(index + 1)}: starting a new ${instanceId} process`);
      const { handle: fresh, process } = start(instanceId, members);
      const ready = await awaitReady(fresh);
      const readyAt = ready ? Date.now() : null;
      // It counts towards the ideal once its members are in the group (ready means joined).
      tracker.setRunning(instanceId, true, readyAt ?? Date.now());
      lastActivityAt = Math.max(lastActivityAt, readyAt ?? startAt);
      const settled = await waitSettled((readyAt ?? startAt) + SETTLE_LIMIT_MS);
      if (aborted()) break;
      const settledAt = Date.now();
      steps.push({
        index: index + 1,
        instanceId,
        stopAt: since(stopAt),
        stoppedAt: since(stoppedAt),
        startAt: since(startAt),
        readyAt: readyAt === null ? null : since(readyAt),
        settledAt: since(settledAt),
        settled,
        process,
      });
      log(
        `${assigner}: step ${String(index + 1)} ${settled ? 'settled' : 'NOT settled (time limit)'} after ` +
          `${((settledAt - stopAt) / 1000).toFixed(0)} s, busiest/ideal ${ratioNow()}`,
      );
    }
    if (aborted()) throw new RollingInterruptedError('interrupted');
    // The drain: no more messages, so whatever was produced gets processed (or counts as lost).
    producerAbort.abort();
    const steadyMessages = await producing;
    const drainFrom = Date.now();
    let ends: Array<{ partition: number; offset: string }> = [];
    let drained = false;
    while (!drained && Date.now() - drainFrom < DRAIN_LIMIT_MS && !aborted()) {
      checkInstances();
      try {
        ends = await withTimeout(admin.fetchTopicOffsets(topic), ADMIN_TIMEOUT_MS, 'fetchTopicOffsets');
        drained = ends.length === options.partitions && processing.unprocessed(ends) === 0;
      } catch {
        // Asked again next time round.
      }
      if (!drained) await sleep(1000);
    }
    if (aborted()) throw new RollingInterruptedError('interrupted');
    const drainSeconds = (Date.now() - drainFrom) / 1000;
    log(
      `${assigner}: producer stopped; ${drained ? 'drained' : 'NOT drained (time limit)'} after ` +
        `${drainSeconds.toFixed(0)} s, ${String(processing.unprocessed(ends))} unprocessed`,
    );
    abort.abort();
    await sampling;
    record.durationSeconds = since(Date.now());
    return {
      record: tracker.finish(steadyMessages),
      warmedAt,
      warmSettled,
      steps,
      membership: options.membership,
      processing: processing.finish({ ends, drained, drainSeconds }),
      rates: [...ctx.rates],
    };
  } finally {
    abort.abort();
    signal.removeEventListener('abort', onOuterAbort);
    await sampling.catch(() => undefined);
    for (const h of handles.values()) stopping.add(h);
    await Promise.all([...handles.values()].map((h) => h.stop(STOP_GRACE_MS)));
    await producer.disconnect().catch(() => undefined);
    await admin.deleteTopics({ topics: [topic], timeout: 10_000 }).catch(() => undefined);
  }
}
