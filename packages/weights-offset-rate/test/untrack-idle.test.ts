import { Registry } from 'prom-client';
import type { TopicPartition } from '@load-aware/assignor';
import {
  createOffsetRateWeightSource,
  type OffsetRateWeightSource,
  type OffsetRateWeightSourceOptions,
} from '@load-aware/weights-offset-rate';
import { FakeClock, recordingLogger } from '@load-aware/test-support';
import { fakeReader, growing, tp, weightsOf, stoppedAfterEach } from './fakes';
import { metricValue } from './metrics-helpers';

/**
 * A partition no group asks about any more (the group unsubscribed, the consumer moved to other
 * topics) must not be sampled until stop(): every sample would carry it, and its history would be
 * kept, forever. It is untracked once nothing asked for it (getWeights or track) for
 * `untrackAfterMs`; asked-for partitions keep their history.
 */

const MINUTE = 60_000;
const asked = tp('orders', 0);
const forgotten = tp('audit', 0);

const sources = stoppedAfterEach();

function setup(options: Partial<OffsetRateWeightSourceOptions> = {}) {
  const clock = new FakeClock();
  const reader = fakeReader(clock);
  reader.offsets.set('orders:0', growing(100));
  reader.offsets.set('audit:0', growing(7));
  const registry = new Registry();
  const logger = recordingLogger();
  const source = createOffsetRateWeightSource({ kafka: reader, clock, registry, logger, ...options });
  sources.push(source);
  return { clock, reader, registry, logger, source };
}

/** Asks for `partitions` every minute for `minutes` minutes. */
async function askEveryMinute(
  clock: FakeClock,
  source: OffsetRateWeightSource,
  partitions: TopicPartition[],
  minutes: number,
) {
  for (let i = 0; i < minutes; i++) {
    await source.getWeights(partitions);
    await clock.advance(MINUTE);
  }
}

describe('partitions nobody asks about any more', () => {
  it('stop being sampled after untrackAfterMs (default max(10 × rateIntervalMs, 10 min)); asked ones keep their history', async () => {
    const { clock, reader, registry, source } = setup(); // rateIntervalMs 60 s: default 10 min
    source.start();
    await source.getWeights([asked, forgotten]);
    await askEveryMinute(clock, source, [asked], 9);
    expect(reader.calls.at(-1)).toEqual(['orders:0', 'audit:0']); // 9 min: still sampled
    await askEveryMinute(clock, source, [asked], 2);
    expect(reader.calls.at(-1)).toEqual(['orders:0']);
    expect(await metricValue(registry, 'load_aware_offset_rate_tracked_partitions')).toBe(1);
    // Work stays bounded: an hour later only the asked-for partition is read.
    await askEveryMinute(clock, source, [asked], 60);
    expect(new Set(reader.calls.slice(-50).flat())).toEqual(new Set(['orders:0']));
    // The asked-for partition never lost its history: it has a weight at once.
    expect(await weightsOf(source, [asked])).toEqual({ 'orders:0': 100 });
  });

  it('tracks a forgotten partition afresh when it is asked for again', async () => {
    const { clock, reader, source } = setup({ untrackAfterMs: 5 * MINUTE });
    source.start();
    await source.getWeights([asked, forgotten]);
    await askEveryMinute(clock, source, [asked], 7);
    expect(reader.calls.at(-1)).toEqual(['orders:0']);
    await source.getWeights([asked, forgotten]);
    await clock.advance(0);
    expect(reader.calls.at(-1)).toEqual(['orders:0', 'audit:0']);
  });

  it('counts track() as asking', async () => {
    const { clock, reader, source } = setup({ untrackAfterMs: 5 * MINUTE });
    source.start();
    source.track([asked, forgotten]);
    for (let i = 0; i < 8; i++) {
      source.track([forgotten]);
      await source.getWeights([asked]);
      await clock.advance(MINUTE);
    }
    expect(reader.calls.at(-1)).toEqual(['orders:0', 'audit:0']);
  });
});
