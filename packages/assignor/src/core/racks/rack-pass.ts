import type { BalanceModel } from '../model/model.js';
import type { MoveAllowance } from '../solve/levels.js';
import { isCrossRack, type RackModel } from './rack-model.js';
import { equalTerms } from '../model/terms.js';
import { TARGET_LIMIT, bucketize, findPartners, findRelay, mayTrade, subscribes, type Phase } from './rack-trades.js';
import { noiseAt } from '../structures/numbers.js';
import { levelsOf } from './band.js';
import { instanceLoads } from './rack-floor.js';
import { weightedCount } from '../model/weights.js';

/** The steps rack matching may take (candidates looked at): linear, a few passes over the partitions at most. */
export function matchingWork(model: BalanceModel): { remaining: number } {
  return { remaining: 60 * model.partitionCount + 100_000 };
}

/**
 * Rack matching on the instance level, after the load search: partitions fetched from another rack move,
 * trade places, or relay through a third instance, to an instance in a rack holding one of their replicas
 * (their previous one first), while every instance stays inside the balance the search reached
 * (docs/racks.md, "How placement chooses"):
 *
 * - weighted partitions: no instance's level rises above the larger of the busiest and
 *   `lowerBound × (1 + tolerance)`, nor falls below the smaller of the least busy less half the tolerance and
 *   `mean × (1 − tolerance)`. A first round also holds each instance within half the tolerance of its own
 *   level, the band the next rebalance keeps as it is (so stickiness never undoes matched racks); a second
 *   round with the band alone follows, as cross-rack weight ranks above the levels below the busiest and the
 *   first round alone stops short where weights are lumpy;
 * - on equal terms each instance first keeps its count; then, where every count is one of two neighbours,
 *   any count in that band (zero-weight partitions always). A trade changes which topics an instance holds,
 *   so with mixed subscriptions it can break Kafka's rule, and `placeWithRacks` then drops the whole match.
 *
 * Heaviest first, moves, trades, then relays, in rounds until nothing improves: each step lowers the
 * cross-rack weight, so it ends. Taking a partition off its previous owner counts against
 * `maxMovesPerRebalance`. Deterministic: fixed orders, explicit ties. `work` caps the steps
 * ({@link matchingWork} unless a caller shares one budget across passes). Zero-weight partitions stay put:
 * {@link matchIdle} matches them once placed by count on what this leaves.
 */
export function matchRacks(
  model: BalanceModel,
  rm: RackModel,
  instance: Int32Array,
  homes: { readonly home: Int32Array; readonly counted: Uint8Array },
  level: { readonly tolerance: number; readonly moves: MoveAllowance },
  lowerBound: number,
  work: { remaining: number } = matchingWork(model),
): void {
  const split = weightedCount(model.weight);
  const capacity = model.instanceCapacity;
  const bins = capacity.length;

  // Weighted partitions, judged by combined load per unit of capacity.
  const load = instanceLoads(model, instance, split, false);
  const equal = equalTerms(model.weight, split, capacity, model.instanceBaseLoad);
  let total = 0;
  let totalCapacity = 0;
  for (let b = 0; b < bins; b++) {
    total += load[b]!;
    totalCapacity += capacity[b]!;
  }
  const band = levelsOf(load, capacity);
  const tolerance = equal ? 0 : level.tolerance;
  const ceiling = Math.max(band.max, lowerBound * (1 + tolerance));
  const floor = Math.min(band.min * (1 - tolerance / 2), (total / totalCapacity) * (1 - tolerance));
  const upper = new Float64Array(bins);
  const lower = new Float64Array(bins);
  for (let b = 0; b < bins; b++) {
    const own = load[b]! / capacity[b]!;
    upper[b] = Math.min(ceiling, Math.max(own, own * (1 + tolerance / 2))) * capacity[b]!;
    lower[b] = Math.max(floor, Math.min(own, own * (1 - tolerance / 2))) * capacity[b]!;
  }
  const weighted: Phase = { from: 0, to: split, weight: (p) => model.weight[p]!, load, upper, lower };
  runPhase(model, rm, instance, homes, level.moves, weighted, work);
  // One partition's worth of level, on equal terms (all weights and capacities alike).
  const unit = split > 0 ? model.weight[0]! / capacity[0]! : 0;
  if (!equal || ceiling - floor <= unit * (1 + 1e-9)) {
    // Weighted: the band alone. On equal terms with every count one of two neighbours, which instances carry
    // the extra partition is free (no pair can end two apart) and it belongs in racks short of room; this only
    // adds to the trades at fixed counts. A wider band (differing subscriptions) stays held per instance.
    for (let b = 0; b < bins; b++) {
      upper[b] = ceiling * capacity[b]!;
      lower[b] = floor * capacity[b]!;
    }
    runPhase(model, rm, instance, homes, level.moves, weighted, work);
  }
}

/**
 * Rack matching of the zero-weight partitions once placed by count: idle cross-rack partitions move or trade
 * in-rack while each instance's count (weighted included, per unit of capacity) stays at most the larger of
 * the current most and `ceiling`, the most the count phase keeps when placed again. Below, an instance may
 * give up all its idle partitions unless that leaves it holding nothing, which the next placement would lift
 * again. On Kafka's terms (`ceiling` 0) counts stay between the current least and most.
 */
export function matchIdle(
  model: BalanceModel,
  rm: RackModel,
  instance: Int32Array,
  homes: { readonly home: Int32Array; readonly counted: Uint8Array },
  moves: MoveAllowance,
  ceiling: number,
  work: { remaining: number } = matchingWork(model),
): void {
  const count = model.partitionCount;
  const split = weightedCount(model.weight);
  if (split === count) return;
  const capacity = model.instanceCapacity;
  const counts = instanceLoads(model, instance, count, true);
  const byCount = levelsOf(counts, capacity);
  const lower = capacity.map((c) => byCount.min * c);
  if (ceiling > 0) {
    const weighted = instanceLoads(model, instance, split, true);
    for (let b = 0; b < lower.length; b++) lower[b] = weighted[b]! > 0 ? weighted[b]! : Math.min(counts[b]!, 1);
  }
  const zero: Phase = {
    from: split,
    to: count,
    weight: () => 1,
    load: counts,
    upper: capacity.map((c) => Math.max(byCount.max, ceiling) * c),
    lower,
  };
  runPhase(model, rm, instance, homes, moves, zero, work);
}

/** Rounds of moves and swaps are few in practice; this bounds a pathological input. */
const MAX_ROUNDS = 8;

function runPhase(
  model: BalanceModel,
  rm: RackModel,
  instance: Int32Array,
  homes: { readonly home: Int32Array; readonly counted: Uint8Array },
  moves: MoveAllowance,
  phase: Phase,
  work: { remaining: number },
): void {
  const capacity = model.instanceCapacity;
  // Float noise allowance, relative to the loads compared.
  const eps = Float64Array.from(phase.upper, noiseAt);
  const fits = (b: number, next: number): boolean =>
    next <= phase.upper[b]! + eps[b]! && next >= phase.lower[b]! - eps[b]!;
  const moveDelta = (p: number, from: number, to: number): number => {
    if (homes.counted[p] === 0) return 0;
    const home = homes.home[p]!;
    return (to !== home ? 1 : 0) - (from !== home ? 1 : 0);
  };
  const relocate = (p: number, to: number): void => {
    const from = instance[p]!;
    const w = phase.weight(p);
    moves.used += moveDelta(p, from, to);
    phase.load[from] = phase.load[from]! - w;
    phase.load[to] = phase.load[to]! + w;
    instance[p] = to;
  };
  const width = rm.racks.length;
  const localTo = (p: number, b: number): boolean => {
    const rack = rm.instanceRack[b]!;
    const set = rm.setOf[p]!;
    return rack >= 0 && set >= 0 && rm.local[set * width + rack] === 1;
  };
  /** The previous instance of `p` when leaving it counted and `p` would be in-rack there, else -1. */
  const homeOf = (p: number): number => {
    const home = homes.counted[p] === 1 ? homes.home[p]! : -1;
    return home >= 0 && localTo(p, home) && subscribes(model, model.topicOf[p]!, home) ? home : -1;
  };

  for (let round = 0; round < MAX_ROUNDS && work.remaining > 0; round++) {
    let improved = false;
    // Moves: a cross-rack partition home if in-rack there with room (undoing a move), else to the least busy
    // in-rack subscriber with room.
    for (let p = phase.from; p < phase.to && work.remaining > 0; p++) {
      const a = instance[p]!;
      if (!isCrossRack(rm, p, a)) continue;
      const w = phase.weight(p);
      if (!fits(a, phase.load[a]! - w)) continue;
      const candidates = model.subscribersOf[model.topicOf[p]!]!.instances;
      work.remaining -= candidates.length;
      const home = homeOf(p);
      let best = home >= 0 && home !== a && fits(home, phase.load[home]! + w) ? home : -1;
      let bestLevel = best >= 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
      for (let k = 0; k < candidates.length; k++) {
        const b = candidates[k]!;
        if (!localTo(p, b) || !fits(b, phase.load[b]! + w)) continue;
        const levelAfter = (phase.load[b]! + w) / capacity[b]!;
        if (levelAfter < bestLevel) {
          bestLevel = levelAfter;
          best = b;
        }
      }
      if (best < 0 || moves.used + moveDelta(p, a, best) > moves.limit) continue;
      relocate(p, best);
      improved = true;
    }

    // Exchanges: a cross-rack partition trades places with partitions of an in-rack instance.
    const buckets = bucketize(model, rm, instance, phase);
    for (let p = phase.from; p < phase.to && work.remaining > 0; p++) {
      const a = instance[p]!;
      if (!isCrossRack(rm, p, a)) continue;
      const w = phase.weight(p);
      const candidates = model.subscribersOf[model.topicOf[p]!]!.instances;
      let tried = 0;
      // Home first (step -1); then from a position that depends on `p`, so equal partitions spread their trades.
      const home = homeOf(p);
      for (let step = home >= 0 ? -1 : 0; step < candidates.length && tried < TARGET_LIMIT; step++) {
        const b = step < 0 ? home : candidates[(p + step) % candidates.length]!;
        if (b === a || (step >= 0 && b === home) || !localTo(p, b)) continue;
        work.remaining--;
        // Targets with nothing that could come back do not count: else with equal weights the limit is hit early.
        if (!mayTrade(rm, phase, buckets[b]!, a, b, w)) continue;
        tried++;
        const partners = findPartners(model, rm, instance, phase, buckets, { p, a, b, w, work });
        if (partners === undefined) continue;
        let delta = moveDelta(p, a, b);
        for (const q of partners) delta += moveDelta(q, b, a);
        if (moves.used + delta > moves.limit) continue;
        relocate(p, b);
        for (const q of partners) relocate(q, a);
        improved = true;
        break;
      }
    }

    // Relays: a cross-rack partition moves in-rack where its instance or target alone may not, a third
    // instance making up the difference. With equal weights this moves the extra partition of Kafka's counts
    // from a rack with room to spare into one short of it.
    const bands = { fits, localTo };
    for (let p = phase.from; p < phase.to && work.remaining > 0; p++) {
      const a = instance[p]!;
      if (!isCrossRack(rm, p, a)) continue;
      const relay = findRelay(model, rm, instance, phase, buckets, bands, { p, a, w: phase.weight(p), work });
      if (relay === undefined) continue;
      const delta = moveDelta(p, a, relay.b) + moveDelta(relay.q, relay.from, relay.to);
      if (moves.used + delta > moves.limit) continue;
      relocate(p, relay.b);
      relocate(relay.q, relay.to);
      improved = true;
    }
    if (!improved) return;
  }
}
