import fc from 'fast-check';
import { answersInOrder, mergeWeights } from '../../src/inputs/merge-weights.js';
import { weightTable } from '../../src/core/model/weights.js';
import type { TopicPartition, WeightedPartition } from '../../src/core/types.js';

/** The general rule mergeWeights must always give: each partition's weight from the shared table. */
function byTable(
  partitions: ReadonlyArray<TopicPartition>,
  weights: ReadonlyArray<{ topic: string; partition: number; weight: number }>,
): WeightedPartition[] {
  const table = weightTable(weights);
  return partitions.map((p) => {
    const weight = table.weightOf(p.topic, p.partition);
    return weight === undefined ? p : { topic: p.topic, partition: p.partition, weight };
  });
}

const tp = (topic: string, partition: number): TopicPartition => ({ topic, partition });

describe('mergeWeights', () => {
  it('attaches one answer per partition in the order asked, usable weights only, -0 as 0', () => {
    const partitions = [tp('a', 0), tp('a', 1), tp('a', 2), tp('b', 0)];
    const merged = mergeWeights(partitions, [
      { topic: 'a', partition: 0, weight: 2 },
      { topic: 'a', partition: 1, weight: Number.NaN },
      { topic: 'a', partition: 2, weight: -0 },
      { topic: 'b', partition: 0, weight: -1 },
    ]);
    expect(merged).toEqual([
      { topic: 'a', partition: 0, weight: 2 },
      tp('a', 1),
      { topic: 'a', partition: 2, weight: 0 },
      tp('b', 0),
    ]);
    expect(Object.is(merged[2]!.weight, 0)).toBe(true);
    // Unweighted partitions are handed on as they are.
    expect(merged[1]).toBe(partitions[1]);
  });

  it('resolves duplicates and other orders with the shared table', () => {
    const partitions = [tp('a', 0), tp('a', 1)];
    const weights = [
      { topic: 'a', partition: 1, weight: 1 },
      { topic: 'a', partition: 0, weight: 3 },
      { topic: 'a', partition: 1, weight: 5 },
    ];
    expect(mergeWeights(partitions, weights)).toEqual([
      { topic: 'a', partition: 0, weight: 3 },
      { topic: 'a', partition: 1, weight: 5 },
    ]);
  });

  it('takes the one-pass path only when each partition is listed once and answered at its own position', () => {
    const w = (p: TopicPartition) => ({ ...p, weight: 1 });
    const inOrder = [tp('b', 0), tp('b', 3), tp('a', 1)];
    expect(answersInOrder(inOrder, inOrder.map(w))).toBe(true);
    // A topic listed in two runs, a repeated or descending partition, -0 next to 0, a shorter answer.
    for (const listed of [
      [tp('a', 0), tp('b', 0), tp('a', 1)],
      [tp('a', 1), tp('a', 1)],
      [tp('a', 2), tp('a', 1)],
      [tp('a', 0), tp('a', -0)],
    ]) {
      expect(answersInOrder(listed, listed.map(w))).toBe(false);
    }
    expect(answersInOrder(inOrder, inOrder.slice(1).map(w))).toBe(false);
    expect(answersInOrder([tp('a', 0)], [{ topic: 'a', partition: -0 }])).toBe(false);
  });

  it('gives exactly what the table gives, on any listing and answer (property)', () => {
    const partitionArb = fc.record({
      topic: fc.constantFrom('a', 'b', 'c'),
      partition: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(-0)),
    });
    const weightArb = fc.oneof(fc.double({ noNaN: false }), fc.constantFrom(0, -0, 1, Number.POSITIVE_INFINITY, -1));
    fc.assert(
      fc.property(
        fc.array(partitionArb, { maxLength: 30 }),
        fc.array(fc.tuple(partitionArb, weightArb), { maxLength: 30 }),
        fc.boolean(),
        fc.array(weightArb, { minLength: 30, maxLength: 30 }),
        (listed, extra, aligned, alignedWeights) => {
          // Aligned answers (the one-pass path when the listing allows it), or arbitrary ones.
          const weights = aligned
            ? listed.map((p, i) => ({ topic: p.topic, partition: p.partition, weight: alignedWeights[i]! }))
            : extra.map(([p, weight]) => ({ topic: p.topic, partition: p.partition, weight }));
          const merged = mergeWeights(listed, weights);
          const expected = byTable(listed, weights);
          expect(merged).toEqual(expected);
          merged.forEach((m, i) => {
            expect(Object.is(m.weight, expected[i]!.weight)).toBe(true);
            expect(Object.is(m.partition, expected[i]!.partition)).toBe(true);
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('covers sorted listings with aligned answers, the path sources take (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 50 }), { maxLength: 20 }),
        fc.array(fc.double(), { minLength: 20, maxLength: 20 }),
        (ids, values) => {
          const listed = [...ids].sort((a, b) => a - b).map((p) => tp('t', p));
          const weights = listed.map((p, i) => ({ ...p, weight: values[i]! }));
          expect(answersInOrder(listed, weights)).toBe(true);
          expect(mergeWeights(listed, weights)).toEqual(byTable(listed, weights));
        },
      ),
    );
  });
});
