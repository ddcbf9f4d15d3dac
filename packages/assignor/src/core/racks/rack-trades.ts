import type { BalanceModel } from '../model/model.js';
import { hasInstance } from '../model/subscribers.js';
import { isCrossRack, type RackModel } from './rack-model.js';
import { noiseAt } from '../structures/numbers.js';

/** Trades of rack matching (`matchRacks`, rack-pass.ts): relays, exchange partners, and their checks. */

/** One family of partitions matched together, with the band every instance must stay in. */
export interface Phase {
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

/** Partners looked at per (partition, target instance, rack set): keeps equal weights linear. */
const SCAN_LIMIT = 8;
/** Target instances a cross-rack partition tries to trade into, per round. */
export const TARGET_LIMIT = 16;

/** One relay: `p` goes to `b`, and partition `q` from instance `from` to instance `to`. */
export interface Relay {
  readonly b: number;
  readonly q: number;
  readonly from: number;
  readonly to: number;
}

/** What a relay needs to know of the phase's bands and of racks. */
export interface RelayRules {
  readonly fits: (b: number, load: number) => boolean;
  readonly localTo: (p: number, b: number) => boolean;
}

/**
 * A relay for the cross-rack partition `p` on `a`: an in-rack target `b` that only one side keeps from a
 * plain move (`a` would fall below its band, or `b` rise above its own), and a third instance `c` whose
 * partition `q` (going to `a`, or coming from `b`) brings both back into their bands without crossing racks
 * more where it lands. Up to {@link TARGET_LIMIT} targets are tried, each against every other instance.
 */
export function findRelay(
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
 * A partition other than `p` on `from`, weighing within `[lo, top]` (noise allowed), subscribed on `to` and
 * crossing racks no more there: the heaviest of each rack set's first few that fit; -1 when none.
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
 * The phase's partitions by instance and rack set (the last index: no racks), each heaviest first. Entries
 * go stale as partitions move; readers check `instance`.
 */
export function bucketize(model: BalanceModel, rm: RackModel, instance: Int32Array, phase: Phase): Int32Array[][] {
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
 * False when {@link findPartners} cannot trade weight `w` from `a` to `b`: partners are needed and no rack
 * set on `b` has one that could go back to `a` (no more cross-rack on `a` than on `b`, or lighter than `w`:
 * losing locality pays only for less weight than the trade gains). Stale list entries answer true.
 */
export function mayTrade(
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

export interface Exchange {
  readonly p: number;
  readonly a: number;
  readonly b: number;
  readonly w: number;
  readonly work: { remaining: number };
}

/** Partners one exchange may send back: a heavy partition may need several lighter ones to make room. */
const MAX_PARTNERS = 32;

/**
 * Partitions on `b`, subscribed on `a`, to send to `a` for `p` so both end inside their bands and cross-rack
 * weight drops: the heaviest that fit, until `b` has room for `p` and `a` is above its floor. Those gaining
 * locality come first, then the indifferent, then those losing it (only while the trade still gains).
 * Undefined when no such set is found.
 */
export function findPartners(
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

/** How much more `p` (and its whole rack set) crosses racks on `to` than on `from`: 1, 0 or -1. */
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
export function subscribes(model: BalanceModel, t: number, i: number): boolean {
  return hasInstance(model.subscribersOf[t]!, i);
}
