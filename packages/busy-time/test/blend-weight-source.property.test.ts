import fc from 'fast-check';
import type { PartitionWeight, TopicPartition } from '@load-aware/assignor';
import { blendWeights } from '@load-aware/busy-time/internal';

const PARTITIONS: TopicPartition[] = Array.from({ length: 8 }, (_, partition) => ({
  topic: partition % 2 === 0 ? 'a' : 'b',
  partition,
}));

// Each partition: maybe a primary weight, maybe a fallback weight (zeros included, they matter).
const weight = fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 1e6, noNaN: true }));
const side = fc.array(fc.option(weight, { nil: undefined }), { minLength: 8, maxLength: 8 });

function entries(weights: ReadonlyArray<number | undefined>): PartitionWeight[] {
  return PARTITIONS.flatMap((p, i) => (weights[i] === undefined ? [] : [{ ...p, weight: weights[i] }]));
}

function asMap(weights: ReadonlyArray<PartitionWeight>): Map<string, number> {
  return new Map(weights.map((w) => [`${w.topic}:${String(w.partition)}`, w.weight]));
}

describe('blendWeights properties', () => {
  it('answers each requested partition at most once, with a usable weight', () => {
    fc.assert(
      fc.property(side, side, fc.integer({ min: 1, max: 4 }), (primary, fallback, minOverlap) => {
        const { weights } = blendWeights(PARTITIONS, entries(primary), entries(fallback), minOverlap);
        expect(asMap(weights).size).toBe(weights.length);
        for (const w of weights) {
          expect(Number.isFinite(w.weight) && w.weight >= 0).toBe(true);
          expect(PARTITIONS.some((p) => p.topic === w.topic && p.partition === w.partition)).toBe(true);
        }
      }),
    );
  });

  it('keeps every positive primary weight as is when it blends', () => {
    fc.assert(
      fc.property(side, side, (primary, fallback) => {
        const outcome = blendWeights(PARTITIONS, entries(primary), entries(fallback), 1);
        fc.pre(outcome.mode === 'blend');
        const out = asMap(outcome.weights);
        PARTITIONS.forEach((p, i) => {
          const a = primary[i];
          if (a !== undefined && a > 0) expect(out.get(`${p.topic}:${String(p.partition)}`)).toBe(a);
        });
      }),
    );
  });

  it("does not depend on the fallback's units: scaling it changes nothing", () => {
    fc.assert(
      fc.property(side, side, fc.constantFrom(0.001, 2, 1000), (primary, fallback, k) => {
        const plain = blendWeights(PARTITIONS, entries(primary), entries(fallback), 1);
        fc.pre(plain.mode === 'blend');
        const scaled = blendWeights(
          PARTITIONS,
          entries(primary),
          entries(fallback.map((w) => (w === undefined ? undefined : w * k))),
          1,
        );
        const a = asMap(plain.weights);
        const b = asMap(scaled.weights);
        expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
        // Equal up to rounding, relative to the weight's size.
        for (const [key, value] of a)
          expect(Math.abs(b.get(key)! - value)).toBeLessThanOrEqual(1e-9 * Math.max(1, value));
      }),
    );
  });

  it('gives the same answer whatever order the sources list their entries in', () => {
    fc.assert(
      fc.property(side, side, fc.integer(), (primary, fallback, seed) => {
        const shuffled = [...entries(fallback)].sort(
          (x, y) => ((x.partition * 31 + seed) % 7) - ((y.partition * 31 + seed) % 7),
        );
        const a = blendWeights(PARTITIONS, entries(primary).reverse(), shuffled, 2);
        const b = blendWeights(PARTITIONS, entries(primary), entries(fallback), 2);
        expect(asMap(a.weights)).toEqual(asMap(b.weights));
      }),
    );
  });
});
