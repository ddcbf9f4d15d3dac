/**
 * Base loads: what an instance already carries from elsewhere (other consumer groups of the same pods). No
 * step of the search moves them; they only shift where this group's load is best put.
 */

/**
 * Base load per instance, in model order, from the caller's map. A missing, non-finite or negative value
 * counts as 0, so a made-up one cannot push everything elsewhere. Instances without a member in this group
 * are not read: this group's placement cannot change their load.
 */
export function resolveBaseLoads(
  instanceIds: ReadonlyArray<string>,
  given: ReadonlyMap<string, number> | undefined,
): Float64Array {
  const load = new Float64Array(instanceIds.length);
  if (given === undefined) return load;
  instanceIds.forEach((id, i) => {
    const value = given.get(id);
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) load[i] = value;
  });
  return load;
}

/**
 * The water level of `amount` poured over `bins`: the load per unit of capacity L at which
 * `Σ capacity · max(0, L − base ÷ capacity) = amount`, the busiest level of a perfect split that never takes
 * load off a bin, so no placement can do better. Without base loads, `amount ÷ Σ capacity`; 0 without bins.
 */
export function waterLevel(
  capacity: Float64Array,
  baseLoad: Float64Array,
  bins: ArrayLike<number>,
  amount: number,
): number {
  const count = bins.length;
  if (count === 0) return 0;
  let totalCapacity = 0;
  let anyBase = false;
  for (let k = 0; k < count; k++) {
    totalCapacity += capacity[bins[k]!]!;
    if (baseLoad[bins[k]!]! > 0) anyBase = true;
  }
  // The common case (no other group's load) needs no sort.
  if (!anyBase) return amount / totalCapacity;
  const order = Array.from({ length: count }, (_, k) => bins[k]!);
  order.sort((a, b) => baseLoad[a]! / capacity[a]! - baseLoad[b]! / capacity[b]!);
  let filledCapacity = 0;
  let filledBase = 0;
  for (let k = 0; k < count; k++) {
    const b = order[k]!;
    filledCapacity += capacity[b]!;
    filledBase += baseLoad[b]!;
    const level = (amount + filledBase) / filledCapacity;
    const next = k + 1 < count ? baseLoad[order[k + 1]!]! / capacity[order[k + 1]!]! : Infinity;
    // The level reached with the first k+1 bins stays below the next bin's base: it gets nothing.
    if (level <= next) return level;
  }
  return (amount + filledBase) / filledCapacity;
}
