/**
 * Issue 13's measurement, shared by its integration test and `npm run demo -- --cross-group`:
 * two consumer groups (`orders` and `payments`), each on its own skewed topic, with one consumer
 * per group in each of three instance processes (fixtures/cross-group-instance.ts). Three modes
 * run in turn on the same traffic: KafkaJS round-robin, load-aware balancing each group alone,
 * and load-aware with `crossGroup` (plus the trigger). Each is judged after convergence by the
 * *combined* busiest ÷ ideal: per instance, the produce rates of every partition its consumers
 * hold in either group, against the total over all instances' capacity.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { markdownTable } from '@load-aware/test-support';
import type {
  CrossGroupInstanceEvent,
  CrossGroupInstanceSpec,
  CrossGroupMode,
  CrossGroupTiming,
} from '../fixtures/cross-group-instance';
import { createTopicsWithLeaders, uniqueName } from './index';
import { FAST_PRESET } from './fast-preset';
import { describeGroup, type ObservedGroup } from './group';
import { startFixtureProcess, type FixtureProcess } from './fixture-process';
import { produceAtRates, type RateProducer } from './offset-rate-producer';
import { waitUntil } from './wait';

export type { CrossGroupMode } from '../fixtures/cross-group-instance';

/** The groups of the set, as the scenario calls them (their real ids get a random suffix). */
export const CROSS_GROUP_NAMES = ['orders', 'payments'] as const;
export type CrossGroupName = (typeof CROSS_GROUP_NAMES)[number];

/**
 * Produced messages per second, per partition. In each topic one partition carries about half of
 * the group's load, more than a third: no placement of one group alone reaches its ideal, and the
 * instance holding a group's heavy partition also gets a share of the other group. When both
 * groups form with all three members at once, balancing each alone puts both heavy partitions on
 * the same instance (ties go to the smallest instance id): 1.40 × ideal; when members join one by
 * one, stickiness keeps whatever the first generations chose (1.16 to 1.40 in our runs).
 * Round-robin stacks them too: partition 0 of each topic goes to the first member by id. Together
 * the two groups can be balanced within 1% (the heavy partitions on two instances, the light ones
 * around them).
 */
export const CROSS_GROUP_RATES: Readonly<Record<CrossGroupName, readonly number[]>> = Object.freeze({
  orders: [60, 16, 12, 10, 8, 6, 5, 3],
  payments: [48, 20, 14, 10, 8, 6, 4, 2],
});

/** The instance processes; each is also its consumers' client id. */
export const CROSS_GROUP_INSTANCES = ['instance-a', 'instance-b', 'instance-c'] as const;

/**
 * The demo's fast preset, with turns of 10 s instead of the default 60 s: the two groups' triggers
 * then alternate every 10 s (each may fire in the first 5 s of its turn, where at least one of its
 * 3 s checks falls), so a correction lands within a short demo or test rather than minutes later.
 */
export const CROSS_GROUP_TIMING: CrossGroupTiming = Object.freeze({ ...FAST_PRESET, turnMs: 10_000 });

/** Load of one instance after convergence. */
export interface CrossGroupInstanceLoad {
  readonly instanceId: string;
  /** Every instance declares capacity 1 (one consumer per group, the default capacity). */
  readonly capacity: number;
  /** Messages/s of the partitions it holds, per group. */
  readonly byGroup: Record<CrossGroupName, number>;
  /** The partitions it holds, per group. */
  readonly partitions: Record<CrossGroupName, number[]>;
  /** Sum over both groups. */
  readonly combined: number;
}

/** The proactive rebalances seen in the steady window after convergence. */
export interface CrossGroupSteadyWindow {
  readonly windowMs: number;
  /** "rebalance initiated" lines of the triggers (each is one proactive rebalance of one group). */
  readonly triggerFires: number;
  /** The same before the window: the corrections that led to convergence. */
  readonly triggerFiresBefore: number;
  /** New generations of either group, whatever started them. */
  readonly newGenerations: number;
  /** Whether every instance's combined load at the end equals the one measured at convergence. */
  readonly unchanged: boolean;
}

/** One mode's outcome. */
export interface CrossGroupModeResult {
  readonly mode: CrossGroupMode;
  readonly groupIds: Record<CrossGroupName, string>;
  readonly instances: CrossGroupInstanceLoad[];
  /** Total messages/s and total ÷ total capacity. */
  readonly total: number;
  readonly ideal: number;
  /** Busiest instance's combined load ÷ capacity, and that ÷ ideal: the verdict. */
  readonly busiest: number;
  readonly busiestRatio: number;
  /** Each group judged alone: its busiest instance ÷ its own ideal. */
  readonly perGroupRatio: Record<CrossGroupName, number>;
  /** From the consumers' start until the assignments of both groups held still for `quietMs`. */
  readonly convergedAfterMs: number;
  /** Only when the mode ran a steady window (the cross-group mode). */
  readonly steady: CrossGroupSteadyWindow | undefined;
  /** WARN and ERROR lines of the instances, `instance: message`, first 20. */
  readonly warnings: string[];
}

/** What {@link runCrossGroupComparison} measured. */
export interface CrossGroupComparison {
  readonly rates: Readonly<Record<CrossGroupName, readonly number[]>>;
  readonly timing: CrossGroupTiming;
  readonly modes: CrossGroupModeResult[];
}

/** Options of {@link runCrossGroupComparison}. */
export interface CrossGroupComparisonOptions {
  readonly brokers: string[];
  /** Modes in the order run. Default round-robin, off, on. */
  readonly modes?: readonly CrossGroupMode[];
  /** Steady window after convergence in the `on` mode, where proactive rebalances are counted. Default 300000. */
  readonly steadyMs?: number;
  /** How long both groups' assignments must hold still to count as converged (`on`; other modes 3 s). Default 20000. */
  readonly quietMs?: number;
  /** Longest wait for convergence. Default 180000. */
  readonly convergeTimeoutMs?: number;
  /** Timings of the instances. Default {@link CROSS_GROUP_TIMING}. */
  readonly timing?: CrossGroupTiming;
  /** Progress lines. Default: none. */
  readonly log?: (line: string) => void;
}

/** Combined loads of the instances from the described groups (holdings × the produce rates). */
export function combinedLoads(groups: Record<CrossGroupName, ObservedGroup>): CrossGroupInstanceLoad[] {
  return CROSS_GROUP_INSTANCES.map((instanceId) => {
    const partitions = { orders: [] as number[], payments: [] as number[] };
    for (const name of CROSS_GROUP_NAMES) {
      for (const member of groups[name].members) {
        // Round-robin members carry no load-aware userData: their client id is the instance.
        if ((member.instanceId ?? member.clientId) !== instanceId) continue;
        partitions[name].push(...member.assigned.map((tp) => Number(tp.slice(tp.lastIndexOf(':') + 1))));
      }
      partitions[name].sort((a, b) => a - b);
    }
    const load = (name: CrossGroupName): number =>
      partitions[name].reduce((sum, p) => sum + (CROSS_GROUP_RATES[name][p] ?? 0), 0);
    const byGroup = { orders: load('orders'), payments: load('payments') };
    return { instanceId, capacity: 1, byGroup, partitions, combined: byGroup.orders + byGroup.payments };
  });
}

/**
 * Busiest ÷ ideal of `loads`: ideal is the total over the total capacity of every instance of the
 * set. An instance with no partition still counts its capacity (it could take load); one that
 * could take nothing would have to be left out of both, and this setup has none.
 */
export function busiestOverIdeal(loads: ReadonlyArray<{ load: number; capacity: number }>): {
  total: number;
  ideal: number;
  busiest: number;
  ratio: number;
} {
  const total = loads.reduce((sum, l) => sum + l.load, 0);
  const capacity = loads.reduce((sum, l) => sum + l.capacity, 0);
  const ideal = total / capacity;
  const busiest = Math.max(...loads.map((l) => l.load / l.capacity));
  return { total, ideal, busiest, ratio: ideal > 0 ? busiest / ideal : 1 };
}

/**
 * Runs every mode on two fresh topics and returns their combined balance. Starts (and always
 * stops) its own producer and instance processes; deletes its topics.
 */
export async function runCrossGroupComparison(options: CrossGroupComparisonOptions): Promise<CrossGroupComparison> {
  const { brokers } = options;
  const modes = options.modes ?? ['round-robin', 'off', 'on'];
  const timing = options.timing ?? CROSS_GROUP_TIMING;
  const log = options.log ?? (() => undefined);
  const kafka = new Kafka({ clientId: 'cross-group', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const topics = { orders: uniqueName('orders'), payments: uniqueName('payments') };
  const steadyMs = options.steadyMs ?? 300_000;
  const convergeTimeoutMs = options.convergeTimeoutMs ?? 180_000;
  // Bounded: long enough for every mode's start, convergence and window, then it stops by itself.
  const producerMs = modes.length * (120_000 + convergeTimeoutMs) + steadyMs;
  let producer: RateProducer | undefined;
  await admin.connect();
  try {
    await createTopicsWithLeaders(
      admin,
      CROSS_GROUP_NAMES.map((name) => ({
        topic: topics[name],
        numPartitions: CROSS_GROUP_RATES[name].length,
        replicationFactor: 1,
      })),
    );
    producer = produceAtRates(
      kafka,
      CROSS_GROUP_NAMES.flatMap((name) =>
        CROSS_GROUP_RATES[name].map((perSecond, partition) => ({ topic: topics[name], partition, perSecond })),
      ),
      producerMs,
    );
    const results: CrossGroupModeResult[] = [];
    for (const mode of modes) {
      results.push(
        await runMode({
          admin,
          brokers,
          topics,
          mode,
          timing,
          log,
          steadyMs: mode === 'on' ? steadyMs : 0,
          quietMs: mode === 'on' ? (options.quietMs ?? 20_000) : 3_000,
          convergeTimeoutMs,
        }),
      );
    }
    return { rates: CROSS_GROUP_RATES, timing, modes: results };
  } finally {
    await producer?.stop();
    await admin.deleteTopics({ topics: Object.values(topics), timeout: 10_000 }).catch(() => undefined);
    await admin.disconnect();
  }
}

interface ModeRun {
  readonly admin: Admin;
  readonly brokers: string[];
  readonly topics: Record<CrossGroupName, string>;
  readonly mode: CrossGroupMode;
  readonly timing: CrossGroupTiming;
  readonly log: (line: string) => void;
  readonly steadyMs: number;
  readonly quietMs: number;
  readonly convergeTimeoutMs: number;
}

async function runMode(run: ModeRun): Promise<CrossGroupModeResult> {
  const { admin, mode, log } = run;
  const groupIds = { orders: uniqueName(`orders-${mode}`), payments: uniqueName(`payments-${mode}`) };
  const started = Date.now();
  log(
    `${mode}: starting ${String(CROSS_GROUP_INSTANCES.length)} instances in groups ${groupIds.orders}, ${groupIds.payments}`,
  );
  const processes = CROSS_GROUP_INSTANCES.map((instanceId) =>
    startFixtureProcess<CrossGroupInstanceEvent>({
      fixture: 'cross-group-instance',
      name: instanceId,
      spec: {
        brokers: run.brokers,
        instanceId,
        groups: CROSS_GROUP_NAMES.map((name) => ({
          groupId: groupIds[name],
          topic: run.topics[name],
          partitions: CROSS_GROUP_RATES[name].length,
        })),
        mode,
        triggers: mode === 'on',
        timing: run.timing,
        sessionTimeoutMs: 10_000,
        lifetimeMs: 120_000 + run.convergeTimeoutMs + run.steadyMs,
      } satisfies CrossGroupInstanceSpec,
    }),
  );
  try {
    await Promise.all(processes.map((p) => p.waitFor((e) => e.some((x) => x.event === 'ready'), 'ready', 60_000)));
    const events = (): CrossGroupInstanceEvent[] => processes.flatMap((p) => p.events);
    // With triggers, a quiet spell alone could end before a trigger that waits for its turn has
    // had its say: converged also means each group's trigger has since judged it balanced.
    const judged = run.mode === 'on' ? (since: number) => judgedBalanced(events(), groupIds, since) : () => true;
    const converged = await waitForConvergence(admin, groupIds, run.quietMs, run.convergeTimeoutMs, judged);
    const convergedAfterMs = converged.at - started;
    const instances = combinedLoads(converged.groups);
    log(`${mode}: converged after ${(convergedAfterMs / 1000).toFixed(0)} s`);
    let steady: CrossGroupSteadyWindow | undefined;
    if (run.steadyMs > 0) {
      const from = Date.now();
      log(`${mode}: steady window of ${(run.steadyMs / 1000).toFixed(0)} s, counting proactive rebalances`);
      await sleep(run.steadyMs);
      const to = Date.now();
      const after = combinedLoads(await describeBoth(admin, groupIds));
      steady = {
        windowMs: to - from,
        triggerFires: processes.reduce((n, p) => n + fires(p.events, from, to), 0),
        triggerFiresBefore: processes.reduce((n, p) => n + fires(p.events, started, from - 1), 0),
        newGenerations: newGenerations(processes, from, to),
        unchanged: after.every((a, i) => a.combined === instances[i]!.combined),
      };
    }
    const verdict = busiestOverIdeal(instances.map((i) => ({ load: i.combined, capacity: i.capacity })));
    const perGroupRatio = {
      orders: busiestOverIdeal(instances.map((i) => ({ load: i.byGroup.orders, capacity: i.capacity }))).ratio,
      payments: busiestOverIdeal(instances.map((i) => ({ load: i.byGroup.payments, capacity: i.capacity }))).ratio,
    };
    log(`${mode}: combined busiest ÷ ideal ${verdict.ratio.toFixed(3)}`);
    return {
      mode,
      groupIds,
      instances,
      total: verdict.total,
      ideal: verdict.ideal,
      busiest: verdict.busiest,
      busiestRatio: verdict.ratio,
      perGroupRatio,
      convergedAfterMs,
      steady,
      warnings: warnings(processes).slice(0, 20),
    };
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
  }
}

async function describeBoth(
  admin: Admin,
  groupIds: Record<CrossGroupName, string>,
): Promise<Record<CrossGroupName, ObservedGroup>> {
  const [orders, payments] = await Promise.all(CROSS_GROUP_NAMES.map((name) => describeGroup(admin, groupIds[name])));
  return { orders: orders!, payments: payments! };
}

/**
 * Polls both groups every second until each is Stable with every instance and every partition
 * held exactly once, the assignments of both have not changed for `quietMs`, and `judged` holds
 * since it was first seen; returns that reading and that time. Throws after `timeoutMs`.
 */
async function waitForConvergence(
  admin: Admin,
  groupIds: Record<CrossGroupName, string>,
  quietMs: number,
  timeoutMs: number,
  judged: (since: number) => boolean,
): Promise<{ groups: Record<CrossGroupName, ObservedGroup>; at: number }> {
  let since: { fingerprint: string; at: number } | undefined;
  return waitUntil(
    async () => {
      const groups = await describeBoth(admin, groupIds);
      const complete = CROSS_GROUP_NAMES.every((name) => {
        const g = groups[name];
        // Every partition exactly once: as many held as exist, and no two the same.
        const assigned = g.members.flatMap((m) => m.assigned);
        const held = new Set(assigned).size === assigned.length ? assigned.length : -1;
        return (
          g.state === 'Stable' &&
          g.members.length === CROSS_GROUP_INSTANCES.length &&
          held === CROSS_GROUP_RATES[name].length
        );
      });
      if (!complete) {
        since = undefined;
        return undefined;
      }
      const fingerprint = JSON.stringify(CROSS_GROUP_NAMES.map((n) => groups[n].members.map((m) => m.assigned)));
      const now = Date.now();
      if (since?.fingerprint !== fingerprint) since = { fingerprint, at: now };
      return now - since.at >= quietMs && judged(since.at) ? { groups, at: since.at } : undefined;
    },
    `both groups ${groupIds.orders} and ${groupIds.payments} converged (unchanged for ${String(quietMs)} ms)`,
    timeoutMs,
    1000,
  );
}

/**
 * Whether each group's trigger has judged its group since `since`, and its latest verdict was
 * "balanced" (the combined load within the threshold), not a violated check on its way to a fire.
 */
function judgedBalanced(
  events: ReadonlyArray<CrossGroupInstanceEvent>,
  groupIds: Record<CrossGroupName, string>,
  since: number,
): boolean {
  return CROSS_GROUP_NAMES.every((name) => {
    const verdicts = events.filter(
      (e) =>
        e.event === 'log' && e.groupId === groupIds[name] && e.at >= since && typeof e.fields['outcome'] === 'string',
    );
    // Lines of several processes: the coordinator may have changed, so order them by time.
    const last = verdicts.sort((a, b) => a.at - b.at).at(-1);
    return last?.event === 'log' && last.fields['outcome'] === 'balanced';
  });
}

/** Trigger fires in [from, to]: each "rebalance initiated" line starts one proactive rebalance. */
function fires(events: ReadonlyArray<CrossGroupInstanceEvent>, from: number, to: number): number {
  return events.filter(
    (e) => e.event === 'log' && e.at >= from && e.at <= to && e.message.startsWith('rebalance initiated'),
  ).length;
}

/** Generations first heard of in [from, to], counted once per group. */
function newGenerations(
  processes: ReadonlyArray<FixtureProcess<CrossGroupInstanceEvent>>,
  from: number,
  to: number,
): number {
  const before = new Map<string, number>();
  const during = new Set<string>();
  for (const e of processes.flatMap((p) => p.events)) {
    if (e.event !== 'generation') continue;
    if (e.at < from) before.set(e.groupId, Math.max(before.get(e.groupId) ?? -1, e.generationId));
  }
  for (const e of processes.flatMap((p) => p.events)) {
    if (e.event !== 'generation' || e.at < from || e.at > to) continue;
    if (e.generationId > (before.get(e.groupId) ?? -1)) during.add(`${e.groupId}:${String(e.generationId)}`);
  }
  return during.size;
}

function warnings(processes: ReadonlyArray<FixtureProcess<CrossGroupInstanceEvent>>): string[] {
  return processes.flatMap((p) =>
    p.events.flatMap((e) =>
      e.event === 'log' && (e.level === 'warn' || e.level === 'error') ? [`${e.instanceId}: ${e.message}`] : [],
    ),
  );
}

const TITLES: Record<CrossGroupMode, string> = {
  'round-robin': 'KafkaJS round-robin',
  off: 'load-aware, cross-group off',
  on: 'load-aware, cross-group on',
};

/** The title of a mode in tables and charts. */
export function crossGroupModeTitle(mode: CrossGroupMode): string {
  return TITLES[mode];
}

/** The rates and one table row per mode, as a padded Markdown table. */
export function formatCrossGroupComparison(result: CrossGroupComparison): string {
  const rates = CROSS_GROUP_NAMES.map(
    (name) => `${name}: ${result.rates[name].join(', ')} msg/s (total ${String(sum(result.rates[name]))})`,
  );
  const rows = result.modes.map((m) => [
    TITLES[m.mode],
    m.instances
      .map((i) => `${String(i.combined)} (${String(i.byGroup.orders)}+${String(i.byGroup.payments)})`)
      .join(' / '),
    `${m.perGroupRatio.orders.toFixed(2)} / ${m.perGroupRatio.payments.toFixed(2)}`,
    m.busiestRatio.toFixed(3),
    `${(m.convergedAfterMs / 1000).toFixed(0)} s${m.steady === undefined ? '' : `, ${String(m.steady.triggerFiresBefore)} fires`}`,
    m.steady === undefined
      ? 'n/a (no trigger)'
      : `${String(m.steady.triggerFires)} fires, ${String(m.steady.newGenerations)} new generations in ${(m.steady.windowMs / 1000).toFixed(0)} s`,
  ]);
  const header = [
    'mode',
    'msg/s per instance (orders+payments)',
    'per group busiest ÷ ideal',
    'combined busiest ÷ ideal',
    'converged after',
    'proactive rebalances, steady window',
  ];
  return [...rates, '', markdownTable(header, rows, new Set([2, 3, 4]))].join('\n');
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
