/**
 * One run of the rebalance benchmark: a fresh topic and group, steady traffic, members a, b, c
 * (and d for a leave) in their own processes started `staggerMs` apart, a bounded wait until
 * the group has settled, a random part of a heartbeat interval, the cause, and a bounded window
 * until every member has processed steadily again. Every wait has a deadline; the members, the
 * producer and the topic are always cleaned up (and a stopped broker restarted).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin, Kafka } from 'kafkajs';
import { uniqueName, type KafkaCluster } from '@load-aware/integration-tests';
import { analyzeWindow, gapsAround, heartbeatPhases, processingSteadily, rebalanceCount } from './analysis.js';
import { startMember, type MemberHandle } from './member.js';
import { MEASURED, type Cause, type RebalanceOptions, type RunPlan } from './options.js';
import { startSteadyProducer, type SteadyProducer } from './producer.js';
import type { MemberSpec } from './protocol.js';
import { pauseObservationsBetween } from './member-metrics.js';
import { RunRecorder, timeline } from './recorder.js';
import type { RunResult } from './result.js';
import { coordinatorNode, createTopic, partitionLeaders, replicasAvoidingLeader } from './topics.js';
import { tuningOf } from './tuning.js';

/** From spawning the processes to the first `consumer.run()`: room for Node and KafkaJS to load. */
const START_LEAD_MS = 3000;
/** Longest wait, after the last start, for the group to settle. */
const SETTLE_LIMIT_MS = 90_000;
/** Longest wait for a member to act on a command (run, fire, leave). */
const ACT_LIMIT_MS = 20_000;
/** Longest window after the cause, by cause (metadata: on top of its own wait). */
const WINDOW_LIMIT_MS: Record<Cause, number> = {
  join: 60_000,
  leave: 60_000,
  fire: 60_000,
  coordinator: 120_000,
  metadata: 60_000,
};
/** Longest wait for the members' pause-histogram readings. */
const REPORT_LIMIT_MS = 5000;
/** How often the waits look at what the members reported. */
const POLL_MS = 100;

/** What a run needs from the benchmark. */
export interface ScenarioContext {
  /** The parent's client (admin, producer) on the cluster. */
  kafka: Kafka;
  admin: Admin;
  cluster: KafkaCluster;
  options: RebalanceOptions;
  signal: AbortSignal;
  log: (line: string) => void;
}

/** Thrown when the benchmark was interrupted (Ctrl-C); the run's processes are stopped first. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
}

/** Polls `done` every 100 ms until it holds (true) or `deadline` passes (false). */
async function until(done: () => boolean, deadline: number, signal: AbortSignal): Promise<boolean> {
  while (!done()) {
    if (signal.aborted) throw new InterruptedError('interrupted');
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

/** Runs one plan; resolves with what it measured. */
export async function runScenario(plan: RunPlan, ctx: ScenarioContext): Promise<RunResult> {
  const { options: o, admin, cluster, signal } = ctx;
  const tuning = tuningOf(plan.tuning);
  const topic = uniqueName(`rebalance-${plan.cause}`);
  const groupId = uniqueName(`rebalance-${plan.cause}-${plan.assigner}`);
  const recorder = new RunRecorder(o.partitions);
  const members = new Map<string, MemberHandle>();
  let producer: SteadyProducer | undefined;
  let stoppedNode: number | undefined;
  const nodeIds = cluster.nodes.map((n) => n.nodeId);

  const spec = (instanceId: string, runAt: number | null): MemberSpec => ({
    brokers: cluster.brokers,
    groupId,
    topic,
    instanceId,
    assigner: plan.assigner,
    tuning: { ...tuning },
    runAt,
    workMs: o.workMs,
    workMode: o.workMode,
    fireMode: o.fireMode,
    trigger: o.trigger,
    triggerCheckIntervalMs: o.triggerCheckIntervalMs,
    flushIntervalMs: 100,
    lifetimeMs: 15 * 60_000,
  });
  const start = (instanceId: string, runAt: number | null): MemberHandle => {
    const handle = startMember(spec(instanceId, runAt), (e) => {
      recorder.onEvent(e);
    });
    members.set(instanceId, handle);
    return handle;
  };
  const exitedEarly = (ids: readonly string[]): void => {
    for (const id of ids) {
      const h = members.get(id);
      if (h?.exited === true) throw new Error(`member ${id} exited: ${h.stderr().trim()}`);
    }
  };

  try {
    // The coordinator cause keeps the topic's leaders off the broker it will stop.
    let coordinatorBefore: number | undefined;
    if (plan.cause === 'coordinator') {
      coordinatorBefore = await coordinatorNode(admin, groupId);
      await createTopic(admin, topic, o.partitions, replicasAvoidingLeader(nodeIds, coordinatorBefore, o.partitions));
    } else {
      await createTopic(admin, topic, o.partitions);
    }
    producer = await startSteadyProducer(ctx.kafka, {
      topic,
      partitions: o.partitions,
      eventsPerSecondPerPartition: o.eventsPerSecond / o.partitions,
      tickMs: o.produceTickMs,
    });

    // a, b, c run `staggerMs` apart, so their heartbeats start out of phase. KafkaJS times a
    // member's heartbeats from its `run()`, and a rebalance it notices by heartbeat re-times
    // them from the sync, so members that noticed one together stay in phase. With KafkaJS's
    // defaults a, b and c form the group in one rebalance (a's first heartbeat comes after c's
    // start) and keep their staggered phases. A d that will leave starts between a and b, inside
    // that same rebalance, so a, b and c keep the same phases as in the other causes. A d that
    // will join is started now but runs only on cue.
    const initial: string[] = plan.cause === 'leave' ? [...MEASURED, 'd'] : [...MEASURED];
    const t0 = Date.now() + START_LEAD_MS;
    MEASURED.forEach((id, i) => start(id, t0 + i * o.staggerMs));
    if (plan.cause === 'leave') start('d', t0 + o.staggerMs / 2);
    if (plan.cause === 'join') start('d', null);

    // Settled: everyone joined and holds its share, heartbeats carry one generation, nothing has
    // happened for two heartbeat intervals, and everyone has processed steadily for the baseline.
    // A pending rebalance is noticed at the next heartbeat: one interval of calm (plus slack) shows none is.
    const quietMs = tuning.heartbeatInterval + 1000;
    const settled = await until(
      () => {
        exitedEarly([...members.keys()]);
        const now = Date.now();
        if (now - recorder.lastGroupActivityAt() < quietMs) return false;
        const joins = recorder.latestJoins(initial);
        if (joins.size < initial.length) return false;
        const held = [...joins.values()].flatMap((j) => j.partitions);
        if (held.length !== o.partitions || new Set(held).size !== o.partitions) return false;
        for (const j of joins.values()) {
          if ((recorder.lastHeartbeatAt(j.instanceId) ?? -Infinity) < j.at) return false;
        }
        return processingSteadily(recorder.series(initial), now, o.baselineMs, o.thresholdMs);
      },
      t0 + initial.length * o.staggerMs + SETTLE_LIMIT_MS,
      signal,
    );
    if (!settled) recorder.notes.push('the group had not settled within the limit; the cause came anyway');
    const settledAt = Date.now();

    // The cause lands at a random point of the heartbeat cycle, as it does in production.
    await sleep(Math.random() * tuning.heartbeatInterval, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) throw new InterruptedError('interrupted');
    const reportedSince = Date.now();
    for (const id of MEASURED) members.get(id)?.send({ cmd: 'report' });
    await until(
      () => MEASURED.every((id) => recorder.pauseMetric(id, reportedSince) !== undefined),
      Date.now() + REPORT_LIMIT_MS,
      signal,
    );
    const metricBefore = new Map(MEASURED.map((id) => [id, recorder.pauseMetric(id, reportedSince)]));

    // The cause, and the moment it happened.
    let causeAt: number;
    const actOn = async (event: string, id: string): Promise<number> => {
      await until(() => recorder.mark(event, id) !== undefined, Date.now() + ACT_LIMIT_MS, signal);
      const at = recorder.mark(event, id);
      if (at === undefined) throw new Error(`member ${id}: no ${event} within ${String(ACT_LIMIT_MS / 1000)} s`);
      return at;
    };
    let stopping: Promise<void> | undefined;
    // The coordinator cause: a window cannot close before the stopped broker's JVM is gone.
    const node = { stopped: true };
    let leadersOnStoppedNode = 0;
    switch (plan.cause) {
      case 'join':
        members.get('d')!.send({ cmd: 'run' });
        causeAt = await actOn('running', 'd');
        break;
      case 'leave':
        members.get('d')!.send({ cmd: 'leave' });
        causeAt = await actOn('leaving', 'd');
        break;
      case 'fire':
        members.get('a')!.send({ cmd: 'fire', mode: o.fireMode });
        causeAt = await actOn('fired', 'a');
        break;
      case 'coordinator': {
        stoppedNode = await coordinatorNode(admin, groupId);
        if (stoppedNode !== coordinatorBefore) {
          recorder.notes.push(`the coordinator moved from ${String(coordinatorBefore)} before the cause`);
        }
        const leaders = await partitionLeaders(admin, topic);
        leadersOnStoppedNode = [...(leaders?.values() ?? [])].filter((l) => l === stoppedNode).length;
        causeAt = Date.now();
        node.stopped = false;
        stopping = cluster.stopNode(stoppedNode).finally(() => {
          node.stopped = true;
        });
        break;
      }
      case 'metadata':
        causeAt = Date.now();
        await admin.createPartitions({ topicPartitions: [{ topic, count: o.partitions + o.addedPartitions }] });
        // A producer that looked before the broker lists them would not see them for metadataMaxAge.
        await waitForPartitions(admin, topic, o.partitions + o.addedPartitions, signal);
        await producer.grow(o.partitions + o.addedPartitions);
        break;
    }

    // The window: until every present member has processed steadily for the recovery time after
    // the last join or rebalance notice, with its generation known; bounded.
    const present: string[] = plan.cause === 'join' ? [...MEASURED, 'd'] : [...MEASURED];
    const minObserveMs = tuning.heartbeatInterval + o.recoveryMs;
    const limitMs = WINDOW_LIMIT_MS[plan.cause] + (plan.cause === 'metadata' ? o.metadataWaitMs : 0);
    let endAt = causeAt;
    const recovered = await until(
      () => {
        exitedEarly(present);
        const now = Date.now();
        endAt = now;
        if (now < causeAt + minObserveMs || now - recorder.lastGroupActivityAt() < o.recoveryMs) return false;
        if (!node.stopped) return false;
        if (
          plan.cause === 'metadata' &&
          recorder.firstAddedProcessedAt === undefined &&
          now < causeAt + o.metadataWaitMs
        ) {
          return false;
        }
        for (const j of recorder.latestJoins(present).values()) {
          if ((recorder.lastHeartbeatAt(j.instanceId) ?? -Infinity) < j.at) return false;
        }
        return processingSteadily(recorder.series(present), now, o.recoveryMs, o.thresholdMs);
      },
      causeAt + limitMs,
      signal,
    );
    endAt = Date.now();
    let newCoordinator: number | undefined;
    if (stopping !== undefined) {
      await stopping;
      newCoordinator = await coordinatorNode(admin, groupId).catch(() => undefined);
    }

    const reportedAfter = Date.now();
    for (const id of MEASURED) members.get(id)?.send({ cmd: 'report' });
    await until(
      () => MEASURED.every((id) => recorder.pauseMetric(id, reportedAfter) !== undefined),
      Date.now() + REPORT_LIMIT_MS,
      signal,
    );

    const window = { causeAt, endAt, baselineMs: o.baselineMs, thresholdMs: o.thresholdMs };
    const analysis = analyzeWindow(recorder.series(MEASURED), window);
    const joinsBefore: Record<string, number> = {};
    for (const id of initial)
      joinsBefore[id] = recorder.joins.filter((j) => j.instanceId === id && j.at <= causeAt).length;
    const generationAtCause = Math.max(
      -1,
      ...recorder.heartbeats.filter((h) => h.at <= causeAt).map((h) => h.generationId),
    );
    const joinsAfterCause: Record<string, number> = {};
    for (const id of present)
      joinsAfterCause[id] = recorder.joins.filter((j) => j.instanceId === id && j.at > causeAt).length;
    const result: RunResult = {
      ...plan,
      topic,
      groupId,
      settled,
      causeAt,
      endAt,
      endReason: recovered ? 'recovered' : 'limit',
      members: analysis.members,
      groupLongestGapMs: analysis.groupLongestGapMs,
      pausedMemberSeconds: analysis.pausedMemberSeconds,
      rebalances: rebalanceCount(recorder.heartbeats, causeAt, endAt),
      formation: { joins: joinsBefore, generation: generationAtCause < 0 ? undefined : generationAtCause },
      joinsAfterCause,
      phases: heartbeatPhases(recorder.heartbeats, MEASURED, causeAt, tuning.heartbeatInterval),
      pauseHistogram: pauseObservationsBetween(
        MEASURED.map((id) => [metricBefore.get(id), recorder.pauseMetric(id, reportedAfter)]),
      ),
      producer: { sent: 0, failedSends: 0, longestGapMs: 0 },
      timings: { settleMs: settledAt - t0, causeMs: causeAt - settledAt, windowMs: endAt - causeAt },
      notes: recorder.notes,
      timeline: timeline(recorder, causeAt, causeAt - 1000, endAt),
    };
    if (plan.cause === 'metadata') {
      const first = recorder.firstAddedProcessedAt;
      result.addedFirstConsumedAfterMs = first === undefined || first > endAt ? null : first - causeAt;
    }
    if (stoppedNode !== undefined) result.coordinator = { stoppedNode, newCoordinator, leadersOnStoppedNode };
    const sendGaps = gapsAround(producer.sendTimes(), causeAt, endAt).map(([from, to]) => to - from);
    result.producer = { ...(await producer.stop()), longestGapMs: Math.max(0, ...sendGaps) };
    producer = undefined;
    return result;
  } finally {
    // The run is over and its group is never used again: no LeaveGroup round needed.
    await Promise.all([...members.values()].map((m) => m.kill()));
    await producer?.stop().catch(() => undefined);
    await admin.deleteTopics({ topics: [topic], timeout: 10_000 }).catch(() => undefined);
    if (stoppedNode !== undefined) {
      // Back to three nodes for the next run (the next coordinator is whichever leads now).
      ctx.log(`  restarting Kafka node ${String(stoppedNode)}`);
      await cluster.startNode(stoppedNode);
    }
  }
}

/** Waits, bounded, until every one of `count` partitions of `topic` has a leader. */
async function waitForPartitions(admin: Admin, topic: string, count: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + ACT_LIMIT_MS;
  while (Date.now() < deadline) {
    if (signal.aborted) throw new InterruptedError('interrupted');
    const leaders = await partitionLeaders(admin, topic);
    if (leaders !== undefined && leaders.size >= count && [...leaders.values()].every((l) => l >= 0)) return;
    await sleep(200);
  }
  throw new Error(`topic ${topic}: ${String(count)} partitions not listed within ${String(ACT_LIMIT_MS / 1000)} s`);
}
