import type { TopicPartition } from '@load-aware/assignor';
import { partitionLabel as keyOf } from '@load-aware/assignor/internal';
import type { FakeClock } from '@load-aware/test-support';
import type {
  EndOffsetResult,
  EndOffsetsReader,
  OffsetRateWeightSource,
} from '@load-aware/weights-offset-rate/internal';

/**
 * A reader answering from a table the test controls: per "topic:partition" an offset (or a
 * function of the clock), an Error (that partition fails) or nothing (missing from the answer).
 * `failAll` makes the whole read reject; `hold` makes reads wait until released.
 */
export function fakeReader(clock: FakeClock): EndOffsetsReader & {
  offsets: Map<string, bigint | ((nowMs: number) => bigint) | Error>;
  calls: string[][];
  failAll: Error | undefined;
  hold: boolean;
  release(): void;
} {
  let waiting: Array<() => void> = [];
  const reader = {
    offsets: new Map<string, bigint | ((nowMs: number) => bigint) | Error>(),
    calls: [] as string[][],
    failAll: undefined as Error | undefined,
    hold: false,
    release(): void {
      const wake = waiting;
      waiting = [];
      for (const w of wake) w();
    },
    async read(partitions: ReadonlyArray<TopicPartition>): Promise<EndOffsetResult[]> {
      reader.calls.push(partitions.map(keyOf));
      if (reader.hold) await new Promise<void>((resolve) => waiting.push(resolve));
      if (reader.failAll !== undefined) throw reader.failAll;
      return partitions.flatMap((p): EndOffsetResult[] => {
        const value = reader.offsets.get(keyOf(p));
        if (value === undefined) return [];
        if (value instanceof Error) return [{ ...p, error: value }];
        return [{ ...p, offset: typeof value === 'function' ? value(clock.now()) : value }];
      });
    },
  };
  return reader;
}

/** Offsets growing at `perSecond` from `start` at time 0. */
export function growing(perSecond: number, start = 0n): (nowMs: number) => bigint {
  return (nowMs) => start + BigInt(Math.floor((perSecond * nowMs) / 1000));
}

/** A partition, tersely. */
export const tp = (topic: string, partition: number): TopicPartition => ({ topic, partition });

/** What `source` answers for `partitions`, as "topic:partition" → weight. */
export async function weightsOf(
  source: Pick<OffsetRateWeightSource, 'getWeights'>,
  partitions: TopicPartition[],
): Promise<Record<string, number>> {
  return Object.fromEntries((await source.getWeights(partitions)).map((w) => [keyOf(w), w.weight]));
}

/**
 * A list to push every source a test creates onto; each is stopped after the test, so no sampler
 * timer outlives it. Call once at the top of a test file.
 */
export function stoppedAfterEach(): OffsetRateWeightSource[] {
  const sources: OffsetRateWeightSource[] = [];
  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.stop()));
  });
  return sources;
}
