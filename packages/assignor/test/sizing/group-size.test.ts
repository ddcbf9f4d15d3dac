import fc from 'fast-check';
import { placementAt, sizeGroup, type WeightedPartition } from '@load-aware/assignor';

const weighted = (...weights: number[]): WeightedPartition[] =>
  weights.map((weight, partition) => ({ topic: 'orders', partition, weight }));

describe('sizeGroup', () => {
  it('sizes by the placement, not by a ratio of sums: four partitions of 50 need four members of 100 at 0.7', () => {
    // 200 ÷ 70 says 3, but any member holding two of them carries 100.
    const size = sizeGroup({ partitions: weighted(50, 50, 50, 50), memberCapacity: 100 });
    expect(size).toMatchObject({ targetLoad: 70, desiredMembers: 4, desiredInstances: 4, futile: false });
    expect(size.atDesired.busiestUtilization).toBeCloseTo(0.5);
  });

  it('counts instances of several members: eight partitions of 50, two members an instance', () => {
    const size = sizeGroup({
      partitions: weighted(...Array<number>(8).fill(50)),
      memberCapacity: 100,
      membersPerInstance: 2,
    });
    expect(size).toMatchObject({ desiredMembers: 8, desiredInstances: 4 });
    expect(size.atDesired).toEqual({ instances: 4, members: 8, busiestUtilization: 0.5 });
  });

  it('says when scaling out is futile and stops where the heavy partition is a whole member', () => {
    const size = sizeGroup({ partitions: weighted(90, 10, 10, 10, 10), memberCapacity: 100 });
    expect(size.futile).toBe(true);
    expect(size.futilePartitions).toEqual([{ topic: 'orders', partition: 0, weight: 90 }]);
    // 90 alone on one member, the 40 of the rest on another: a third member changes nothing.
    expect(size.desiredMembers).toBe(2);
    expect(size.atDesired.busiestUtilization).toBeCloseTo(0.9);
  });

  it('is not futile exactly at the target load, and counts unmeasured weights as nothing', () => {
    const size = sizeGroup({
      partitions: [...weighted(70, 70), { topic: 'orders', partition: 9, weight: Number.NaN }],
      memberCapacity: 100,
    });
    expect(size).toMatchObject({ futile: false, desiredMembers: 2 });
  });

  it('needs one member for an idle group', () => {
    expect(sizeGroup({ partitions: weighted(0, 0), memberCapacity: 5 }).desiredMembers).toBe(1);
    expect(sizeGroup({ partitions: [], memberCapacity: 5 }).desiredMembers).toBe(1);
  });

  it.each([
    [{ memberCapacity: 0 }, /memberCapacity/],
    [{ memberCapacity: Number.POSITIVE_INFINITY }, /memberCapacity/],
    [{ memberCapacity: 10, targetUtilization: 0 }, /targetUtilization/],
    [{ memberCapacity: 10, targetUtilization: 1.5 }, /targetUtilization/],
    [{ memberCapacity: 10, membersPerInstance: 1.5 }, /membersPerInstance/],
  ])('refuses %j', (options, message) => {
    expect(() => sizeGroup({ partitions: weighted(1), ...options })).toThrow(message);
  });

  it('answers the smallest count that holds the target, on random weights (a new seed each run)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.1, max: 60, noNaN: true }), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1, max: 3 }),
        fc.double({ min: 0.3, max: 1, noNaN: true }),
        (weights, membersPerInstance, targetUtilization) => {
          const partitions = weighted(...weights);
          const size = sizeGroup({ partitions, memberCapacity: 100, targetUtilization, membersPerInstance });
          const limit = Math.max(size.targetLoad, ...weights) / 100 + 1e-9;
          expect(size.futile).toBe(Math.max(...weights) > size.targetLoad);
          expect(size.atDesired.busiestUtilization).toBeLessThanOrEqual(limit);
          if (size.desiredInstances > 1) {
            const fewer = placementAt(partitions, size.desiredInstances - 1, membersPerInstance, 100);
            expect(fewer.busiestUtilization).toBeGreaterThan(limit);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
