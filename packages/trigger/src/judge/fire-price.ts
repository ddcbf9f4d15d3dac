import { latestGroupPause, type ObservedMember } from '@load-aware/assignor/internal';
import { figure } from '../contract/text.js';
import type { FirePrice } from '../contract/types.js';

/** Shortest horizon a fire's gain is counted over: a cooldown of 0 must not make every fire free. */
export const MIN_HORIZON_SECONDS = 60;
/** Paused seconds per member assumed until the group reports a measured rebalance. */
export const ASSUMED_PAUSE_SECONDS_PER_MEMBER = 1;

/**
 * What a fire would buy against what it would cost, in load × seconds (events, with offset-rate
 * weights). Under the eager protocol a rebalance stops every member: the cost is the work held up
 * meanwhile, the group's paused member-seconds times its load per member. The gain is the excess
 * load taken off the busiest instance, for as long as the next fire cannot come anyway (the
 * cooldown): at the instance level the busiest instance's, at the member level the busiest
 * member's. Loads are in the units `balance()` judged them in (scaled alike when weights are huge),
 * so gain and cost compare like with like. The paused member-seconds are the group's own, from the latest rebalance its members
 * reported in their userData; until one is reported, 1 s per member (what KafkaJS's defaults cost).
 */
export function priceOf(
  members: ReadonlyArray<ObservedMember>,
  totalLoad: number,
  excessLoad: number,
  cooldownMs: number,
): FirePrice {
  const horizonSeconds = Math.max(MIN_HORIZON_SECONDS, cooldownMs / 1000);
  const total = totalLoad;
  const measured = latestGroupPause(members)?.pausedMemberSeconds;
  const pausedMemberSeconds = measured ?? members.length * ASSUMED_PAUSE_SECONDS_PER_MEMBER;
  const perMember = members.length === 0 ? 0 : total / members.length;
  return {
    gain: Math.max(0, excessLoad) * horizonSeconds,
    cost: pausedMemberSeconds * perMember,
    horizonSeconds,
    pausedMemberSeconds,
    pauseSource: measured === undefined ? 'assumed' : 'measured',
  };
}

/** How the price was made, for the decision line. */
export function priceText(price: FirePrice): string {
  return (
    `${figure(price.pausedMemberSeconds)} paused member-s ${price.pauseSource}, ` +
    `gain over ${figure(price.horizonSeconds)} s`
  );
}
