import { partitionKey, SnapshotWindow, type PartitionSeconds, type Snapshot } from '@load-aware/weights-otel/internal';

const snapshot = (atMs: number, seconds: Record<number, number>, topic = 'orders'): Snapshot => ({
  atMs,
  byPartition: new Map<string, PartitionSeconds>(
    Object.entries(seconds).map(([p, s]) => [
      partitionKey(topic, Number(p)),
      { topic, partition: Number(p), seconds: s },
    ]),
  ),
});

const weightsOf = (window: SnapshotWindow): Record<number, number> =>
  Object.fromEntries([...(window.rates()?.rates.values() ?? [])].map((r) => [r.partition, r.weight]));

describe('SnapshotWindow', () => {
  it('turns cumulative seconds into busy seconds per second between the base and the newest snapshot', () => {
    const window = new SnapshotWindow(60_000, 5_000);
    window.add(snapshot(0, { 0: 10, 1: 0 }));
    window.add(snapshot(30_000, { 0: 16, 1: 3 }));
    expect(window.rates()?.spanMs).toBe(30_000);
    expect(weightsOf(window)).toEqual({ 0: 0.2, 1: 0.1 });
  });

  it('starts the window at the newest snapshot at least windowMs old and drops the ones before it', () => {
    const window = new SnapshotWindow(60_000, 5_000);
    for (let t = 0; t <= 100_000; t += 10_000) window.add(snapshot(t, { 0: t / 1000 / 2 }));
    // Base at 40 s (the newest ≤ 100 − 60), nothing older kept.
    expect(window.size).toBe(7);
    expect(window.rates()?.spanMs).toBe(60_000);
    expect(weightsOf(window)).toEqual({ 0: 0.5 });
  });

  it('counts a partition the base does not have from zero: it had no handler call before', () => {
    const window = new SnapshotWindow(60_000, 5_000);
    window.add(snapshot(0, { 0: 1 }));
    window.add(snapshot(10_000, { 0: 1, 7: 2.5 }));
    expect(weightsOf(window)).toEqual({ 0: 0, 7: 0.25 });
  });

  it('answers nothing with one snapshot or a span under minSpanMs', () => {
    const window = new SnapshotWindow(60_000, 5_000);
    expect(window.rates()).toBeUndefined();
    window.add(snapshot(0, { 0: 1 }));
    expect(window.rates()).toBeUndefined();
    window.add(snapshot(4_999, { 0: 2 }));
    expect(window.rates()).toBeUndefined();
    window.add(snapshot(5_000, { 0: 2 }));
    expect(weightsOf(window)).toEqual({ 0: 0.2 });
  });

  it('leaves out a partition whose cumulative seconds went down (the series restarted)', () => {
    const window = new SnapshotWindow(60_000, 5_000);
    window.add(snapshot(0, { 0: 5, 1: 5 }));
    window.add(snapshot(10_000, { 0: 1, 1: 6 }));
    expect(weightsOf(window)).toEqual({ 1: 0.1 });
  });

  it('ignores a snapshot older than the newest one (a collection that finished late)', () => {
    const window = new SnapshotWindow(60_000, 5_000);
    window.add(snapshot(0, { 0: 0 }));
    window.add(snapshot(10_000, { 0: 1 }));
    window.add(snapshot(9_000, { 0: 50 }));
    expect(window.size).toBe(2);
    expect(weightsOf(window)).toEqual({ 0: 0.1 });
  });
});
