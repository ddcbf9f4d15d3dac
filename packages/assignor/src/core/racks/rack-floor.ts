import type { BalanceModel } from '../model/model.js';
import type { RackModel } from './rack-model.js';
import { noiseAt } from '../structures/numbers.js';

/** Each instance's load under `bin` from partitions `[0, to)`: weights on top of base loads, or with `unit` counts. */
export function instanceLoads(model: BalanceModel, bin: Int32Array, to: number, unit: boolean): Float64Array {
  const load = unit ? new Float64Array(model.instanceIds.length) : Float64Array.from(model.instanceBaseLoad);
  for (let p = 0; p < to; p++) load[bin[p]!] = load[bin[p]!]! + (unit ? 1 : model.weight[p]!);
  return load;
}

/**
 * True when no instance's level under `load` ({@link instanceLoads}) is below `floor` (so a joiner is not left
 * idle), or below its rack's share less the tolerance where that is lower: a rack whose replicas carry less
 * than its share of the weight can reach only its own share without fetching across racks, and the objective
 * puts locality before anything below the busiest level. Instances without a rack form one rack.
 */
export function aboveFloor(
  model: BalanceModel,
  rm: RackModel,
  load: Float64Array,
  floor: number,
  tolerance: number,
): boolean {
  const bins = model.instanceIds.length;
  const width = rm.racks.length;
  const rackOf = (b: number): number => (rm.instanceRack[b]! < 0 ? width : rm.instanceRack[b]!);
  const share = rackShares(model, load, rackOf, width + 1, tolerance);
  for (let b = 0; b < bins; b++) {
    const own = Math.min(floor, share[rackOf(b)]! * (1 - tolerance));
    if (load[b]! / model.instanceCapacity[b]! < own - noiseAt(own)) return false;
  }
  return true;
}

/**
 * Each rack's share: the mean level of its instances, leaving out those above the band around it. An instance
 * with one partition heavier than the share cannot hand the excess to its rack-mates, so counting it would set
 * the others a floor no placement reaches; leaving it out only lowers the mean, so this ends within `bins` rounds.
 */
function rackShares(
  model: BalanceModel,
  load: Float64Array,
  rackOf: (b: number) => number,
  racks: number,
  tolerance: number,
): Float64Array {
  const bins = load.length;
  const counted = new Uint8Array(bins).fill(1);
  const share = new Float64Array(racks);
  for (let changed = true; changed;) {
    const rackLoad = new Float64Array(racks);
    const rackCapacity = new Float64Array(racks);
    for (let b = 0; b < bins; b++) {
      if (counted[b] === 0) continue;
      rackLoad[rackOf(b)] = rackLoad[rackOf(b)]! + load[b]!;
      rackCapacity[rackOf(b)] = rackCapacity[rackOf(b)]! + model.instanceCapacity[b]!;
    }
    for (let r = 0; r < racks; r++) share[r] = rackCapacity[r]! > 0 ? rackLoad[r]! / rackCapacity[r]! : share[r]!;
    changed = false;
    for (let b = 0; b < bins; b++) {
      if (counted[b] === 0 || load[b]! / model.instanceCapacity[b]! <= share[rackOf(b)]! * (1 + tolerance)) continue;
      counted[b] = 0;
      changed = true;
    }
  }
  return share;
}
