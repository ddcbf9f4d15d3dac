import { WeightsFailedError, type WeightSource } from '@load-aware/assignor/portable';
import { createWeightSnapshot } from '@load-aware/platformatic/internal';
import { errorThrownBy, recordingLogger } from '@load-aware/test-support';
import { staticWeights } from './fakes';

const partitions = [0, 1, 2].map((partition) => ({ topic: 'orders', partition }));

function snapshotOf(source: WeightSource, clock: { ms: number }, logger = recordingLogger()) {
  return createWeightSnapshot({
    source,
    timeoutMs: 200,
    refreshMs: 0,
    maxAgeMs: 10_000,
    logger,
    now: () => clock.ms,
    serving: () => true,
  });
}

describe('weight snapshot', () => {
  it('has no weights to read before its first refresh, so the assignment falls back', () => {
    const snapshot = snapshotOf(staticWeights({}), { ms: 0 });
    expect(errorThrownBy(() => snapshot.read(partitions), WeightsFailedError).code).toBe('LOAD_AWARE_WEIGHTS_FAILED');
  });

  it('answers from the latest refresh with its age, and counts partitions it has no answer for', async () => {
    const clock = { ms: 1000 };
    const snapshot = snapshotOf(staticWeights({ 'orders:0': 5, 'orders:1': 7 }), clock);
    await snapshot.refresh('g', partitions, 'join');
    clock.ms = 3500;
    const reading = snapshot.read(partitions);
    expect(reading.weights.map((w) => w.weight)).toEqual([5, 7]);
    expect(reading.ageMs).toBe(2500);
    expect(reading.cause).toBe('join');
    expect(reading.unknown).toBe(1);
  });

  it('keeps the previous answer while the source fails, warns once per failing streak, and refuses it once too old', async () => {
    const clock = { ms: 0 };
    let fail = false;
    const inner = staticWeights({ 'orders:0': 5 });
    const source: WeightSource = {
      getWeights: (ps) => (fail ? Promise.reject(new Error('down')) : inner.getWeights(ps)),
    };
    const logger = recordingLogger();
    const snapshot = snapshotOf(source, clock, logger);
    await snapshot.refresh('g', partitions, 'join');
    fail = true;
    await snapshot.refresh('g', partitions, 'join');
    await snapshot.refresh('g', partitions, 'background');
    expect(logger.messages('warn')).toHaveLength(1);
    clock.ms = 9000;
    expect(snapshot.read(partitions).weights).toHaveLength(1);
    clock.ms = 10_001;
    const err = errorThrownBy(() => snapshot.read(partitions), WeightsFailedError);
    expect(err.message).toContain('maxWeightsAgeMs=10000');
    expect(err.message).toContain('down');
  });

  it('asks the source for every group it serves, one refresh at a time', async () => {
    let calls = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const asked: number[] = [];
    const source: WeightSource = {
      getWeights: async (ps) => {
        calls++;
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        asked.push(ps.length);
        await new Promise((r) => setTimeout(r, 10));
        concurrent--;
        return [];
      },
    };
    const snapshot = snapshotOf(source, { ms: 0 });
    await Promise.all([
      snapshot.refresh('a', partitions, 'join'),
      snapshot.refresh('b', [{ topic: 'payments', partition: 0 }], 'join'),
      snapshot.refresh('b', [{ topic: 'payments', partition: 0 }], 'join'),
    ]);
    expect(maxConcurrent).toBe(1);
    // The first call, then one more for everything that arrived meanwhile.
    expect(calls).toBe(2);
    expect(asked).toEqual([3, 4]);
  });

  it('refreshes in the background every refreshMs while a consumer is served, and stops when none is', async () => {
    jest.useFakeTimers();
    try {
      let calls = 0;
      let serving = true;
      const source: WeightSource = {
        getWeights: () => {
          calls++;
          return Promise.resolve([]);
        },
      };
      const snapshot = createWeightSnapshot({
        source,
        timeoutMs: 200,
        refreshMs: 20,
        maxAgeMs: 10_000,
        logger: recordingLogger(),
        serving: () => serving,
      });
      await snapshot.refresh('g', partitions, 'join');
      await jest.advanceTimersByTimeAsync(100);
      expect(calls).toBe(6); // the join's refresh, then one every 20 ms
      // Consumers gone without anyone saying so: the next tick stops the timer without asking.
      serving = false;
      await jest.advanceTimersByTimeAsync(100);
      expect(calls).toBe(6);
      expect(jest.getTimerCount()).toBe(0);
      // A join starts it again.
      serving = true;
      await snapshot.refresh('g', partitions, 'join');
      await jest.advanceTimersByTimeAsync(40);
      expect(calls).toBe(9);
      // Told at once, it stops at once.
      serving = false;
      snapshot.stopIfIdle();
      expect(jest.getTimerCount()).toBe(0);
      await jest.advanceTimersByTimeAsync(100);
      expect(calls).toBe(9);
    } finally {
      jest.useRealTimers();
    }
  });
});
