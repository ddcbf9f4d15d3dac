/** Plain data shapes of the trigger's decision: what it observes and what it concludes. */
import type { BalanceResult, WeightedPartition } from '@load-aware/assignor';
import type { ObservedMember } from './load.js';

/** What one evaluation concluded. */
export type TriggerOutcome =
  | 'fired'
  | 'balanced'
  | 'awaiting_hysteresis'
  | 'cooldown_suppressed'
  | 'group_not_stable'
  | 'no_members'
  | 'weights_unknown';

/** Every outcome, in a stable order (metrics initialise one series per outcome). */
export const TRIGGER_OUTCOMES: ReadonlyArray<TriggerOutcome> = [
  'fired',
  'balanced',
  'awaiting_hysteresis',
  'cooldown_suppressed',
  'group_not_stable',
  'no_members',
  'weights_unknown',
];

/** One look at the group. */
export interface Observation {
  /** The group state as DescribeGroups reports it: `Stable`, `PreparingRebalance`, ... */
  readonly state: string;
  readonly members: ReadonlyArray<ObservedMember>;
  /** Partitions with their weights; missing or unusable weights count as the default. */
  readonly partitions: ReadonlyArray<WeightedPartition>;
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

/** The result of {@link ThresholdTrigger.evaluate}. Load figures are per unit of capacity. */
export interface Evaluation {
  readonly outcome: TriggerOutcome;
  /** current ÷ optimal max instance load; undefined when the group was not judged. */
  readonly ratio: number | undefined;
  readonly currentMaxLoad: number | undefined;
  /** Max instance load of the assignment `balance()` produces for the same members and weights. */
  readonly optimalMaxLoad: number | undefined;
  readonly threshold: number;
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
}
