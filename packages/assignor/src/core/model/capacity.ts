import { median } from '../structures/numbers.js';
import { compareStrings } from '../structures/order.js';

/** The capacity rule, shared by `balance()` and the trigger: both must divide a load by the same number. */

/** Smallest capacity the `capacity` option accepts, and the floor for reported ones. */
export const MIN_CAPACITY = 1e-3;

/** Largest capacity the `capacity` option accepts, and the ceiling for reported ones. */
export const MAX_CAPACITY = 1e6;

/**
 * How far an instance's capacity may stray from the group's median, either way: capacities travel in userData,
 * which any member can fill in, and one claiming 1e300 would otherwise take every partition.
 */
export const CAPACITY_SPREAD = 1000;

/** A reported capacity as it counts: a finite positive number as is, anything else as 1. */
export function usableCapacity(reported: unknown): number {
  return typeof reported === 'number' && Number.isFinite(reported) && reported > 0 ? reported : 1;
}

/** An instance whose capacity was bounded, for the leader's warning. */
export interface CapacityAdjustment {
  readonly instanceId: string;
  /** The largest usable capacity its members reported. */
  readonly reported: number;
  /** The capacity used instead. */
  readonly used: number;
}

/** Capacities per instance and which of them were bounded. */
export interface ResolvedCapacities {
  readonly capacity: Map<string, number>;
  /** Bounded instances, by instance id. */
  readonly adjusted: ReadonlyArray<CapacityAdjustment>;
}

/**
 * Capacity per instance from its members' reports; where they disagree the largest usable value wins, so
 * listing order cannot matter. Each is bounded to [{@link MIN_CAPACITY}, {@link MAX_CAPACITY}] and to within
 * {@link CAPACITY_SPREAD} of the median of those bounded values: only ratios matter, and a single outlier
 * cannot move the median far.
 */
export function resolveCapacities(
  members: Iterable<{ readonly instanceId: string; readonly capacity?: unknown }>,
): ResolvedCapacities {
  const reported = new Map<string, number>();
  for (const m of members) {
    reported.set(m.instanceId, Math.max(reported.get(m.instanceId) ?? 0, usableCapacity(m.capacity)));
  }
  const bounded = [...reported.values()].map((c) => clamp(c, MIN_CAPACITY, MAX_CAPACITY));
  const middle = median(bounded) ?? 1;
  const low = Math.max(MIN_CAPACITY, middle / CAPACITY_SPREAD);
  const high = Math.min(MAX_CAPACITY, middle * CAPACITY_SPREAD);
  const capacity = new Map<string, number>();
  const adjusted: CapacityAdjustment[] = [];
  for (const [instanceId, value] of reported) {
    const used = clamp(value, low, high);
    capacity.set(instanceId, used);
    if (used !== value) adjusted.push({ instanceId, reported: value, used });
  }
  adjusted.sort((a, b) => compareStrings(a.instanceId, b.instanceId));
  return { capacity, adjusted };
}

/** {@link resolveCapacities}' capacity per instance. */
export function instanceCapacities(
  members: Iterable<{ readonly instanceId: string; readonly capacity?: unknown }>,
): Map<string, number> {
  return resolveCapacities(members).capacity;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
