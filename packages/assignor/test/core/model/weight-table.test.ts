import { balance, PartitionWeightTable, weightTable } from '@load-aware/assignor/internal';

describe('PartitionWeightTable: one rule for a partition reported more than once', () => {
  it('keeps the largest usable weight, whatever the order', () => {
    const reports = [
      { topic: 't', partition: 0, weight: 1 },
      { topic: 't', partition: 0, weight: 10 },
      { topic: 't', partition: 0, weight: Number.NaN },
      { topic: 't', partition: 0, weight: -5 },
    ];
    for (const order of [reports, [...reports].reverse()]) {
      const table = weightTable(order);
      expect(table.weightOf('t', 0)).toBe(10);
      expect(table.usableCount).toBe(1);
    }
  });

  it('knows a partition with no usable weight without weighing it', () => {
    const table = new PartitionWeightTable();
    table.add('t', 1, Number.POSITIVE_INFINITY);
    table.add('t', 2, undefined);
    table.add('t', 2, 'heavy');
    const seen: Array<[string, number, number | undefined]> = [];
    table.forEach((topic, partition, weight) => seen.push([topic, partition, weight]));
    expect(seen).toEqual([
      ['t', 1, undefined],
      ['t', 2, undefined],
    ]);
    expect(table.usableCount).toBe(0);
    expect(table.weightOf('t', 3)).toBeUndefined();
  });

  it('treats -0 as 0 for both the weight and the partition number', () => {
    const table = weightTable([
      { topic: 't', partition: -0, weight: -0 },
      { topic: 't', partition: 0, weight: 0 },
    ]);
    expect(Object.is(table.weightOf('t', 0), 0)).toBe(true);
    expect(table.usableCount).toBe(1);
  });

  it('is what balance() applies: duplicates never double-count load', () => {
    const members = ['A', 'B'].map((instanceId) => ({ memberId: instanceId.toLowerCase(), instanceId, topics: ['t'] }));
    const largest = [10, 6, 5].map((weight, partition) => ({ topic: 't', partition, weight }));
    const once = balance({ members, partitions: largest });
    const twice = balance({
      members,
      partitions: [
        { topic: 't', partition: 0, weight: 1 },
        ...largest,
        { topic: 't', partition: 1, weight: Number.NaN },
      ],
    });
    expect(twice.assignments).toEqual(once.assignments);
    expect(twice.instances.map((i) => i.load)).toEqual(once.instances.map((i) => i.load));
  });
});
