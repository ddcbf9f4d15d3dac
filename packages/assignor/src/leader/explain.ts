import type { BalanceResult } from '../core/types.js';

/** A defaulted weight this much below the median measured weight makes a partition look free. */
const NEARLY_FREE_FRACTION = 0.1;

/** Why an assignment may be uneven, as stable codes plus readable text. */
export interface UnevennessFactor {
  readonly code:
    | 'no_usable_weights'
    | 'some_weights_defaulted'
    | 'defaulted_nearly_free'
    | 'all_weights_zero'
    | 'partition_heavier_than_share'
    | 'restricted_topics'
    | 'more_instances_than_partitions'
    | 'uneven_member_counts';
  readonly text: string;
}

/** The data behind the assignment log: one summary, one line per instance, skew and factors. */
export interface AssignmentExplanation {
  readonly summary: string;
  readonly instanceLines: ReadonlyArray<string>;
  readonly skew: string;
  /** max instance load (per capacity) ÷ ideal even share; 1 when there is no load. */
  readonly skewRatio: number;
  /** With base loads (cross-group balancing), the combined busiest load against the combined ideal. */
  readonly combinedSkew: string | undefined;
  /** max combined load ÷ combined ideal; equal to `skewRatio` without base loads. */
  readonly combinedSkewRatio: number;
  /** The max instance load against the lower bound no placement can beat. */
  readonly optimality: string;
  /** What stickiness did: how many previously owned partitions changed owner. */
  readonly moves: string;
  /** How much load is fetched across racks and why; undefined when no instance has a rack. */
  readonly racks: string | undefined;
  /** Cross-rack weight ÷ total weight (0 without racks or load), and the least possible share. */
  readonly crossRackShare: number;
  readonly crossRackShareLowerBound: number;
  readonly factors: ReadonlyArray<UnevennessFactor>;
  /** One line per member, for DEBUG. */
  readonly memberLines: ReadonlyArray<string>;
}

/**
 * Explains a balance result in the words of the assignment log (docs/observability.md, "Logs"): sizes, each
 * instance's share, the skew against an even split, and the factors that keep a group uneven however placed.
 */
export function explain(result: BalanceResult, defaultWeight: number): AssignmentExplanation {
  const { instances, members, partitionCount, totalWeight, defaultedCount } = result;
  const scaled =
    result.weightScale === 1
      ? ''
      : `, weights scaled by 2^${String(Math.log2(result.weightScale))} so sums cannot overflow (loads below are scaled)`;
  const summary =
    `${count(instances.length, 'instance')}, ${count(members.length, 'member')}, ` +
    `${count(partitionCount, 'partition')}, total weight ${fmt(totalWeight)}, ${String(defaultedCount)} defaulted${scaled}`;
  const based = instances.some((i) => i.baseLoad > 0);
  const instanceLines = instances.map((i) => {
    const share = totalWeight > 0 ? (100 * i.load) / totalWeight : 0;
    // Loads are balanced per unit of capacity: show that figure, which is what skew compares.
    const balanced = based ? i.combinedLoad : i.load;
    const cap = i.capacity === 1 ? '' : `, capacity ${fmt(i.capacity)} (${fmt(balanced / i.capacity)} per unit)`;
    // With other groups' load, the line reads base + group = combined: the sum is what was balanced.
    const load = based
      ? `base ${fmt(i.baseLoad)} + group ${fmt(i.load)} (${share.toFixed(1)}%) = combined ${fmt(i.combinedLoad)}`
      : `load ${fmt(i.load)} (${share.toFixed(1)}%)`;
    const rack = i.rack === undefined ? '' : ` (rack ${i.rack})`;
    return (
      `instance ${i.instanceId}${rack}: ${load}, ` +
      `${count(i.partitionCount, 'partition')}, ${count(i.memberIds.length, 'member')}${cap}`
    );
  });
  const skewRatio = result.idealLoad > 0 ? result.maxInstanceLoad / result.idealLoad : 1;
  const skew = `skew: max instance load ${fmt(result.maxInstanceLoad)} vs ideal ${fmt(result.idealLoad)} (${skewRatio.toFixed(2)}x)`;
  const combinedSkewRatio = result.idealCombinedLoad > 0 ? result.maxCombinedLoad / result.idealCombinedLoad : 1;
  const combinedSkew = based
    ? `combined skew: max combined load ${fmt(result.maxCombinedLoad)} vs ideal ${fmt(result.idealCombinedLoad)} (${combinedSkewRatio.toFixed(2)}x)`
    : undefined;
  const memberLines = members.map(
    (m) => `member ${m.memberId} @ ${m.instanceId}: load ${fmt(m.load)}, ${count(m.partitionCount, 'partition')}`,
  );
  return {
    summary,
    instanceLines,
    skew,
    skewRatio,
    combinedSkew,
    combinedSkewRatio,
    optimality: optimalityLine(result),
    moves: movesLine(result),
    racks: racksLine(result),
    crossRackShare: totalWeight > 0 ? result.crossRackWeight / totalWeight : 0,
    crossRackShareLowerBound: totalWeight > 0 ? result.crossRackLowerBound / totalWeight : 0,
    factors: unevennessFactors(result, defaultWeight),
    memberLines,
  };
}

function optimalityLine(result: BalanceResult): string {
  const ratio = result.optimalityRatio;
  const verdict = result.lowerBound > 0 && ratio === 1 ? ': optimal' : '';
  const which = result.instances.some((i) => i.baseLoad > 0) ? 'combined' : 'instance';
  return (
    `optimality: max ${which} load ${fmt(result.maxCombinedLoad)} vs lower bound ${fmt(result.lowerBound)} ` +
    `(${ratio.toFixed(2)}x${verdict})`
  );
}

/** The racks line: the cross-rack share, its forced and balance-first parts, and the least share possible. */
function racksLine(result: BalanceResult): string | undefined {
  if (!result.instances.some((i) => i.rack !== undefined)) return undefined;
  const total = result.totalWeight;
  const pct = (w: number): string => `${(total > 0 ? (100 * w) / total : 0).toFixed(1)}%`;
  const cross = result.crossRackWeight;
  if (result.crossRackPartitions === 0)
    return 'racks: every partition is fetched in-rack (0.0% of the load crosses racks)';
  const forced = result.crossRackForcedWeight;
  const reasons: string[] = [];
  if (forced > 0) reasons.push(`${pct(forced)} has no in-rack subscriber`);
  if (cross - forced > 0) reasons.push(`${pct(cross - forced)} because balance came first`);
  return (
    `racks: ${pct(cross)} of the load (${count(result.crossRackPartitions, 'partition')}) is fetched across racks` +
    `${reasons.length > 0 ? ` (${reasons.join(', ')})` : ''}; at least ${pct(result.crossRackLowerBound)} must at this balance`
  );
}

function movesLine(result: BalanceResult): string {
  const owned = result.previouslyOwnedCount;
  if (owned === 0) return 'moves: no previous owner known for any partition';
  const forced = result.forcedMoveCount;
  const because = forced > 0 ? ` (${String(forced)} because their owner left or unsubscribed)` : '';
  return `moves: ${String(result.movedCount)} of ${count(owned, 'previously owned partition')} changed owner${because}`;
}

function unevennessFactors(result: BalanceResult, defaultWeight: number): UnevennessFactor[] {
  const factors: UnevennessFactor[] = [];
  const { partitionCount, defaultedCount, instances } = result;
  if (partitionCount > 0 && defaultedCount >= partitionCount) {
    factors.push({ code: 'no_usable_weights', text: 'no usable weight for any partition: balanced by count only' });
  } else if (defaultedCount > 0) {
    factors.push({
      code: 'some_weights_defaulted',
      text: `${String(defaultedCount)} of ${String(partitionCount)} partitions have no usable weight`,
    });
    const median = result.medianMeasuredWeight;
    // The result's weights are scaled (see weightScale); the default compares in the same units.
    if (median !== undefined && defaultWeight * result.weightScale < NEARLY_FREE_FRACTION * median) {
      factors.push({
        code: 'defaulted_nearly_free',
        text: `defaulted partitions weigh ${fmt(defaultWeight)}, far below the median measured weight ${fmt(median)}: they are placed as if nearly free`,
      });
    }
  }
  if (partitionCount > 0 && result.totalWeight === 0) {
    factors.push({ code: 'all_weights_zero', text: 'every weight is zero: balanced by count only' });
  }
  // The heaviest partition forces unevenness only if even the largest instance's ideal share cannot absorb it.
  const largestCapacity = instances.reduce((max, i) => Math.max(max, i.capacity), 0);
  const largestShare = result.idealLoad * largestCapacity;
  if (instances.length > 1 && largestShare > 0 && result.heaviestWeight > largestShare) {
    factors.push({
      code: 'partition_heavier_than_share',
      text: `one partition alone (${fmt(result.heaviestWeight)}) is heavier than the ideal share ${fmt(largestShare)}`,
    });
  }
  if (result.restrictedTopics.length > 0) {
    factors.push({
      code: 'restricted_topics',
      text: `topics subscribed by only some instances: ${result.restrictedTopics.join(', ')}`,
    });
  }
  if (instances.length > partitionCount) {
    factors.push({
      code: 'more_instances_than_partitions',
      text: `${count(instances.length, 'instance')} share ${count(partitionCount, 'partition')}`,
    });
  }
  const memberCounts = new Set(instances.map((i) => i.memberIds.length));
  if (memberCounts.size > 1) {
    factors.push({
      code: 'uneven_member_counts',
      text: `instances run different member counts (${[...memberCounts].sort((a, b) => a - b).join(', ')}): members of smaller instances run hotter`,
    });
  }
  return factors;
}

function count(n: number, noun: string): string {
  return `${String(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * Compact numbers for logs: integers as is, others to 2 decimals, below 0.01 to 3 significant digits, as
 * loads per unit of a large capacity are small and "0.00 vs ideal 0.00" would hide the skew.
 */
function fmt(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return Math.abs(n) >= 0.01 ? n.toFixed(2) : String(Number(n.toPrecision(3)));
}
