/** Plain data shapes of the triggers' decisions: what they observe and what they conclude. */
import type { BalanceResult, WeightedPartition } from '@load-aware/assignor';
import type { ObservedMember } from '@load-aware/assignor/internal';

/**
 * What one evaluation concluded. A closed set, because it is the `outcome` label of
 * `load_aware_trigger_evaluations_total`: custom triggers pick from it too, so the label stays
 * bounded. `fired` is the only outcome that rebalances; `not_due` means "not now" (a period that
 * has not elapsed, a time window that is closed, another group's cross-group turn);
 * `siblings_unavailable` means a group of the cross-group set is rebalancing or cannot be read, so
 * the combined load is not known; `gain_below_cost` means the imbalance is confirmed but a rebalance
 * would cost more than it gains; `member_away` is the controller's own (never a trigger's, so it
 * is not in {@link TRIGGER_OUTCOMES}): a fire held because a static member of the group is away.
 */
export type TriggerOutcome =
  | 'fired'
  | 'balanced'
  | 'awaiting_hysteresis'
  | 'cooldown_suppressed'
  | 'group_not_stable'
  | 'no_members'
  | 'weights_unknown'
  | 'not_due'
  | 'siblings_unavailable'
  | 'gain_below_cost'
  | 'member_away';

/** Every outcome, in a stable order: what the controller accepts from a trigger. */
export const TRIGGER_OUTCOMES: ReadonlyArray<TriggerOutcome> = [
  'fired',
  'balanced',
  'awaiting_hysteresis',
  'cooldown_suppressed',
  'group_not_stable',
  'no_members',
  'weights_unknown',
  'not_due',
  'siblings_unavailable',
  'gain_below_cost',
];

/**
 * What every trigger concludes from one observation: the part the controller acts on, counts and
 * logs. Each shipped trigger returns a richer shape that extends this one ({@link Evaluation},
 * {@link PeriodicDecision}, {@link CompositeDecision}).
 */
export interface TriggerDecision {
  /** `fired` makes the controller rebalance the group; any other outcome leaves the group alone. */
  readonly outcome: TriggerOutcome;
  /** One sentence saying why, for the log (never a metric label, so it may carry numbers). */
  readonly reason: string;
  /**
   * Which kind of trigger decided: `threshold`, `periodic` and `composite` for the shipped ones; a
   * custom trigger may name itself. Logged as `trigger`; the controller also uses it to find
   * threshold evaluations inside composites for the ratio gauges and log lines.
   */
  readonly kind?: string;
}

/** One look at the group. */
export interface Observation {
  /** The group state as DescribeGroups reports it: `Stable`, `PreparingRebalance`, ... */
  readonly state: string;
  readonly members: ReadonlyArray<ObservedMember>;
  /** Partitions with their weights; missing or unusable weights count as the default. */
  readonly partitions: ReadonlyArray<WeightedPartition>;
  /** What the other groups of the cross-group set add; undefined when cross-group is off. */
  readonly siblings?: SiblingLoad | undefined;
}

/** The load the other groups of a cross-group set put on the instances, as one check read it. */
export interface SiblingLoad {
  /** Load each instance carries from the other groups, in the weights' units. */
  readonly instanceBaseLoad: ReadonlyMap<string, number>;
  /** Who holds what in the other groups: it changes whenever one of their assignments does. */
  readonly fingerprint: string;
  /**
   * Groups whose load is not known now: rebalancing, or not readable without a recent reading.
   * The threshold trigger does not judge while any is listed (`siblings_unavailable`).
   */
  readonly unavailable: ReadonlyArray<{ readonly groupId: string; readonly reason: string }>;
}

/** Set when a fire turned out not to bring the group within the threshold. */
export interface CooldownGrowth {
  readonly fromMs: number;
  /** The new cooldown: doubled, at most `maxCooldownMs` (equal to `fromMs` once at the maximum). */
  readonly toMs: number;
  /** False when the assignment is still the one seen when firing: the rebalance changed nothing. */
  readonly assignmentChangedSinceFire: boolean;
}

/** The size of a judged group. */
export interface GroupShape {
  readonly members: number;
  readonly instances: number;
  readonly partitions: number;
  /** Partitions without a usable weight, counted at the default weight. */
  readonly defaulted: number;
  /** Partitions with a usable weight. */
  readonly weighted: number;
}

/**
 * Which rule of the threshold trigger found the group imbalanced: `instance` (current ÷ optimal
 * max instance load) or `member` (inside one instance, current ÷ planned busiest member load). A
 * bounded metric label.
 */
export type TriggerLevel = 'instance' | 'member';

/** Every level, in a stable order. */
export const TRIGGER_LEVELS: ReadonlyArray<TriggerLevel> = ['instance', 'member'];

/** The result of {@link ThresholdTrigger.evaluate}. Load figures are per unit of capacity. */
export interface Evaluation extends TriggerDecision {
  readonly kind: 'threshold';
  readonly outcome: TriggerOutcome;
  /**
   * current ÷ optimal max instance load; undefined when the group was not judged. With cross-group
   * balancing both loads are combined ones (the other groups' load on each instance included).
   */
  readonly ratio: number | undefined;
  readonly currentMaxLoad: number | undefined;
  /** Max instance load of the assignment `balance()` produces for the same members and weights. */
  readonly optimalMaxLoad: number | undefined;
  readonly threshold: number;
  /**
   * The level this check found above its threshold: `instance` whenever the instance ratio is
   * (whatever the member ratio), `member` when only the member ratio is; undefined on a balanced
   * or unjudged check. For `fired`, the level that fired.
   */
  readonly level: TriggerLevel | undefined;
  /**
   * The largest, over instances with two members or more, of the busiest member's load now ÷ its
   * load after `balance()` re-places that instance's partitions among its members (1 when no
   * instance has two members); undefined when the group was not judged or the member level is off.
   */
  readonly memberRatio: number | undefined;
  /** The member-level threshold; undefined when the member level is off. */
  readonly memberThreshold: number | undefined;
  /** The instance whose members gave `memberRatio`; undefined when none was judged. */
  readonly memberInstanceId: string | undefined;
  /** That instance's busiest member load now. */
  readonly currentMaxMemberLoad: number | undefined;
  /** That instance's busiest member load after `balance()`. */
  readonly optimalMaxMemberLoad: number | undefined;
  /** The hysteresis streak including this check (for `fired`, the streak that fired; it restarts at 0). */
  readonly violatedChecks: number;
  readonly minViolatedChecks: number;
  /** The effective cooldown after this check. */
  readonly cooldownMs: number;
  /** Time left before the next fire is allowed (0 when none). */
  readonly cooldownRemainingMs: number;
  /** Wall-clock time (ms since the epoch) of the last fire; the cooldown itself runs on a monotonic clock. */
  readonly lastFiredAt: number | undefined;
  readonly cooldownGrowth: CooldownGrowth | undefined;
  /** True on the first balanced check after violated checks or a fire. */
  readonly balancedAgain: boolean;
  /** Undefined when the group was not judged far enough to count it. */
  readonly shape: GroupShape | undefined;
  /** What a rebalance would produce now; undefined when the group was not judged. */
  readonly plan: BalanceResult | undefined;
  /**
   * What a fire would buy and cost, in load units × seconds (events, with offset-rate weights);
   * undefined unless the check got as far as pricing a fire (a confirmed imbalance past the cooldown).
   */
  readonly price: FirePrice | undefined;
}

/** A fire's expected gain against its expected cost; see `minGainToCost`. */
export interface FirePrice {
  /** (current − planned busiest load) × the horizon: the excess load a fire removes until the next may come. */
  readonly gain: number;
  /** Paused member-seconds × the group's load per member: the work a rebalance's pause holds up. */
  readonly cost: number;
  /** The seconds the gain is integrated over: the cooldown, at least 60. */
  readonly horizonSeconds: number;
  /** The paused member-seconds the cost assumes. */
  readonly pausedMemberSeconds: number;
  /** `measured`: from the members' last reported rebalance; `assumed`: 1 s per member, none reported yet. */
  readonly pauseSource: 'measured' | 'assumed';
}

/** The result of {@link PeriodicTrigger.evaluate}. */
export interface PeriodicDecision extends TriggerDecision {
  readonly kind: 'periodic';
  /** The configured period. */
  readonly intervalMs: number;
  /** Time left until the trigger is due (0 once due: it fires at the next Stable check). */
  readonly dueInMs: number;
  /** Wall-clock time (ms since the epoch) of the last fire; the period runs on a monotonic clock. */
  readonly lastFiredAt: number | undefined;
}

/** How a composite combines its children: fire when all of them fire, or when any does. */
export type CompositeMode = 'all' | 'any';

/** The result of {@link CompositeTrigger.evaluate}. */
export interface CompositeDecision extends TriggerDecision {
  readonly kind: 'composite';
  readonly mode: CompositeMode;
  /**
   * Every child's own decision of this check, in the order the children were given. A child's
   * `fired` is its vote: the composite may still hold (see {@link createCompositeTrigger}).
   */
  readonly children: ReadonlyArray<TriggerDecision>;
}
