import { ASSIGNER_NAME, type Logger } from '@load-aware/assignor';
import { escapeLogText } from '@load-aware/assignor/internal';
import { isThresholdEvaluation, thresholdEvaluations } from '../triggers/decision.js';
import { ratioText, seconds } from '../contract/text.js';
import type { CooldownGrowth, Evaluation, TriggerDecision } from '../contract/types.js';

/** Who is logging and what the group looked like, for every line of one check. */
export interface CheckContext {
  readonly groupId: string;
  readonly memberId: string;
  /** The protocol the group runs. */
  readonly protocol: string;
  /** Members without load-aware userData (older versions, other assigners). */
  readonly foreignMembers: number;
}

/**
 * Writes the coordinator's lines for one decision of any trigger. A threshold evaluation gets
 * exactly its own lines ({@link logEvaluation}); any other decision gets the lines of the threshold
 * evaluations inside it (a composite's children) and then one line of its own: INFO when it fired,
 * DEBUG otherwise, like the threshold's routine checks.
 */
export function logDecision(logger: Logger, ctx: CheckContext, d: TriggerDecision): void {
  for (const e of thresholdEvaluations(d)) logEvaluation(logger, ctx, e);
  if (isThresholdEvaluation(d)) return;
  const fields = { memberId: ctx.memberId, trigger: d.kind, outcome: d.outcome, reason: d.reason };
  // A custom trigger's reason is any text: escape it in the message (the field is structured).
  if (d.outcome === 'fired') logger.info(fields, escapeLogText(`trigger fired: ${d.reason}`));
  else logger.debug(fields, escapeLogText(`trigger did not fire (${d.outcome}): ${d.reason}`));
}

/**
 * Writes the coordinator's lines for one evaluation (docs/architecture.md, "Trigger"): each
 * violated check with k/n, suppression by the cooldown, cooldown growth with its likely causes (WARN), and the group
 * balanced again. Routine balanced and unjudged checks go to DEBUG. `logger` already carries the
 * `component` and `groupId` (see `bindLogger`), so the lines do not repeat them.
 */
export function logEvaluation(logger: Logger, ctx: CheckContext, e: Evaluation): void {
  const fields = {
    memberId: ctx.memberId,
    outcome: e.outcome,
    ratio: e.ratio,
    threshold: e.threshold,
    currentMaxLoad: e.currentMaxLoad,
    optimalMaxLoad: e.optimalMaxLoad,
    level: e.level,
    memberRatio: e.memberRatio,
    memberThreshold: e.memberThreshold,
    memberInstanceId: e.memberInstanceId,
    currentMaxMemberLoad: e.currentMaxMemberLoad,
    optimalMaxMemberLoad: e.optimalMaxMemberLoad,
    violatedChecks: e.violatedChecks,
    minViolatedChecks: e.minViolatedChecks,
    cooldownMs: e.cooldownMs,
  };
  if (e.cooldownGrowth !== undefined) logCooldownGrowth(logger, ctx, e, e.cooldownGrowth);
  // The instance id comes from a member's userData: escape it in the message.
  const above =
    e.level === 'member'
      ? escapeLogText(
          `member load imbalance ratio ${ratioText(e.memberRatio)} inside instance ${e.memberInstanceId ?? 'n/a'} ` +
            `above member threshold ${ratioText(e.memberThreshold)}`,
        )
      : `load imbalance ratio ${ratioText(e.ratio)} above threshold ${ratioText(e.threshold)}`;
  const k = `${String(e.violatedChecks)}/${String(e.minViolatedChecks)}`;
  switch (e.outcome) {
    case 'awaiting_hysteresis':
    case 'fired':
      logger.info(fields, `${above} (violated check ${k})`);
      return;
    case 'cooldown_suppressed':
      logger.info(
        { ...fields, cooldownRemainingMs: e.cooldownRemainingMs },
        `${above} (violated check ${k}); rebalance suppressed by cooldown: next allowed in ` +
          `${seconds(e.cooldownRemainingMs)} (cooldown ${seconds(e.cooldownMs)})`,
      );
      return;
    case 'balanced':
      if (e.balancedAgain) {
        logger.info(
          fields,
          `group balanced again: ratio ${ratioText(e.ratio)} within threshold ${ratioText(e.threshold)}` +
            `${memberPart(e)}; ` +
            `cooldown back to ${seconds(e.cooldownMs)}`,
        );
      } else {
        logger.debug(fields, `group balanced: ratio ${ratioText(e.ratio)}${memberPart(e)}`);
      }
      return;
    default:
      logger.debug(fields, `group not judged: ${e.outcome}`);
  }
}

/** `, member ratio r within t` when the member level is on, else nothing. */
function memberPart(e: Evaluation): string {
  return e.memberRatio === undefined
    ? ''
    : `, member ratio ${ratioText(e.memberRatio)} within ${ratioText(e.memberThreshold)}`;
}

/** The WARN after a fire that did not bring the group within the threshold. */
function logCooldownGrowth(logger: Logger, ctx: CheckContext, e: Evaluation, growth: CooldownGrowth): void {
  const causes = likelyCauses(ctx, growth);
  const within =
    e.level === 'member'
      ? `member threshold ${ratioText(e.memberThreshold)} (member ratio now ${ratioText(e.memberRatio)})`
      : `threshold ${ratioText(e.threshold)} (ratio now ${ratioText(e.ratio)})`;
  const change =
    growth.toMs > growth.fromMs
      ? `cooldown doubled from ${seconds(growth.fromMs)} to ${seconds(growth.toMs)}`
      : `cooldown stays at its maximum ${seconds(growth.toMs)}`;
  logger.warn(
    {
      memberId: ctx.memberId,
      level: e.level,
      ratio: e.ratio,
      threshold: e.threshold,
      memberRatio: e.memberRatio,
      memberThreshold: e.memberThreshold,
      cooldownMs: growth.toMs,
      previousCooldownMs: growth.fromMs,
      causes: causes.map((c) => c.code),
    },
    `the last triggered rebalance did not bring the group within ${within}; ${change}. Likely causes: ${causes.map((c) => c.text).join('; ')}`,
  );
}

/** Why a rebalance may not have helped, most specific first. */
export function likelyCauses(ctx: CheckContext, growth: CooldownGrowth): Array<{ code: string; text: string }> {
  const causes: Array<{ code: string; text: string }> = [];
  if (ctx.protocol !== ASSIGNER_NAME) {
    causes.push({
      code: 'foreign_protocol',
      // The protocol name is whatever the members' assigners call themselves: escape it.
      text: `the group runs protocol ${escapeLogText(ctx.protocol)}, not ${ASSIGNER_NAME}: some member does not offer the load-aware assigner`,
    });
  }
  if (ctx.foreignMembers > 0) {
    causes.push({
      code: 'members_without_user_data',
      text: `${String(ctx.foreignMembers)} member(s) send no load-aware userData and count as instances of their own`,
    });
  }
  if (!growth.assignmentChangedSinceFire) {
    causes.push({
      code: 'assignment_unchanged',
      text:
        'the assignment did not change: the rebalance may not have happened, or the leader fell back to ' +
        'round-robin (see its WARN)',
    });
  } else {
    causes.push(
      {
        code: 'volatile_weights',
        text: 'weights changed between the rebalance and this check (load moves faster than the cooldown)',
      },
      {
        code: 'weights_disagree',
        text: 'the leader weighs partitions differently from the coordinator (another weight source or sampler history)',
      },
    );
  }
  return causes;
}
