import { balance } from '@load-aware/assignor';
import { instanceCapacities } from '@load-aware/assignor/internal';
import { member, uniform } from './fixtures';

/**
 * Capacities arrive in userData, which any member can fill in. One claiming 1e300 used to take
 * every partition; a denormal one (5e-324) made its load per unit overflow to Infinity. They are
 * bounded now: to 0.001–1e6, and to within 1000x of the group's median.
 */
describe('capacities balance() does not take on trust', () => {
  const partitions = uniform('t', 3000, 1);
  const group = (capacityOfA: number) => [
    member('a', 'a', ['t'], capacityOfA),
    member('b', 'b', ['t'], 1),
    member('c', 'c', ['t'], 1),
  ];

  it('bounds a capacity of 1e300 to 1000x the median, so the others still get work', () => {
    const result = balance({ members: group(1e300), partitions });
    const [a, b, c] = result.instances;
    expect(a!.capacity).toBe(1000);
    expect(b!.load).toBeGreaterThanOrEqual(2);
    expect(c!.load).toBeGreaterThanOrEqual(2);
    expect(Number.isFinite(result.maxInstanceLoad)).toBe(true);
  });

  it('bounds a denormal capacity to the smallest the option accepts', () => {
    const result = balance({ members: group(5e-324), partitions });
    expect(result.instances[0]!.capacity).toBe(1e-3);
    expect(result.instances[0]!.load).toBeLessThanOrEqual(2);
    expect(Number.isFinite(result.maxInstanceLoad)).toBe(true);
  });

  it('leaves capacities within the bounds as they are', () => {
    const capacity = instanceCapacities([
      { instanceId: 'a', capacity: 8 },
      { instanceId: 'b', capacity: 0.5 },
      { instanceId: 'c', capacity: 2 },
    ]);
    expect(Object.fromEntries(capacity)).toEqual({ a: 8, b: 0.5, c: 2 });
  });

  it('is the rule the trigger divides by (one function for both)', () => {
    const capacity = instanceCapacities(group(1e300));
    const result = balance({ members: group(1e300), partitions });
    expect(Object.fromEntries(capacity)).toEqual(
      Object.fromEntries(result.instances.map((i) => [i.instanceId, i.capacity])),
    );
  });
});
