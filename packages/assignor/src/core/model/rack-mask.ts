/** Racks a partition's rack list is read against: the members' racks, in index form. */
export interface RackNames {
  /** The racks some instance is in, sorted; a mask's bit `r` is `racks[r]`. */
  readonly racks: ReadonlyArray<string>;
  readonly rackIndex: ReadonlyMap<string, number>;
  /** Racks a mask can tell apart: past 30, the racks from the 31st on hold no replica. */
  readonly bits: number;
}

/**
 * -1 when `given` lists no racks (only a non-empty array counts: untyped callers may pass anything); else the
 * mask of the racks of `names` it names (non-strings and unknown racks add nothing). With few racks a scan
 * finds each name, cheaper than a lookup.
 */
export function rackMask(given: unknown, names: RackNames): number {
  if (!Array.isArray(given) || given.length === 0) return -1;
  const { racks, rackIndex, bits } = names;
  let mask = 0;
  for (let k = 0; k < given.length; k++) {
    const r: unknown = given[k];
    if (typeof r !== 'string') continue;
    let at = -1;
    if (racks.length <= 8) {
      for (let q = 0; q < racks.length; q++) {
        if (racks[q] === r) {
          at = q;
          break;
        }
      }
    } else {
      at = rackIndex.get(r) ?? -1;
    }
    if (at >= 0 && at < bits) mask |= 1 << at;
  }
  return mask;
}
