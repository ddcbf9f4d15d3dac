import { ConfigError, type PartitionWeight, type TopicPartition, type WeightSource } from '@load-aware/assignor';
import { blendWeights, createBlendWeightSource } from '@load-aware/busy-time/internal';
import { errorThrownBy, recordingLogger } from '@load-aware/test-support';

const partitions = (count: number, topic = 'orders'): TopicPartition[] =>
  Array.from({ length: count }, (_, partition) => ({ topic, partition }));

const entries = (weights: ReadonlyArray<number | undefined>, topic = 'orders'): PartitionWeight[] =>
  weights.flatMap((weight, partition) => (weight === undefined ? [] : [{ topic, partition, weight }]));

const source = (answer: () => Promise<ReadonlyArray<PartitionWeight>>): WeightSource => ({ getWeights: answer });

const byPartition = (weights: ReadonlyArray<PartitionWeight>): Record<number, number> =>
  Object.fromEntries(weights.map((w) => [w.partition, w.weight]));

describe('blendWeights', () => {
  it('keeps the primary where it knows a partition and fills the rest with the fallback at the median ratio', () => {
    // Busy seconds per second vs messages per second; partition 3 is new (no busy time yet).
    const outcome = blendWeights(partitions(4), entries([0.2, 0.02, 0.01, undefined]), entries([10, 10, 5, 20]), 3);
    // Ratios 0.02, 0.002, 0.002: median 0.002 s per message.
    expect(outcome.mode).toBe('blend');
    expect(outcome.ratio).toBeCloseTo(0.002, 12);
    expect(outcome.overlap).toBe(3);
    expect(outcome.filled).toBe(1);
    const weights = byPartition(outcome.weights);
    expect(weights[0]).toBe(0.2);
    expect(weights[3]).toBeCloseTo(0.04, 12);
  });

  it('weighs a partition with traffic but zero busy time by its traffic, never as free', () => {
    const outcome = blendWeights(partitions(4), entries([1, 2, 3, 0]), entries([1, 2, 3, 50]), 3);
    expect(byPartition(outcome.weights)[3]).toBe(50);
  });

  it('trusts a zero busy time when the fallback sees no traffic either', () => {
    const outcome = blendWeights(partitions(4), entries([1, 2, 3, 0]), entries([1, 2, 3, 0]), 3);
    expect(byPartition(outcome.weights)[3]).toBe(0);
  });

  it('trusts busy time on a partition whose traffic stopped (a backlog is still being handled)', () => {
    const outcome = blendWeights(partitions(4), entries([1, 2, 3, 4]), entries([1, 2, 3, 0]), 3);
    expect(byPartition(outcome.weights)[3]).toBe(4);
  });

  it('answers with the fallback alone, in its own units, when too few partitions fix the scale', () => {
    const outcome = blendWeights(partitions(3), entries([0.5, undefined, undefined]), entries([10, 20, 30]), 3);
    expect(outcome.mode).toBe('fallback');
    expect(outcome.ratio).toBeUndefined();
    expect(byPartition(outcome.weights)).toEqual({ 0: 10, 1: 20, 2: 30 });
  });

  it('answers with the primary alone when the fallback knows nothing', () => {
    const outcome = blendWeights(partitions(2), entries([0.5, 0.25]), [], 1);
    expect(outcome.mode).toBe('primary');
    expect(byPartition(outcome.weights)).toEqual({ 0: 0.5, 1: 0.25 });
  });

  it('reports only requested partitions and resolves duplicates by the largest usable weight', () => {
    const outcome = blendWeights(
      partitions(2),
      [...entries([1, 2]), { topic: 'orders', partition: 1, weight: 4 }, { topic: 'other', partition: 0, weight: 9 }],
      entries([1, 2]),
      1,
    );
    expect(outcome.weights).toEqual([
      { topic: 'orders', partition: 0, weight: 1 },
      { topic: 'orders', partition: 1, weight: 4 },
    ]);
  });

  it('keeps one outlier cost from setting the scale (median, not mean)', () => {
    const outcome = blendWeights(partitions(4), entries([100, 1, 1, undefined]), entries([1, 1, 1, 10]), 3);
    expect(outcome.ratio).toBe(1);
    expect(byPartition(outcome.weights)[3]).toBe(10);
  });
});

describe('createBlendWeightSource', () => {
  it('blends the answers of both sources', async () => {
    const blend = createBlendWeightSource({
      primary: source(() => Promise.resolve(entries([2, 4, 6, undefined]))),
      fallback: source(() => Promise.resolve(entries([1, 2, 3, 5]))),
    });
    expect(byPartition(await blend.getWeights(partitions(4)))).toEqual({ 0: 2, 1: 4, 2: 6, 3: 10 });
  });

  it('answers with the fallback alone, with a WARN, when the primary fails', async () => {
    const logger = recordingLogger();
    const blend = createBlendWeightSource({
      primary: source(() => Promise.reject(new Error('prometheus down'))),
      fallback: source(() => Promise.resolve(entries([1, 2]))),
      logger,
    });
    expect(byPartition(await blend.getWeights(partitions(2)))).toEqual({ 0: 1, 1: 2 });
    expect(logger.records.some((r) => r.level === 'warn' && r.fields['component'] === 'blend')).toBe(true);
  });

  it('answers with the primary alone when the fallback times out', async () => {
    const blend = createBlendWeightSource({
      primary: source(() => Promise.resolve(entries([1, 2]))),
      fallback: source(() => new Promise(() => undefined)),
      timeoutMs: 20,
    });
    expect(byPartition(await blend.getWeights(partitions(2)))).toEqual({ 0: 1, 1: 2 });
  });

  it('rejects with the primary error when both sources fail', async () => {
    const primaryError = new Error('primary');
    const blend = createBlendWeightSource({
      primary: source(() => Promise.reject(primaryError)),
      fallback: source(() => Promise.reject(new Error('fallback'))),
    });
    await expect(blend.getWeights(partitions(1))).rejects.toMatchObject({ cause: primaryError });
  });

  it('throws a ConfigError naming a missing fallback and a bad minOverlap', () => {
    const err = errorThrownBy(
      () => createBlendWeightSource({ primary: source(() => Promise.resolve([])), minOverlap: 0 } as never),
      ConfigError,
    );
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toMatch(/fallback/);
    expect(err.message).toMatch(/minOverlap/);
  });
});
