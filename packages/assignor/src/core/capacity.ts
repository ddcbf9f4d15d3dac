/**
 * The capacity rule, shared by `balance()` and the trigger that judges the current assignment:
 * both must divide an instance's load by the same number, or the trigger's ratio compares unlike
 * things.
 */

/** A reported capacity as it counts: a finite positive number as is, anything else as 1. */
export function usableCapacity(reported: unknown): number {
  return typeof reported === 'number' && Number.isFinite(reported) && reported > 0 ? reported : 1;
}

/**
 * Capacity per instance from its members' reports. Members of one instance should agree; when
 * they do not, the largest usable value wins, so the outcome does not depend on which member
 * happens to be listed first.
 */
export function instanceCapacities(
  members: Iterable<{ readonly instanceId: string; readonly capacity?: unknown }>,
): Map<string, number> {
  const capacity = new Map<string, number>();
  for (const m of members) {
    capacity.set(m.instanceId, Math.max(capacity.get(m.instanceId) ?? 0, usableCapacity(m.capacity)));
  }
  return capacity;
}
