import type { Batch, EachBatchPayload, EachMessagePayload, KafkaMessage } from 'kafkajs';
import { Registry } from 'prom-client';
import { ConfigError, isLoadAwareError } from '@load-aware/assignor';
import {
  BUSY_SECONDS_METRIC,
  createBusyTimeRecorder,
  createRecorderWithClocks,
  MESSAGES_METRIC,
  type Clocks,
} from '@load-aware/busy-time/internal';
import { errorThrownBy } from '@load-aware/test-support';

/** Clocks the test moves by hand; `wall` and `cpu` move independently. */
function fakeClocks(): Clocks & { wallNow: number; cpuNow: number } {
  const clocks = {
    wallNow: 100,
    cpuNow: 7,
    wall: () => clocks.wallNow,
    cpu: () => clocks.cpuNow,
  };
  return clocks;
}

async function counterValues(registry: Registry, name: string): Promise<Map<string, number>> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`${name} not registered`);
  const { values } = await metric.get();
  return new Map(values.map((v) => [`${String(v.labels['topic'])}:${String(v.labels['partition'])}`, v.value]));
}

function messagePayload(topic: string, partition: number): EachMessagePayload {
  return {
    topic,
    partition,
    message: { offset: '0' } as KafkaMessage,
    heartbeat: () => Promise.resolve(),
    pause: () => () => undefined,
  };
}

function batchPayload(topic: string, partition: number, offsets: string[], resolved: string[] = []): EachBatchPayload {
  const batch = {
    topic,
    partition,
    messages: offsets.map((offset) => ({ offset }) as KafkaMessage),
  } as unknown as Batch;
  return {
    batch,
    resolveOffset: (offset: string) => {
      resolved.push(offset);
    },
    heartbeat: () => Promise.resolve(),
    pause: () => () => undefined,
    commitOffsetsIfNecessary: () => Promise.resolve(),
    uncommittedOffsets: () => ({ topics: [] }),
    isRunning: () => true,
    isStale: () => false,
  };
}

describe('createBusyTimeRecorder', () => {
  let registry: Registry;
  beforeEach(() => {
    registry = new Registry();
  });

  it('counts the wall time of each eachMessage call on its partition, awaited time included', async () => {
    const clocks = fakeClocks();
    const busy = createRecorderWithClocks({ registry }, clocks);
    const handler = busy.eachMessage(async ({ partition }) => {
      await Promise.resolve();
      clocks.wallNow += partition === 0 ? 0.02 : 0.0001;
      clocks.cpuNow += 1; // CPU time must not leak into the wall counter
    });
    for (let i = 0; i < 3; i++) await handler(messagePayload('orders', 0));
    await handler(messagePayload('orders', 1));

    const seconds = await counterValues(registry, BUSY_SECONDS_METRIC.wall);
    expect(seconds.get('orders:0')).toBeCloseTo(0.06, 10);
    expect(seconds.get('orders:1')).toBeCloseTo(0.0001, 10);
    const messages = await counterValues(registry, MESSAGES_METRIC);
    expect(messages.get('orders:0')).toBe(3);
    expect(messages.get('orders:1')).toBe(1);
    expect(registry.getSingleMetric(BUSY_SECONDS_METRIC.cpu)).toBeUndefined();
  });

  it('counts CPU time on its own counter when the clock is cpu', async () => {
    const clocks = fakeClocks();
    const busy = createRecorderWithClocks({ registry, clock: 'cpu' }, clocks);
    await busy.eachMessage(() => {
      clocks.wallNow += 5;
      clocks.cpuNow += 0.25;
      return Promise.resolve();
    })(messagePayload('orders', 2));

    expect((await counterValues(registry, BUSY_SECONDS_METRIC.cpu)).get('orders:2')).toBe(0.25);
    expect(registry.getSingleMetric(BUSY_SECONDS_METRIC.wall)).toBeUndefined();
  });

  it('counts the time of a handler that throws, but not its message, and rethrows the same error', async () => {
    const clocks = fakeClocks();
    const busy = createRecorderWithClocks({ registry }, clocks);
    const boom = new Error('enrichment failed');
    const handler = busy.eachMessage(() => {
      clocks.wallNow += 0.5;
      return Promise.reject(boom);
    });
    await expect(handler(messagePayload('orders', 0))).rejects.toBe(boom);

    expect((await counterValues(registry, BUSY_SECONDS_METRIC.wall)).get('orders:0')).toBe(0.5);
    expect((await counterValues(registry, MESSAGES_METRIC)).get('orders:0')).toBeUndefined();
  });

  it('hands each amount to the counter exactly once across scrapes', async () => {
    const clocks = fakeClocks();
    const busy = createRecorderWithClocks({ registry }, clocks);
    const handler = busy.eachMessage(() => {
      clocks.wallNow += 1;
      return Promise.resolve();
    });
    await handler(messagePayload('orders', 0));
    await registry.metrics();
    await registry.metrics();
    await handler(messagePayload('orders', 0));

    expect((await counterValues(registry, BUSY_SECONDS_METRIC.wall)).get('orders:0')).toBe(2);
    expect((await counterValues(registry, MESSAGES_METRIC)).get('orders:0')).toBe(2);
  });

  it('keeps totals over every partition that scrapes do not reset, failed time included', async () => {
    const clocks = fakeClocks();
    const busy = createRecorderWithClocks({ registry }, clocks);
    const other = createRecorderWithClocks({ registry }, clocks);
    const cpu = createRecorderWithClocks({ registry, clock: 'cpu' }, clocks);
    const work =
      (seconds: number, fail = false) =>
      () => {
        clocks.wallNow += seconds;
        clocks.cpuNow += seconds / 2;
        return fail ? Promise.reject(new Error('no')) : Promise.resolve();
      };
    expect(busy.totals()).toEqual({ busySeconds: 0, messages: 0 });
    await busy.eachMessage(work(0.25))(messagePayload('orders', 0));
    await registry.metrics();
    await other.eachMessage(work(0.5))(messagePayload('orders', 1));
    await expect(busy.eachMessage(work(0.25, true))(messagePayload('orders', 2))).rejects.toThrow('no');
    await cpu.eachMessage(work(2))(messagePayload('orders', 0));

    // Recorders of one registry and clock share the totals; the CPU clock keeps its own.
    expect(busy.totals()).toEqual({ busySeconds: 1, messages: 2 });
    expect(other.totals()).toEqual(busy.totals());
    expect(cpu.totals()).toEqual({ busySeconds: 1, messages: 1 });
  });

  it('never counts negative time when a clock goes backwards', async () => {
    const clocks = fakeClocks();
    const busy = createRecorderWithClocks({ registry }, clocks);
    await busy.eachMessage(() => {
      clocks.wallNow -= 3;
      return Promise.resolve();
    })(messagePayload('orders', 0));

    expect((await counterValues(registry, BUSY_SECONDS_METRIC.wall)).get('orders:0')).toBeUndefined();
    expect((await counterValues(registry, MESSAGES_METRIC)).get('orders:0')).toBe(1);
  });

  it('lets two recorders share one registry, each counting into the same series', async () => {
    const clocks = fakeClocks();
    const a = createRecorderWithClocks({ registry }, clocks);
    const b = createRecorderWithClocks({ registry }, clocks);
    const work = (): Promise<void> => {
      clocks.wallNow += 1;
      return Promise.resolve();
    };
    await a.eachMessage(work)(messagePayload('orders', 0));
    await b.eachMessage(work)(messagePayload('orders', 0));

    expect((await counterValues(registry, BUSY_SECONDS_METRIC.wall)).get('orders:0')).toBe(2);
  });

  it('keeps wall and CPU seconds apart on one registry and counts each message once', async () => {
    const clocks = fakeClocks();
    const wall = createRecorderWithClocks({ registry }, clocks);
    const cpu = createRecorderWithClocks({ registry, clock: 'cpu' }, clocks);
    const work = (): Promise<void> => {
      clocks.wallNow += 1;
      clocks.cpuNow += 0.5;
      return Promise.resolve();
    };
    await wall.eachMessage(work)(messagePayload('orders', 0));
    await cpu.eachMessage(work)(messagePayload('orders', 0));

    expect((await counterValues(registry, BUSY_SECONDS_METRIC.wall)).get('orders:0')).toBe(1);
    expect((await counterValues(registry, BUSY_SECONDS_METRIC.cpu)).get('orders:0')).toBe(0.5);
    expect((await counterValues(registry, MESSAGES_METRIC)).get('orders:0')).toBe(2);
  });

  it('keeps counting after the registry is cleared and a recorder registers the counters again', async () => {
    const clocks = fakeClocks();
    const first = createRecorderWithClocks({ registry }, clocks);
    const handler = first.eachMessage(() => {
      clocks.wallNow += 1;
      return Promise.resolve();
    });
    await handler(messagePayload('orders', 0));
    registry.clear();
    createRecorderWithClocks({ registry }, clocks);
    await handler(messagePayload('orders', 0));

    // Nothing is lost: an amount waits in the recorder until a counter on the registry takes it.
    expect((await counterValues(registry, BUSY_SECONDS_METRIC.wall)).get('orders:0')).toBe(2);
  });

  it('labels its series with topic and partition only', async () => {
    const clocks = fakeClocks();
    const busy = createRecorderWithClocks({ registry }, clocks);
    await busy.eachMessage(() => Promise.resolve())(messagePayload('orders', 0));
    for (const name of [BUSY_SECONDS_METRIC.wall, MESSAGES_METRIC]) {
      const { values } = await registry.getSingleMetric(name)!.get();
      for (const v of values) expect(Object.keys(v.labels).sort()).toEqual(['partition', 'topic']);
    }
  });

  describe('eachBatch', () => {
    it('gives the whole call to the batch partition and counts every message when none was resolved', async () => {
      const clocks = fakeClocks();
      const busy = createRecorderWithClocks({ registry }, clocks);
      await busy.eachBatch(() => {
        clocks.wallNow += 0.3;
        return Promise.resolve();
      })(batchPayload('orders', 4, ['10', '11', '12']));

      expect((await counterValues(registry, BUSY_SECONDS_METRIC.wall)).get('orders:4')).toBeCloseTo(0.3, 10);
      expect((await counterValues(registry, MESSAGES_METRIC)).get('orders:4')).toBe(3);
    });

    it('counts messages up to the highest resolved offset and still resolves them in KafkaJS', async () => {
      const clocks = fakeClocks();
      const busy = createRecorderWithClocks({ registry }, clocks);
      const resolved: string[] = [];
      const stop = new Error('rebalance');
      const handler = busy.eachBatch((payload) => {
        // Two handled, then the handler gives up (e.g. the consumer is stopping).
        payload.resolveOffset(payload.batch.messages[1]!.offset);
        payload.resolveOffset(payload.batch.messages[0]!.offset);
        clocks.wallNow += 0.1;
        return Promise.reject(stop);
      });
      await expect(handler(batchPayload('orders', 1, ['98', '99', '100', '101'], resolved))).rejects.toBe(stop);

      expect(resolved).toEqual(['99', '98']);
      expect((await counterValues(registry, MESSAGES_METRIC)).get('orders:1')).toBe(2);
      expect((await counterValues(registry, BUSY_SECONDS_METRIC.wall)).get('orders:1')).toBeCloseTo(0.1, 10);
    });

    it('counts no message of a batch whose handler throws before resolving any', async () => {
      const clocks = fakeClocks();
      const busy = createRecorderWithClocks({ registry }, clocks);
      await expect(
        busy.eachBatch(() => Promise.reject(new Error('x')))(batchPayload('orders', 0, ['1'])),
      ).rejects.toThrow('x');
      expect((await counterValues(registry, MESSAGES_METRIC)).get('orders:0')).toBeUndefined();
    });
  });

  describe('measure', () => {
    it('divides the time of cross-partition work in proportion to each partition’s messages', async () => {
      const clocks = fakeClocks();
      const busy = createRecorderWithClocks({ registry }, clocks);
      const result = await busy.measure(
        [
          { topic: 'orders', partition: 0, messages: 3 },
          { topic: 'orders', partition: 1, messages: 1 },
        ],
        () => {
          clocks.wallNow += 2;
          return 'written';
        },
      );

      expect(result).toBe('written');
      const seconds = await counterValues(registry, BUSY_SECONDS_METRIC.wall);
      expect(seconds.get('orders:0')).toBe(1.5);
      expect(seconds.get('orders:1')).toBe(0.5);
      expect((await counterValues(registry, MESSAGES_METRIC)).get('orders:0')).toBe(3);
    });

    it('divides equally when no share has messages, and ignores shares with unusable counts', async () => {
      const clocks = fakeClocks();
      const busy = createRecorderWithClocks({ registry }, clocks);
      await busy.measure(
        [
          { topic: 'a', partition: 0, messages: 0 },
          { topic: 'b', partition: 0, messages: 0 },
          { topic: 'c', partition: 0, messages: Number.NaN },
        ],
        () => {
          clocks.wallNow += 1;
        },
      );
      const seconds = await counterValues(registry, BUSY_SECONDS_METRIC.wall);
      expect(seconds.get('a:0')).toBe(0.5);
      expect(seconds.get('b:0')).toBe(0.5);
      expect(seconds.has('c:0')).toBe(false);
    });
  });

  describe('options', () => {
    it('throws a ConfigError naming a missing registry, an unknown clock and an unknown key', () => {
      const err = errorThrownBy(
        () => createBusyTimeRecorder({ clock: 'gpu', registy: new Registry() } as never),
        ConfigError,
      );
      expect(isLoadAwareError(err, 'LOAD_AWARE_CONFIG')).toBe(true);
      expect(err.message).toMatch(/registry/);
      expect(err.message).toMatch(/clock/);
      expect(err.message).toMatch(/registy/);
    });

    it('measures with the system clocks by default', async () => {
      const busy = createBusyTimeRecorder({ registry });
      await busy.eachMessage(() => new Promise((resolve) => setTimeout(resolve, 20)))(messagePayload('orders', 0));
      const seconds = (await counterValues(registry, BUSY_SECONDS_METRIC.wall)).get('orders:0')!;
      expect(seconds).toBeGreaterThanOrEqual(0.015);
      expect(seconds).toBeLessThan(5);
    });
  });
});
