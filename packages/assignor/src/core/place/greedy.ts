import type { BalanceModel } from '../model/model.js';

/** Mutable per-instance and per-member tallies shared by the placement steps. */
export interface Tallies {
  readonly instanceLoad: Float64Array;
  readonly instanceCount: Int32Array;
  readonly memberLoad: Float64Array;
  readonly memberCount: Int32Array;
}

/** Fresh tallies for a model: instances carry their base loads, everything else is zero. */
export function emptyTallies(model: BalanceModel): Tallies {
  return {
    instanceLoad: Float64Array.from(model.instanceBaseLoad),
    instanceCount: new Int32Array(model.instanceIds.length),
    memberLoad: new Float64Array(model.memberIds.length),
    memberCount: new Int32Array(model.memberIds.length),
  };
}

/**
 * The reference placement (docs/architecture.md, "Placement rule"): partitions heaviest first, each onto
 * the eligible instance whose load per unit of capacity would be smallest after taking it, then onto that
 * instance's least-loaded subscribed member; zero-weight partitions by count at both levels; ties to the
 * lower index (the smaller id: the model is sorted by id). Returns the owning member of each partition.
 *
 * `placeGreedily()` (fast-greedy.ts) applies the same rule with tournaments. This plain loop is kept apart
 * on purpose as the oracle `referenceBalance()` and the property tests check the fast path against: an
 * oracle sharing its code could not catch its mistakes.
 */
export function placeGreedy(model: BalanceModel, tallies: Tallies = emptyTallies(model)): Int32Array {
  const owner = new Int32Array(model.partitionCount);
  const { instanceLoad, instanceCount, memberLoad, memberCount } = tallies;
  const capacity = model.instanceCapacity;
  for (let p = 0; p < model.partitionCount; p++) {
    const weight = model.weight[p]!;
    const subs = model.subscribersOf[model.topicOf[p]!]!;
    const byCount = weight === 0;

    let bestSlot = 0;
    let bestPrimary = Infinity;
    let bestSecondary = Infinity;
    for (let slot = 0; slot < subs.instances.length; slot++) {
      const i = subs.instances[slot]!;
      const cap = capacity[i]!;
      const loadAfter = (instanceLoad[i]! + weight) / cap;
      const countAfter = (instanceCount[i]! + 1) / cap;
      const primary = byCount ? countAfter : loadAfter;
      const secondary = byCount ? loadAfter : countAfter;
      if (primary < bestPrimary || (primary === bestPrimary && secondary < bestSecondary)) {
        bestSlot = slot;
        bestPrimary = primary;
        bestSecondary = secondary;
      }
    }

    const candidates = subs.membersByInstance[bestSlot]!;
    let member = candidates[0]!;
    for (let c = 1; c < candidates.length; c++) {
      const m = candidates[c]!;
      const lighter = byCount
        ? memberCount[m]! < memberCount[member]! ||
          (memberCount[m] === memberCount[member] && memberLoad[m]! < memberLoad[member]!)
        : memberLoad[m]! < memberLoad[member]! ||
          (memberLoad[m] === memberLoad[member] && memberCount[m]! < memberCount[member]!);
      if (lighter) member = m;
    }

    const instance = subs.instances[bestSlot]!;
    owner[p] = member;
    instanceLoad[instance] = instanceLoad[instance]! + weight;
    instanceCount[instance] = instanceCount[instance]! + 1;
    memberLoad[member] = memberLoad[member]! + weight;
    memberCount[member] = memberCount[member]! + 1;
  }
  return owner;
}
