import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { getOrCreateMetric, LAG_UNMEASURED_REASONS, type GroupLag } from '@load-aware/assignor/internal';
import { CAPACITY_SOURCES, type UsedCapacity } from './capacity-check.js';
import type { SizedGroup } from './sizing-check.js';
import { TRIGGER_LEVELS, TRIGGER_OUTCOMES, type Evaluation, type TriggerOutcome } from '../contract/types.js';

/**
 * An evaluation outcome, plus the controller's own: `error` for checks that could not evaluate at
 * all, `unheld_partitions` for checks that forced a rebalance (in advise mode: would have) because
 * subscribed partitions were held by no member; the trigger was not consulted on those.
 */
export type CheckOutcome = TriggerOutcome | 'error' | 'unheld_partitions';

/** The outcomes only the controller gives, whatever its trigger: each gets a zero series too. */
const CONTROLLER_OUTCOMES: ReadonlyArray<CheckOutcome> = ['error', 'unheld_partitions'];

/**
 * What the controller records. Label `group` only (plus the bounded `outcome`, `level` and
 * `reason`): never member or instance ids, which change with every restart or deploy.
 */
export interface TriggerMetrics {
  /**
   * Counts one evaluation by the coordinator and publishes what it saw; the gauges come from the
   * threshold evaluation of the check, when its trigger made one.
   */
  evaluation(group: string, outcome: CheckOutcome, evaluation: Evaluation | undefined, durationSeconds: number): void;
  /** Records whether `owner` (one controller) is the group's coordinator. */
  coordinator(group: string, owner: object, isCoordinator: boolean): void;
  /** Counts a rebalance the trigger initiated, or would have initiated in advise mode. */
  rebalance(group: string, advised: boolean): void;
  /** Counts a failure of the weight source seen by a check. */
  samplerError(group: string): void;
  /** Publishes how many subscribed partitions no member held at the coordinator's last check. */
  unheld(group: string, partitions: number): void;
  /** Publishes the group's size at the last check (the `sizing` option); undefined removes it: not sized. */
  sizing(group: string, sized: SizedGroup | undefined): void;
  /** Publishes the member capacity the last sizing used, labelled with where it came from. */
  memberCapacity(group: string, used: UsedCapacity): void;
  /** Publishes the group's lag at the last check (the `lag` option); undefined removes it: not measured. */
  lag(group: string, lag: GroupLag | undefined): void;
}

const noopMetrics: TriggerMetrics = {
  evaluation: () => undefined,
  coordinator: () => undefined,
  rebalance: () => undefined,
  samplerError: () => undefined,
  unheld: () => undefined,
  sizing: () => undefined,
  memberCapacity: () => undefined,
  lag: () => undefined,
};

/**
 * Coordinator claims per registry and group. Several consumers of one group may run in one
 * process (one controller each, one registry): the process's gauge is 1 while any of them is the
 * coordinator, so that summing the gauge over processes gives 1 for the group.
 */
const claims = new WeakMap<Registry, Map<string, Set<object>>>();

/** What a violated check can come to: the `outcome` values of the violated-checks counter. */
const VIOLATED_OUTCOMES: ReadonlyArray<TriggerOutcome> = [
  'awaiting_hysteresis',
  'cooldown_suppressed',
  'gain_below_cost',
  'fired',
];

type GaugeName = (typeof GAUGES)[number][0];
const GAUGES = [
  [
    'load_aware_trigger_imbalance_ratio',
    'Max instance load of the current assignment ÷ that of the assignment balance() would produce now.',
  ],
  ['load_aware_trigger_threshold_ratio', 'Imbalance ratio above which the trigger fires.'],
  [
    'load_aware_trigger_current_max_instance_load',
    'Max instance load (per unit of capacity) of the current assignment.',
  ],
  [
    'load_aware_trigger_optimal_max_instance_load',
    'Max instance load (per unit of capacity) balance() would produce now.',
  ],
  [
    'load_aware_trigger_expected_gain',
    'What the last priced fire would buy: (current - planned busiest instance load) x the horizon (load x seconds).',
  ],
  [
    'load_aware_trigger_expected_cost',
    "What the last priced fire would cost: the group's paused member-seconds x its load per member (load x seconds).",
  ],
  [
    'load_aware_trigger_member_imbalance_ratio',
    'Largest, over instances, of busiest member load now ÷ after balance() re-places the instance among its members.',
  ],
  ['load_aware_trigger_member_threshold_ratio', 'Member imbalance ratio above which the trigger fires.'],
  ['load_aware_trigger_members', 'Members of the group at the last judged check.'],
  ['load_aware_trigger_instances', 'Instances of the group at the last judged check.'],
  ['load_aware_trigger_partitions', 'Partitions held by the group at the last judged check.'],
  ['load_aware_trigger_defaulted_weights', 'Partitions without a usable weight at the last judged check.'],
  [
    'load_aware_trigger_tracked_partitions',
    'Partitions the weight source (sampler) gave a usable weight at the last check.',
  ],
  ['load_aware_trigger_violated_checks', 'Hysteresis streak: violated checks of the current assignment.'],
  [
    'load_aware_trigger_cooldown_seconds',
    'Effective cooldown between two fires (grows after fires that did not help).',
  ],
  ['load_aware_trigger_last_fired_timestamp_seconds', 'Unix time of the last fire.'],
  [
    'load_aware_trigger_unheld_partitions',
    'Partitions of subscribed topics that no member held at the last check (0 when all are held).',
  ],
  [
    'load_aware_desired_members',
    'Fewest members (one an instance) whose placement keeps every member within the target utilization.',
  ],
  [
    'load_aware_desired_instances',
    'Fewest instances, of as many members as the largest instance runs, that keep every member within the target.',
  ],
  [
    'load_aware_target_utilization',
    "Share of a member's capacity the last sizing allowed: the stated target, or the one the latency SLA derived.",
  ],
  [
    'load_aware_scale_out_futile',
    "1 when a partition alone exceeds one member's target load, so more members cannot help; else 0.",
  ],
  [
    'load_aware_group_lag_messages',
    'Messages from the committed to the end offset, summed over held partitions with a committed offset.',
  ],
  [
    'load_aware_group_lag_seconds',
    'Largest lag ÷ arrival rate of a held partition: time behind at the current rate (absent when unknown).',
  ],
  [
    'load_aware_group_drain_seconds',
    "The slowest member's lag ÷ (member capacity − its arrival rate); absent while a member never drains.",
  ],
  [
    'load_aware_group_drain_never',
    'With a member capacity: 1 while a member with lag receives at or above its capacity (never drains); else 0.',
  ],
] as const;

/**
 * Creates the trigger's metrics on `registry`, or reuses them when another controller already
 * registered them there. `outcomes` are those the controller's trigger can return: each gets a
 * zero series when this process becomes the coordinator.
 */
export function createTriggerMetrics(
  registry: Registry | undefined,
  outcomes: ReadonlyArray<TriggerOutcome> = TRIGGER_OUTCOMES,
): TriggerMetrics {
  if (registry === undefined) return noopMetrics;
  const gauge = (name: string, help: string): Gauge =>
    getOrCreateMetric(
      registry,
      name,
      (n) => new Gauge({ name: n, help, labelNames: ['group'], registers: [registry] }),
    );
  const g = Object.fromEntries(GAUGES.map(([name, help]) => [name, gauge(name, help)])) as Record<GaugeName, Gauge>;
  const coordinatorGauge = gauge(
    'load_aware_trigger_coordinator',
    '1 while a member of this process is the group coordinator.',
  );
  const unmeasured = getOrCreateMetric(
    registry,
    'load_aware_group_lag_unmeasured_partitions',
    (name) =>
      new Gauge({
        name,
        help: 'Held partitions left out of the lag (no_commit, not_read) or of its seconds (no_rate), by reason.',
        labelNames: ['group', 'reason'],
        registers: [registry],
      }),
  );
  const capacity = getOrCreateMetric(
    registry,
    'load_aware_member_capacity',
    (name) =>
      new Gauge({
        name,
        help: "Member capacity the last sizing used, in the weights' units; source stated or derived (from busy time).",
        labelNames: ['group', 'source'],
        registers: [registry],
      }),
  );
  const counter = (name: string, help: string, labelNames: string[]): Counter =>
    getOrCreateMetric(registry, name, (n) => new Counter({ name: n, help, labelNames, registers: [registry] }));
  const evaluations = counter(
    'load_aware_trigger_evaluations_total',
    'Trigger evaluations by the coordinator, by outcome.',
    ['group', 'outcome'],
  );
  const violations = counter(
    'load_aware_trigger_violated_checks_total',
    'Threshold checks above a threshold, by level (instance when both are) and outcome.',
    ['group', 'level', 'outcome'],
  );
  const rebalances = counter(
    'load_aware_trigger_rebalances_initiated_total',
    'Group rebalances the trigger initiated.',
    ['group'],
  );
  const advised = counter(
    'load_aware_trigger_advised_rebalances_total',
    'Rebalances the trigger would have initiated (advise mode).',
    ['group'],
  );
  const samplerErrors = counter(
    'load_aware_trigger_sampler_errors_total',
    'Weight source (sampler) failures seen by trigger checks.',
    ['group'],
  );
  const duration = getOrCreateMetric(
    registry,
    'load_aware_trigger_evaluation_duration_seconds',
    (name) =>
      new Histogram({
        name,
        help: 'Time of one trigger check: describe the group, weigh, evaluate.',
        labelNames: ['group'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
  );
  const groupClaims = claims.get(registry) ?? new Map<string, Set<object>>();
  claims.set(registry, groupClaims);

  return {
    evaluation(group, outcome, e, durationSeconds) {
      evaluations.inc({ group, outcome });
      duration.observe({ group }, durationSeconds);
      if (e === undefined) return;
      g.load_aware_trigger_threshold_ratio.set({ group }, e.threshold);
      g.load_aware_trigger_violated_checks.set({ group }, e.violatedChecks);
      g.load_aware_trigger_cooldown_seconds.set({ group }, e.cooldownMs / 1000);
      if (e.lastFiredAt !== undefined)
        g.load_aware_trigger_last_fired_timestamp_seconds.set({ group }, e.lastFiredAt / 1000);
      if (e.shape !== undefined) {
        g.load_aware_trigger_members.set({ group }, e.shape.members);
        g.load_aware_trigger_instances.set({ group }, e.shape.instances);
        g.load_aware_trigger_partitions.set({ group }, e.shape.partitions);
        g.load_aware_trigger_defaulted_weights.set({ group }, e.shape.defaulted);
        g.load_aware_trigger_tracked_partitions.set({ group }, e.shape.weighted);
      }
      if (e.ratio !== undefined) g.load_aware_trigger_imbalance_ratio.set({ group }, e.ratio);
      if (e.memberRatio !== undefined) g.load_aware_trigger_member_imbalance_ratio.set({ group }, e.memberRatio);
      if (e.memberThreshold !== undefined)
        g.load_aware_trigger_member_threshold_ratio.set({ group }, e.memberThreshold);
      // Only the threshold trigger's own verdict: a composite's outcome may differ from its child's.
      if (e.level !== undefined) violations.inc({ group, level: e.level, outcome: e.outcome });
      if (e.currentMaxLoad !== undefined)
        g.load_aware_trigger_current_max_instance_load.set({ group }, e.currentMaxLoad);
      if (e.optimalMaxLoad !== undefined)
        g.load_aware_trigger_optimal_max_instance_load.set({ group }, e.optimalMaxLoad);
      if (e.price !== undefined) {
        g.load_aware_trigger_expected_gain.set({ group }, e.price.gain);
        g.load_aware_trigger_expected_cost.set({ group }, e.price.cost);
      }
    },
    coordinator(group, owner, isCoordinator) {
      let owners = groupClaims.get(group);
      if (owners === undefined) groupClaims.set(group, (owners = new Set()));
      if (isCoordinator && !owners.has(owner)) {
        // Zero series for every outcome, so rate() works from the first evaluation on.
        for (const outcome of [...outcomes, ...CONTROLLER_OUTCOMES]) evaluations.inc({ group, outcome }, 0);
        rebalances.inc({ group }, 0);
        for (const level of TRIGGER_LEVELS) {
          for (const outcome of VIOLATED_OUTCOMES) violations.inc({ group, level, outcome }, 0);
        }
        owners.add(owner);
      } else if (!isCoordinator) {
        owners.delete(owner);
      }
      coordinatorGauge.set({ group }, owners.size > 0 ? 1 : 0);
      if (owners.size === 0) {
        groupClaims.delete(group);
        // The coordinator is elsewhere now: stale figures here would double-count on dashboards.
        for (const gaugeOfGroup of Object.values(g)) gaugeOfGroup.remove({ group });
        for (const reason of LAG_UNMEASURED_REASONS) unmeasured.remove({ group, reason });
        for (const source of CAPACITY_SOURCES) capacity.remove({ group, source });
      }
    },
    rebalance(group, wasAdvised) {
      (wasAdvised ? advised : rebalances).inc({ group });
    },
    samplerError(group) {
      samplerErrors.inc({ group });
    },
    unheld(group, partitions) {
      g.load_aware_trigger_unheld_partitions.set({ group }, partitions);
    },
    sizing(group, sized) {
      if (sized === undefined) {
        g.load_aware_target_utilization.remove({ group });
        g.load_aware_desired_members.remove({ group });
        g.load_aware_desired_instances.remove({ group });
        g.load_aware_scale_out_futile.remove({ group });
        return;
      }
      g.load_aware_target_utilization.set({ group }, sized.targetUtilization);
      g.load_aware_desired_members.set({ group }, sized.size.desiredMembers);
      g.load_aware_desired_instances.set({ group }, sized.size.desiredInstances);
      g.load_aware_scale_out_futile.set({ group }, sized.size.futile ? 1 : 0);
    },
    memberCapacity(group, used) {
      // One series: the source in use. A capacity is never both.
      for (const source of CAPACITY_SOURCES) if (source !== used.source) capacity.remove({ group, source });
      capacity.set({ group, source: used.source }, used.memberCapacity);
    },
    lag(group, lag) {
      // A gauge stands for a number: an unknown figure is an absent series, never NaN or +Inf.
      const put = (gauge: Gauge, value: number | undefined) => {
        if (value === undefined) gauge.remove({ group });
        else gauge.set({ group }, value);
      };
      put(g.load_aware_group_lag_messages, lag?.lag);
      put(g.load_aware_group_lag_seconds, lag?.lagSeconds);
      const drain = lag?.drainSeconds;
      put(g.load_aware_group_drain_seconds, typeof drain === 'number' ? drain : undefined);
      put(g.load_aware_group_drain_never, drain === undefined ? undefined : drain === 'never' ? 1 : 0);
      for (const reason of LAG_UNMEASURED_REASONS) {
        if (lag === undefined) unmeasured.remove({ group, reason });
        else unmeasured.set({ group, reason }, lag.unmeasured[reason]);
      }
    },
  };
}
