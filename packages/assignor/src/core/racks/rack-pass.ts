import type { BalanceModel } from '../model/model.js';
import { hasInstance } from '../model/subscribers.js';
import type { MoveAllowance } from '../solve/levels.js';
import { isCrossRack, type RackModel } from './rack-model.js';
import { equalTerms } from './terms.js';
import { noiseAt } from '../structures/numbers.js';

/**
 * Rack matching on the instance level, after the load search: partitions fetched from another
 * rack move, trade places, or relay through a third instance, to an instance in a rack holding
 * one of their replicas (their previous one first), as long as every instance stays inside the
 * balance the search reached (docs/racks.md, "How placement chooses"):
 *
 * - weighted partitions: no instance's load per unit of capacity rises above the larger of the
 *   busiest level and `lowerBound × (1 + tolerance)`, nor falls below the smaller of the least
 *   busy level less half the tolerance and `mean × (1 − tolerance)`, and each instance stays
 *   within half the tolerance of its own level: inside the band in which the next rebalance's
 *   search keeps the placement as it is (so stickiness never undoes matched racks). Then a
 *   second round with only the band: the objective ranks cross-rack weight above the balance of
 *   the instances below the busiest, and the first round alone stops short of it where weights
 *   are lumpy (300 log-normal partitions on 10/10/10 instances, RF 1, 12 seeds: 2.19% fetched
 *   across racks on average with the first round only, 1.76% with both);
 * - on equal terms (equal weights and capacities, no base loads) each instance first keeps its
 *   count; then, where every count is one of two neighbours, any count in that band, as for
 *   zero-weight partitions (placed by count) always. Every count stays in the band, but a trade
 *   changes which topics an instance holds: with mixed subscriptions it can break Kafka's rule
 *   (no instance two or more partitions above another subscriber of its topics), and
 *   `placeWithRacks` then drops the whole match.
 *
 * Heaviest first, moves, trades, then relays, in rounds until nothing improves: each step lowers
 * the cross-rack weight, so it ends. A move that would take a partition off its previous owner
 * counts against `maxMovesPerRebalance`. Pure and deterministic: fixed orders, explicit ties.
 */
export function matchRacks(
  model: BalanceModel,
  rm: RackModel,
  instance: Int32Array,
  homes: { readonly home: Int32Array; readonly counted: Uint8Array },
  level: { readonly tolerance: number; readonly moves: MoveAllowance },
  lowerBound: number,
): void {
  const count = model.partitionCount;
  let split = count;
  while (split > 0 && !(model.weight[split - 1]! > 0)) split--;
  const work = { remaining: 60 * count + 100_000 };
  const capacity = model.instanceCapacity;
  const bins = capacity.length;

  // Weighted partitions, judged by combined load per unit of capacity.
  const load = Float64Array.from(model.instanceBaseLoad);
  for (let p = 0; p < split; p++) load[instance[p]!] = load[instance[p]!]! + model.weight[p]!;
  const equal = equalTerms(model, split);
  let total = 0;
  let totalCapacity = 0;
  for (let b = 0; b < bins; b++) {
    total += load[b]!;
    totalCapacity += capacity[b]!;
  }
  const band = currentBand(load, capacity);
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
    // Weighted: the band alone, as the objective ranks locality above the levels below the
    // busiest. On equal terms with every instance at one of two neighbouring counts, each may take
    // either count: which instances carry the one extra partition is free (no pair can end two
    // apart), and it belongs in the racks short of room. Trades at fixed counts come first, so
    // this only adds to them. A wider band (subscriptions that differ) stays held per instance.
    for (let b = 0; b < bins; b++) {
      upper[b] = ceiling * capacity[b]!;
      lower[b] = floor * capacity[b]!;
    }
    runPhase(model, rm, instance, homes, level.moves, weighted, work);
  }
  if (split === count) return;

  // Zero-weight partitions, judged by partition count per unit of capacity, weighted ones included.
  const counts = new Float64Array(bins);
  for (let p = 0; p < count; p++) counts[instance[p]!] = counts[instance[p]!]! + 1;
  const byCount = currentBand(counts, capacity);
  const zero: Phase = {
    from: split,
    to: count,
    weight: () => 1,
    load: counts,
    upper: capacity.map((c) => byCount.max * c),
    lower: capacity.map((c) => byCount.min * c),
  };
  runPhase(model, rm, instance, homes, level.moves, zero, work);
}

/** One family of partitions matched together, with the band every instance must stay in. */
interface Phase {
  /** Model partitions `[from, to)`: heaviest first. */
  readonly from: number;
  readonly to: number;
  readonly weight: (p: number) => number;
  /** Each instance's load in this phase's measure; updated as partitions move. */
  readonly load: Float64Array;
  /** Bounds on each instance's load in this phase's measure. */
  readonly upper: Float64Array;
  readonly lower: Float64Array;
}

/** Rounds of moves and swaps are few in practice; this bounds a pathological input. */
const MAX_ROUNDS = 8;
/** Partners looked at per (partition, target instance, rack set): keeps equal weights linear. */
const SCAN_LIMIT = 8;
/** Target instances a cross-rack partition tries to trade into, per round. */
const TARGET_LIMIT = 16;

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
    // Moves: a cross-rack partition home, if it is in-rack there and has room (that undoes a
    // move rather than adding one), else to the least busy in-rack subscriber with room.
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
      // Home first (step -1), as for moves; then from a position that depends on the partition,
      // so equal partitions spread their trades.
      const home = homeOf(p);
      for (let step = home >= 0 ? -1 : 0; step < candidates.length && tried < TARGET_LIMIT; step++) {
        const b = step < 0 ? home : candidates[(p + step) % candidates.length]!;
        if (b === a || (step >= 0 && b === home) || !localTo(p, b)) continue;
        work.remaining--;
        // Targets holding nothing that could come back count for nothing: with equal weights
        // the few that can trade are otherwise easily past the limit.
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

    // Relays: a cross-rack partition moves in-rack although its instance may not give it up, or
    // its target may not take it, because a third instance makes up the difference (sends the
    // first a partition, or takes one from the second) with a partition that crosses racks no
    // more where it goes. With equal weights this moves the extra partition of Kafka's counts
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

/** One relay: `p` goes to `b`, and partition `q` from instance `from` to instance `to`. */
interface Relay {
  readonly b: number;
  readonly q: number;
  readonly from: number;
  readonly to: number;
}

/** What a relay needs to know of the phase's bands and of racks. */
interface RelayRules {
  readonly fits: (b: number, load: number) => boolean;
  readonly localTo: (p: number, b: number) => boolean;
}

/**
 * A relay for the cross-rack partition `p` on `a` (see the relays of `runPhase`): an in-rack
 * target `b` that only one side keeps from a plain move (`a` would fall below its band, or `b`
 * rise above its own), and a third instance `c` whose partition `q` (going to `a`, or coming
 * from `b`) brings both back into their bands without crossing racks more where it lands. Up
 * to {@link TARGET_LIMIT} targets are tried, each against every other instance.
 */
function findRelay(
  model: BalanceModel,
  rm: RackModel,
  instance: Int32Array,
  phase: Phase,
  buckets: Int32Array[][],
  rules: RelayRules,
  x: Omit<Exchange, 'b'>,
): Relay | undefined {
  const { p, a, w, work } = x;
  const { load, upper, lower } = phase;
  const bins = load.length;
  const shortA = !rules.fits(a, load[a]! - w);
  const candidates = model.subscribersOf[model.topicOf[p]!]!.instances;
  let tried = 0;
  for (let step = 0; step < candidates.length && tried < TARGET_LIMIT && work.remaining > 0; step++) {
    const b = candidates[(p + step) % candidates.length]!;
    if (b === a || !rules.localTo(p, b)) continue;
    const fullB = !rules.fits(b, load[b]! + w);
    // Neither: a plain move, which the moves above take. Both: two relays at once, left out.
    if (shortA === fullB) continue;
    tried++;
    // The window of q's weight: what brings the short side back into its band.
    const lo = shortA ? lower[a]! - (load[a]! - w) : load[b]! + w - upper[b]!;
    const hi = shortA ? upper[a]! - (load[a]! - w) : load[b]! + w - lower[b]!;
    for (let k = 0; k < bins; k++) {
      const c = (p + k) % bins;
      work.remaining--;
      if (c === a || c === b) continue;
      // c gives q to a, or takes q from b; it must have the load to spare or the room.
      const spare = shortA ? load[c]! - lower[c]! : upper[c]! - load[c]!;
      const top = Math.min(hi, spare);
      if (!(top > 0) || top < lo) continue;
      const from = shortA ? c : b;
      const to = shortA ? a : c;
      const q = findRelayed(model, rm, instance, phase, buckets[from]!, { p, from, to, lo, top, work });
      if (q >= 0) return { b, q, from, to };
    }
  }
  return undefined;
}

/**
 * A partition on `from` weighing within `[lo, top]` (float noise allowed), subscribed on `to`,
 * that crosses racks no more on `to` than on `from`, other than `p`; -1 when there is none.
 * The heaviest of each rack set's first few that fit.
 */
function findRelayed(
  model: BalanceModel,
  rm: RackModel,
  instance: Int32Array,
  phase: Phase,
  lists: ReadonlyArray<Int32Array>,
  x: { p: number; from: number; to: number; lo: number; top: number; work: { remaining: number } },
): number {
  const eps = noiseAt(x.top);
  for (const list of lists) {
    if (list.length === 0) continue;
    const sample = list[0]!;
    if (crossRackChange(rm, sample, x.from, x.to) > 0) continue;
    for (let at = firstAtMost(phase, list, x.top + eps), scanned = 0; at < list.length && scanned < SCAN_LIMIT; at++) {
      const q = list[at]!;
      x.work.remaining--;
      if (instance[q] !== x.from || q === x.p) continue;
      scanned++;
      if (phase.weight(q) < x.lo - eps) break;
      if (subscribes(model, model.topicOf[q]!, x.to)) return q;
    }
  }
  return -1;
}

/**
 * The phase's partitions by instance and rack set (the last set index: no racks), each list
 * heaviest first (model order). Entries go stale as partitions move; readers check `instance`.
 */
function bucketize(model: BalanceModel, rm: RackModel, instance: Int32Array, phase: Phase): Int32Array[][] {
  const sets = rm.setCount + 1;
  const sizes = new Int32Array(model.instanceCapacity.length * sets);
  const slot = (p: number): number => instance[p]! * sets + (rm.setOf[p]! < 0 ? rm.setCount : rm.setOf[p]!);
  for (let p = phase.from; p < phase.to; p++) sizes[slot(p)] = sizes[slot(p)]! + 1;
  const flat = Array.from(sizes, (n) => new Int32Array(n));
  const filled = new Int32Array(sizes.length);
  for (let p = phase.from; p < phase.to; p++) {
    const s = slot(p);
    flat[s]![filled[s]!] = p;
    filled[s] = filled[s]! + 1;
  }
  const out: Int32Array[][] = [];
  for (let b = 0; b < model.instanceCapacity.length; b++) out.push(flat.slice(b * sets, (b + 1) * sets));
  return out;
}

/**
 * False when {@link findPartners} cannot find a trade of a partition of weight `w` from `a` to
 * `b`: it needs partners, and no rack set on `b` has one that could go back to `a` (one not
 * left more cross-rack on `a` than on `b`, or one lighter than `w`, as losing locality is worth
 * it only for less weight than the trade gains). Lists may hold partitions that moved since;
 * then this answers true and {@link findPartners} skips them.
 */
function mayTrade(
  rm: RackModel,
  phase: Phase,
  lists: ReadonlyArray<Int32Array>,
  a: number,
  b: number,
  w: number,
): boolean {
  const { load, upper, lower } = phase;
  const eps = noiseAt(upper[b]!);
  if (load[b]! + w <= upper[b]! + eps && load[a]! - w >= lower[a]! - eps) return true;
  for (const list of lists) {
    if (list.length === 0) continue;
    const sample = list[0]!;
    if (crossRackChange(rm, sample, b, a) <= 0) return true;
    if (phase.weight(list[list.length - 1]!) < w) return true;
  }
  return false;
}

interface Exchange {
  readonly p: number;
  readonly a: number;
  readonly b: number;
  readonly w: number;
  readonly work: { remaining: number };
}

/** Partners one exchange may send back: a heavy partition may need several lighter ones to make room. */
const MAX_PARTNERS = 32;

/**
 * Partitions on `b` to send to `a` in exchange for `p`, so that both instances end inside their
 * bands and the cross-rack weight drops: the heaviest that fit, until `b` has room for `p` and
 * `a` is not left below its floor. Partners that gain locality themselves come first, then those
 * indifferent to the trade, then those that lose it (only while the trade still gains). Each must
 * be subscribed on `a`. Undefined when no such set is found.
 */
function findPartners(
  model: BalanceModel,
  rm: RackModel,
  instance: Int32Array,
  phase: Phase,
  buckets: Int32Array[][],
  x: Exchange,
): number[] | undefined {
  const { p, a, b, w } = x;
  const afterA = phase.load[a]! - w;
  const afterB = phase.load[b]! + w;
  // What must leave b, and what a must receive, for both to fit; and the most either allows.
  const want = Math.max(afterB - phase.upper[b]!, phase.lower[a]! - afterA);
  const cap = Math.min(phase.upper[a]! - afterA, afterB - phase.lower[b]!);
  const eps = noiseAt(phase.upper[b]!);
  if (want <= eps) return want <= cap + eps ? [] : undefined;
  if (cap + eps < want) return undefined;
  const partners: number[] = [];
  let taken = 0;
  let lost = 0;
  const sets = rm.setCount + 1;
  for (let preference = 0; preference < 3 && taken + eps < want; preference++) {
    for (let set = 0; set < sets && taken + eps < want; set++) {
      const list = buckets[b]![set]!;
      if (list.length === 0) continue;
      const sample = list[0]!;
      // Every partition of one rack set is cross-rack on the same instances.
      const change = crossRackChange(rm, sample, b, a);
      if (change !== preference - 1) continue;
      // Skip to the first partner that still fits under the cap.
      let scanned = 0;
      for (
        let k = firstAtMost(phase, list, cap - taken + eps);
        k < list.length && scanned < SCAN_LIMIT && taken + eps < want;
        k++
      ) {
        const q = list[k]!;
        x.work.remaining--;
        if (instance[q] !== b || q === p || partners.includes(q)) continue;
        scanned++;
        const wq = phase.weight(q);
        if (taken + wq > cap + eps) continue;
        // Losing locality is worth it only while the trade as a whole still gains.
        if (change > 0 && !(lost + wq < w)) continue;
        if (!subscribes(model, model.topicOf[q]!, a)) continue;
        partners.push(q);
        taken += wq;
        if (change > 0) lost += wq;
        if (partners.length >= MAX_PARTNERS) return taken + eps >= want ? partners : undefined;
      }
    }
  }
  return taken + eps >= want ? partners : undefined;
}

/**
 * How much more partition `p` (and every partition of its rack set) crosses racks on instance
 * `to` than on `from`: 1, 0 or -1.
 */
function crossRackChange(rm: RackModel, p: number, from: number, to: number): number {
  return (isCrossRack(rm, p, to) ? 1 : 0) - (isCrossRack(rm, p, from) ? 1 : 0);
}

/** Position of the first partition of `list` (heaviest first) that weighs at most `limit`. */
function firstAtMost(phase: Phase, list: Int32Array, limit: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (phase.weight(list[mid]!) > limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** True when some member of instance `i` subscribes to topic `t`. */
function subscribes(model: BalanceModel, t: number, i: number): boolean {
  return hasInstance(model.subscribersOf[t]!, i);
}

/** The highest and lowest load ÷ capacity of any instance. */
function currentBand(load: Float64Array, capacity: Float64Array): { max: number; min: number } {
  let max = Number.NEGATIVE_INFINITY;
  let min = Number.POSITIVE_INFINITY;
  for (let b = 0; b < load.length; b++) {
    const level = load[b]! / capacity[b]!;
    if (level > max) max = level;
    if (level < min) min = level;
  }
  return { max, min };
}
