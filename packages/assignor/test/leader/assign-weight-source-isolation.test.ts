import type { PartitionAssigner } from 'kafkajs';
import { LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import { allPartitions, decodeAssignments, fakeCluster, member } from '@load-aware/test-support';

/** The partitions to assign never come from anything a weight source can touch. */
describe('a weight source that edits the list it is given', () => {
  it.each([
    ['drains it with splice', (list: { topic: string; partition: number }[]) => void list.splice(0, list.length)],
    [
      'pushes a partition that does not exist',
      (list: { topic: string; partition: number }[]) => void list.push({ topic: 'orders', partition: 99 }),
    ],
    [
      'renames the entries',
      (list: { topic: string; partition: number }[]) => {
        list.forEach((p) => (p.topic = 'other'));
      },
    ],
  ])('cannot change what is assigned when it %s', async (_name, edit) => {
    const source: WeightSource = {
      getWeights: (partitions) => {
        const answer = partitions.map((p) => ({ ...p, weight: 1 }));
        edit(partitions as unknown as { topic: string; partition: number }[]);
        return Promise.resolve(answer);
      },
    };
    const factory: PartitionAssigner = LoadAwareAssigner({ weights: source });
    const assigner = factory({ cluster: fakeCluster({ orders: 6 }), groupId: 'g', logger: undefined as never });
    const result = decodeAssignments(
      await assigner.assign({
        members: [member('a', ['orders'], 'A'), member('b', ['orders'], 'B')],
        topics: ['orders'],
      }),
    );
    expect([...result.values()].flat().sort()).toEqual(allPartitions({ orders: 6 }));
  });
});
