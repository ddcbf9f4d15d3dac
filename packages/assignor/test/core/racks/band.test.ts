import { balance, type BalanceMember, type WeightedPartition } from '@load-aware/assignor';
import { createRandom } from '@load-aware/test-support';

describe('balance() with racks and zero-weight partitions', () => {
  // 300 partitions on three racks of ten instances, each partition's replica in one rack, a tenth
  // of them idle (weight 0), the rest log-normal. The in-rack placement fits within the balance
  // of the placement without racks; holding it to that placement's partition counts as well
  // turned it down for one that fetched 3.6 across racks, spread 4 to 29 partitions an instance,
  // and moved 35 partitions when the unchanged group was placed again.
  const random = createRandom(1);
  const members: BalanceMember[] = [];
  for (const rack of ['a', 'b', 'c'])
    for (let i = 0; i < 10; i++)
      members.push({
        memberId: `m${String(members.length)}`,
        instanceId: `i${String(members.length)}`,
        topics: ['t'],
        rack,
      });
  const partitions: WeightedPartition[] = Array.from({ length: 300 }, (_, partition) => {
    const idle = random.next() < 0.1;
    const weight = random.logNormal(0, 1);
    const racks = ['abc'[random.int(3)]!];
    return { topic: 't', partition, weight: idle ? 0 : weight, racks };
  });

  it('keeps the in-rack placement: nothing crosses racks, and placed again nothing moves', () => {
    const first = balance({ members, partitions });
    expect(first.crossRackWeight).toBe(0);
    expect(balance({ members, partitions, previous: first.assignments }).movedCount).toBe(0);
  });
});
