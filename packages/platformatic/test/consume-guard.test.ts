import { Readable } from 'node:stream';
import { LoadAwareAssigner, isLoadAwareError, withSafeConsumeMode } from '@load-aware/platformatic';
import { filterDeliveries, type GuardedConsumeOptions } from '@load-aware/platformatic/internal';
import { recordingLogger } from '@load-aware/test-support';
import { FakeConsumer, kOptions } from './fakes';

const CODE = 'LOAD_AWARE_PLATFORMATIC_UNSAFE_CONSUME_MODE';

/** A fake consumer with a `consume()` that records its options and answers a readable stream. */
class ConsumingFake extends FakeConsumer {
  readonly calls: GuardedConsumeOptions[] = [];
  readonly streams: Readable[] = [];
  consume(options: GuardedConsumeOptions, callback?: (error: Error | null, stream?: unknown) => void): unknown {
    this.calls.push(options);
    const stream = new Readable({ objectMode: true, read: () => undefined });
    this.streams.push(stream);
    if (callback !== undefined) {
      callback(null, stream);
      return undefined;
    }
    return Promise.resolve(stream);
  }
}

const message = (partition: number, offset: number) => ({ topic: 'orders', partition, offset });

describe('withSafeConsumeMode', () => {
  it("fills in mode 'committed' and fallbackMode 'earliest' when they are left out, keeping every other option", () => {
    expect(withSafeConsumeMode({ topics: ['orders'], autocommit: false }, () => undefined)).toEqual({
      topics: ['orders'],
      autocommit: false,
      mode: 'committed',
      fallbackMode: 'earliest',
    });
  });

  it.each(['latest', 'earliest', 'manual'])("refuses mode '%s' with its code", (mode) => {
    let thrown: unknown;
    try {
      withSafeConsumeMode({ mode }, () => undefined);
    } catch (err) {
      thrown = err;
    }
    expect(isLoadAwareError(thrown, CODE)).toBe(true);
    expect((thrown as Error).message).toContain(`mode: '${mode}'`);
  });

  it("warns on fallbackMode 'latest' and passes 'fail' and 'earliest' silently", () => {
    const warned: string[] = [];
    const warn = (fallback: string) => warned.push(fallback);
    expect(withSafeConsumeMode({ mode: 'committed', fallbackMode: 'latest' }, warn).fallbackMode).toBe('latest');
    expect(withSafeConsumeMode({ fallbackMode: 'fail' }, warn).fallbackMode).toBe('fail');
    expect(withSafeConsumeMode({ fallbackMode: 'earliest' }, warn).fallbackMode).toBe('earliest');
    expect(warned).toEqual(['latest']);
  });
});

describe('guardConsume (through attach)', () => {
  const attached = (autocommit?: boolean) => {
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({ logger });
    const options = assigner.groupOptions();
    const consumer = new ConsumingFake('orders-group', options);
    if (autocommit !== undefined) Object.assign(consumer[kOptions], { autocommit });
    assigner.attach(consumer);
    return { consumer, logger };
  };

  it('passes the safe mode on to the real consume()', async () => {
    const { consumer } = attached();
    await consumer.consume({ topics: ['orders'] } as GuardedConsumeOptions);
    expect(consumer.calls).toEqual([{ topics: ['orders'], mode: 'committed', fallbackMode: 'earliest' }]);
  });

  it('rejects an unsafe mode without calling consume(), with an ERROR carrying the code, by promise and by callback', async () => {
    const { consumer, logger } = attached();
    await expect(consumer.consume({ mode: 'latest' })).rejects.toMatchObject({ code: CODE });
    const viaCallback = await new Promise<Error | null>((resolve) => {
      consumer.consume({ mode: 'earliest' }, (error) => {
        resolve(error);
      });
    });
    expect(viaCallback).toMatchObject({ code: CODE });
    expect(consumer.calls).toEqual([]);
    expect(logger.records.filter((r) => r.level === 'error').map((r) => r.fields['code'])).toEqual([CODE, CODE]);
  });

  it("logs a WARN with the code for fallbackMode 'latest' and consumes", async () => {
    const { consumer, logger } = attached();
    await consumer.consume({ fallbackMode: 'latest' });
    expect(consumer.calls).toHaveLength(1);
    expect(logger.records.filter((r) => r.level === 'warn').map((r) => r.fields['code'])).toEqual([CODE]);
  });

  it('drops messages of revoked partitions under manual commits only', async () => {
    for (const [autocommit, expected] of [
      [false, [0]],
      [true, [0, 1]],
    ] as const) {
      const { consumer } = attached();
      consumer.joined('m1', 1, [0, 1]);
      const stream = (await consumer.consume({ autocommit })) as Readable;
      stream.push(message(0, 5));
      stream.push(message(1, 7));
      consumer.joined('m1', 2, [0]);
      stream.push(null);
      const seen: number[] = [];
      for await (const m of stream) seen.push((m as { partition: number }).partition);
      expect(seen).toEqual(expected);
    }
  });

  it("reads autocommit from the consumer's own options when consume() leaves it out", async () => {
    const { consumer } = attached(false);
    consumer.joined('m1', 1, [0]);
    const stream = (await consumer.consume({})) as Readable;
    stream.push(message(1, 1));
    stream.push(message(0, 2));
    stream.push(null);
    const seen: number[] = [];
    for await (const m of stream) seen.push((m as { offset: number }).offset);
    expect(seen).toEqual([2]);
  });
});

describe('filterDeliveries', () => {
  const owner = (partitions: number[]) => ({ assignments: [{ topic: 'orders', partitions }] });

  it("hides revoked partitions' buffered messages from 'data' listeners (flowing mode)", async () => {
    const consumer = owner([0, 1]);
    const stream = new Readable({ objectMode: true, read: () => undefined });
    filterDeliveries(stream, consumer, { dropRevoked: true });
    for (const m of [message(0, 1), message(1, 1), message(0, 2), message(1, 2)]) stream.push(m);
    consumer.assignments = [{ topic: 'orders', partitions: [1] }];
    stream.push(null);
    const seen: string[] = [];
    stream.on('data', (m: { partition: number; offset: number }) =>
      seen.push(`${String(m.partition)}@${String(m.offset)}`),
    );
    await new Promise((resolve) => stream.on('end', resolve));
    expect(seen).toEqual(['1@1', '1@2']);
  });

  it('passes everything before the first assignment and anything that is not a message', async () => {
    const stream = new Readable({ objectMode: true, read: () => undefined });
    filterDeliveries(stream, { assignments: null }, { dropRevoked: true });
    stream.push(message(3, 1));
    stream.push({ other: true });
    stream.push(null);
    const seen: unknown[] = [];
    for await (const m of stream) seen.push(m);
    expect(seen).toHaveLength(2);
  });

  it('hands each offset out once while the partition stays, and again after it was lost and came back', async () => {
    const consumer = owner([0, 1]);
    const stream = new Readable({ objectMode: true, read: () => undefined });
    filterDeliveries(stream, consumer, { dropRevoked: false });
    const seen: string[] = [];
    stream.on('data', (m: { partition: number; offset: number }) =>
      seen.push(`${String(m.partition)}@${String(m.offset)}`),
    );
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    // Buffered 5..7, then a join moves the partition back to its committed offset 6.
    for (const offset of [5, 6, 7, 6, 7, 8]) stream.push(message(0, offset));
    await settle();
    expect(seen).toEqual(['0@5', '0@6', '0@7', '0@8']);
    // Partition 0 is lost (autocommit: its buffered rest still goes out), then given back.
    consumer.assignments = [{ topic: 'orders', partitions: [1] }];
    stream.push(message(1, 1));
    await settle();
    consumer.assignments = [{ topic: 'orders', partitions: [0, 1] }];
    for (const offset of [7, 8]) stream.push(message(0, offset));
    await settle();
    expect(seen).toEqual(['0@5', '0@6', '0@7', '0@8', '1@1', '0@7', '0@8']);
  });
});
