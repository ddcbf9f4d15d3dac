/**
 * One phase of the latency-SLA benchmark: a fresh topic and group, the producer at the workload's
 * rates, N members under one assignor in processes of a few members each, and the latency of
 * every message produced in the measured window (latency.ts). The producer runs before the
 * members start (load-aware weighs its first assignment with measured rates); once the group has
 * formed, the members are told to start timing, so every assignor starts from an empty queue.
 * With a shift, the hotspot moves midway and two windows are read: before and after the move.
 * Always stops what it started and deletes its topic.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AssignerProtocol, Partitioners, type Admin, type Kafka } from 'kafkajs';
import { createTopicsWithLeaders, uniqueName } from '@load-aware/integration-tests';
import type { FastPreset } from '@load-aware/integration-tests/fast-preset';
import { startChildProgram, type ChildProgram } from '../instances.js';
import { runSteadyProducer } from '../producer.js';
import { mergeTallies, windowStats, type Tallies, type WindowStats } from './latency.js';
import { busiestUtilization, stickyGrowthPlan, type SlaAssigner } from './plans.js';
import type { SlaCommand, SlaEvent, SlaProcessSpec } from './protocol.js';
import type { Workload } from './workload.js';

const PROGRAM = join(__dirname, 'member-main.js');

/** Members per process: few enough that one event loop never holds a member's timer up. */
export const MEMBERS_PER_PROCESS = 4;

/** How often the producer sends. */
const PRODUCE_TICK_MS = 20;

/** Longest wait for the processes to run and for the group to form. */
const FORM_TIMEOUT_MS = 90_000;

/** Fixed settings a phase runs with. */
export interface PhaseSettings {
  workMs: number;
  slaMs: number;
  preset: FastPreset;
  /** Seconds between the group forming and the first measured produce second. */
  warmSeconds: number;
}

/** What one phase runs. */
export interface PhasePlan {
  assigner: SlaAssigner;
  members: number;
  workload: Workload;
  /** Without a shift: one window of this many seconds. */
  measureSeconds: number;
  /** With a shift: the window before the move and the one after it. */
  shift?: { beforeSeconds: number; afterSeconds: number };
  /** load-aware only: run the proactive trigger. */
  trigger: boolean;
}

/** What a phase measured. */
export interface PhaseResult {
  assigner: SlaAssigner;
  members: number;
  trigger: boolean;
  /** The window without a shift, or the one before the move. */
  window: WindowStats;
  /** With a shift: the window after the move. */
  afterShift?: WindowStats;
  /** Busiest member ÷ its capacity by the exact rates, under the assignment the group formed with. */
  busiestAtStart: number;
  /** The same under the assignment at the end, by the rates then (after the move, with a shift). */
  busiestAtEnd: number;
  /** Member joins after the group formed: N per rebalance. */
  joinsAfterForming: number;
  /** Trigger fires, seconds after the move (or after the window started, without a shift). */
  triggerFiresAt: number[];
  /** load-aware: the last `sizeGroup` answer for the rates the members measured. */
  measuredDesiredMembers: number | undefined;
  /** load-aware: the same at the capacity and SLA target derived from the members' busy time. */
  fromBusyTime: Extract<SlaEvent, { event: 'sizing' }>['fromBusyTime'];
  warnings: string[];
  /**
   * The member processes' event-loop delay over the measured window(s): the largest of their
   * per-second p99s, ms. Tens of ms mean the machine was starving the members.
   */
  loopDelayMaxP99Ms: number;
  /** The machine's 1-minute load average when the phase ended. */
  loadAverage: number;
  /** Wall time of the phase, s. */
  seconds: number;
}

/** What a phase runs against. */
export interface PhaseContext {
  brokers: string[];
  kafka: Kafka;
  admin: Admin;
  settings: PhaseSettings;
  signal: AbortSignal;
  log: (line: string) => void;
}

/** Thrown when the run was interrupted; what the phase started has been stopped. */
export class SlaInterruptedError extends Error {
  override readonly name = 'SlaInterruptedError';
}

/** Runs one phase (see the file comment). */
export async function runSlaPhase(plan: PhasePlan, ctx: PhaseContext): Promise<PhaseResult> {
  const { admin, settings, signal } = ctx;
  const began = Date.now();
  const { workload } = plan;
  const partitions = workload.before.length;
  const topic = uniqueName(`sla-${workload.shape}-${plan.assigner}-${String(plan.members)}`);
  const groupId = uniqueName(`sla-${plan.assigner}`);
  await createTopicsWithLeaders(admin, [{ topic, numPartitions: partitions, replicationFactor: 1 }], 60_000);
  const produced: Record<string, number> = {};
  const tallies: Tallies = {};
  const warnings: string[] = [];
  const fires: number[] = [];
  let joins = 0;
  let formedAt = Number.POSITIVE_INFINITY;
  let measuredDesiredMembers: number | undefined;
  let fromBusyTime: PhaseResult['fromBusyTime'];
  const loopDelays: Array<{ at: number; p99Ms: number }> = [];
  const children: ChildProgram[] = [];
  // A producer per phase: KafkaJS keeps refreshing metadata of every topic a producer wrote to.
  const producer = ctx.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const warmAbort = new AbortController();
  const stopProducing = (): void => {
    warmAbort.abort();
  };
  signal.addEventListener('abort', stopProducing);
  try {
    await producer.connect();
    const onSent = (messages: number, at: number): void => {
      const second = String(Math.floor(at / 1000));
      produced[second] = (produced[second] ?? 0) + messages;
    };
    const producing = (until: { moveAt: number; endAt: number }, abort: AbortSignal): Promise<number> =>
      runSteadyProducer(producer, {
        topic,
        before: workload.before,
        after: workload.after,
        ...until,
        tickMs: PRODUCE_TICK_MS,
        signal: abort,
        onSent,
      });
    // Until the group has formed: the rates load-aware's members measure before they join.
    const warming = producing({ moveAt: Number.POSITIVE_INFINITY, endAt: Number.POSITIVE_INFINITY }, warmAbort.signal);
    warming.catch(() => undefined);

    const onEvent = (raw: unknown): void => {
      const event = raw as SlaEvent;
      if (event.event === 'stats') {
        mergeTallies(tallies, event.tallies);
        loopDelays.push({ at: event.at, p99Ms: event.loopDelayP99Ms });
      } else if (event.event === 'joined') {
        if (event.at > formedAt) joins++;
      } else if (event.event === 'trigger') fires.push(event.at);
      else if (event.event === 'sizing') {
        measuredDesiredMembers = event.desiredMembers;
        fromBusyTime = event.fromBusyTime ?? fromBusyTime;
      } else if (event.event === 'warn' && warnings.length < 20) warnings.push(event.message);
    };
    const lifetimeMs = FORM_TIMEOUT_MS + 60_000 + phaseSeconds(plan) * 1000 + settings.warmSeconds * 1000;
    const pinnedPlan = plan.assigner === 'sticky' ? stickyGrowthPlan(partitions, plan.members) : undefined;
    const ready: Array<Promise<void>> = [];
    for (let first = 0; first < plan.members; first += MEMBERS_PER_PROCESS) {
      const spec: SlaProcessSpec = {
        brokers: ctx.brokers,
        groupId,
        topic,
        partitions,
        assigner: plan.assigner,
        members: Array.from({ length: Math.min(MEMBERS_PER_PROCESS, plan.members - first) }, (_, i) => first + i),
        workMs: settings.workMs,
        slaMs: settings.slaMs,
        ...(pinnedPlan === undefined ? {} : { pinnedPlan }),
        trigger: plan.trigger,
        preset: settings.preset,
        memberRate: workload.memberRate,
        statsIntervalMs: 1000,
        lifetimeMs,
      };
      let markReady: () => void = () => undefined;
      ready.push(
        new Promise<void>((resolve) => {
          markReady = resolve;
        }),
      );
      const markThisReady = markReady;
      children.push(
        startChildProgram(PROGRAM, spec, (raw) => {
          if ((raw as SlaEvent).event === 'ready') markThisReady();
          onEvent(raw);
        }),
      );
    }
    const deadline = Date.now() + FORM_TIMEOUT_MS;
    const formed = await waitForGroup(admin, groupId, topic, plan.members, partitions, deadline, () => {
      if (signal.aborted) throw new SlaInterruptedError('interrupted');
      const dead = children.find((c) => c.exited);
      if (dead !== undefined) throw new Error(`a member process exited: ${dead.stderr().trim()}`);
    });
    await Promise.all(ready);
    formedAt = Date.now();
    const command: SlaCommand = { startAt: formedAt };
    for (const child of children) child.process.stdin.write(`${JSON.stringify(command)}\n`);
    const busiestAtStart = busiestUtilization(formed, workload.before, workload.memberRate);

    // Whole produce seconds: the first one after the warm-up, then the window(s).
    const fromSecond = Math.ceil(formedAt / 1000) + settings.warmSeconds;
    const beforeSeconds = plan.shift?.beforeSeconds ?? plan.measureSeconds;
    const moveSecond = fromSecond + beforeSeconds;
    const toSecond = moveSecond + (plan.shift?.afterSeconds ?? 0);
    const moveAt = plan.shift === undefined ? Number.POSITIVE_INFINITY : moveSecond * 1000;
    warmAbort.abort();
    await warming;
    const measureAbort = new AbortController();
    const stopMeasuring = (): void => {
      measureAbort.abort();
    };
    signal.addEventListener('abort', stopMeasuring);
    try {
      await producing({ moveAt, endAt: toSecond * 1000 }, measureAbort.signal);
    } finally {
      signal.removeEventListener('abort', stopMeasuring);
    }
    if (signal.aborted) throw new SlaInterruptedError('interrupted');
    // Long enough that a message of the last second still unprocessed is outside the SLA for sure.
    await sleep(settings.slaMs + 500);
    const ending = await describeAssignment(admin, groupId, topic).catch(() => undefined);
    const stopAtMs = Date.now();
    await Promise.all(children.map((c) => c.stop(20_000)));
    const read = (from: number, to: number): WindowStats =>
      windowStats({ tallies, produced, fromSecond: from, toSecond: to, stopAtMs, slaMs: settings.slaMs });
    const endRates = plan.shift === undefined ? workload.before : workload.after;
    const origin = plan.shift === undefined ? fromSecond * 1000 : moveAt;
    return {
      assigner: plan.assigner,
      members: plan.members,
      trigger: plan.trigger,
      window: read(fromSecond, moveSecond),
      ...(plan.shift === undefined ? {} : { afterShift: read(moveSecond, toSecond) }),
      busiestAtStart,
      busiestAtEnd: ending === undefined ? Number.NaN : busiestUtilization(ending.plan, endRates, workload.memberRate),
      joinsAfterForming: joins,
      triggerFiresAt: fires.filter((at) => at >= formedAt).map((at) => (at - origin) / 1000),
      measuredDesiredMembers,
      fromBusyTime,
      // Lines from the window's first second to the stop, each covering the second before it.
      loopDelayMaxP99Ms: Math.max(
        0,
        ...loopDelays.filter((d) => d.at > fromSecond * 1000 && d.at <= stopAtMs).map((d) => d.p99Ms),
      ),
      loadAverage: loadavg()[0] ?? Number.NaN,
      warnings,
      seconds: (Date.now() - began) / 1000,
    };
  } finally {
    warmAbort.abort();
    signal.removeEventListener('abort', stopProducing);
    await Promise.all(children.map((c) => c.stop(20_000)));
    await producer.disconnect().catch(() => undefined);
    await admin.deleteTopics({ topics: [topic], timeout: 10_000 }).catch(() => undefined);
  }
}

/** Seconds a phase produces for after its group forms (without the warm-up). */
export function phaseSeconds(plan: Pick<PhasePlan, 'measureSeconds' | 'shift'>): number {
  return plan.shift === undefined ? plan.measureSeconds : plan.shift.beforeSeconds + plan.shift.afterSeconds;
}

/** The group's state and its members' partitions of `topic`, by member id (slot order). */
async function describeAssignment(
  admin: Admin,
  groupId: string,
  topic: string,
): Promise<{ state: string; plan: number[][] }> {
  const { groups } = await admin.describeGroups([groupId]);
  const group = groups[0];
  if (group === undefined) return { state: 'Unknown', plan: [] };
  const members = [...group.members].sort((a, b) => a.memberId.localeCompare(b.memberId));
  const plan = members.map((m) => {
    const decoded =
      m.memberAssignment.length === 0 ? null : AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
    return [...(decoded?.assignment[topic] ?? [])].sort((a, b) => a - b);
  });
  return { state: group.state, plan };
}

/**
 * Waits until the group is Stable with `members` members holding every partition once, twice in
 * a row half a second apart (a join still on its way would change it); returns the plan.
 * `check` throws to give up early; past `deadline` it throws.
 */
async function waitForGroup(
  admin: Admin,
  groupId: string,
  topic: string,
  members: number,
  partitions: number,
  deadline: number,
  check: () => void,
): Promise<number[][]> {
  let previous: string | undefined;
  for (;;) {
    check();
    if (Date.now() > deadline) throw new Error(`group ${groupId} did not form with ${String(members)} members`);
    const seen = await describeAssignment(admin, groupId, topic).catch(() => undefined);
    const held = seen?.plan.flat().sort((a, b) => a - b) ?? [];
    const complete =
      seen?.state === 'Stable' &&
      seen.plan.length === members &&
      held.length === partitions &&
      held.every((p, i) => p === i);
    const key = complete ? JSON.stringify(seen.plan) : undefined;
    if (key !== undefined && key === previous) return seen!.plan;
    previous = key;
    await sleep(500);
  }
}
