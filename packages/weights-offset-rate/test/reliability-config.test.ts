import { ConfigError } from '@load-aware/assignor';
import { createOffsetRateWeightSource, resolveOptions } from '@load-aware/weights-offset-rate/internal';
import { errorThrownBy } from '@load-aware/test-support';

/**
 * Every option of `createOffsetRateWeightSource(options)`, given a wrong type and a wrong range,
 * fails at construction with a `ConfigError` (`LOAD_AWARE_CONFIG`) naming the key. The table is
 * checked against the resolved options, so an option added later without a row here fails.
 */

const reader = { read: () => Promise.resolve([]) };
const SECRET = 'kafka-sasl-password-Zq81';

const WRONG_FOR_ALL: unknown[] = [null, Symbol('x'), [], 'x'];

const BAD: Record<string, unknown[]> = {
  kafka: [
    {},
    { brokers: ['localhost:9092'], sasl: { mechanism: 'plain', username: 'u', password: SECRET } },
    { admin: () => ({}) },
    { fetchTopicOffsets: () => [] },
    { read: true },
    () => undefined,
    undefined,
  ],
  rateIntervalMs: [1999, 3_600_001, 1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, '60000', 60_000n],
  sampleIntervalMs: [999, 30_001, 1500.5, 0, Number.NaN, '1000', false],
  sampleTimeoutMs: [99, 120_001, 0.5, -1, Number.NaN, '5000'],
  unmeasuredWeight: ['mean', 'OMIT', '', 0, true],
  smoothingHalfLifeMs: [-1, 86_400_001, 0.5, Number.NaN, '0'],
  instantTimeoutMs: [-1, 30_001, 2.5, Number.NaN, '500', true],
  // 30 000 is below the default rateIntervalMs (60 000): the cross-field rule.
  untrackAfterMs: [1999, 7 * 24 * 3_600_000 + 1, 2500.5, Number.NaN, '600000', 30_000],
  logger: [console.log, {}, { debug() {}, info() {}, warn() {} }, 1],
  registry: [{}, { getSingleMetric() {} }, 'default'],
  clock: [
    Date.now,
    {},
    { now: () => 0, setTimeout },
    performance,
    { now: () => 0, setTimeout, clearTimeout, epochMs: Date.now() },
  ],
};

/** The option each resolved key comes from. */
const OPTION_OF: Record<string, string> = { client: 'kafka' };

function configErrorOf(options: unknown): ConfigError {
  return errorThrownBy(() => createOffsetRateWeightSource(options as never), ConfigError);
}

/** Every string reachable from a value (own properties, causes, arrays), to look for secrets. */
function reachableStrings(root: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === 'string') out.push(value);
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > 8) return;
    seen.add(value);
    if (value instanceof Error) {
      out.push(value.message, value.stack ?? '');
      visit(value.cause, depth + 1);
    }
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key === 'string') out.push(key);
      visit((value as Record<string | symbol, unknown>)[key], depth + 1);
    }
  };
  visit(root, 0);
  return out;
}

const cases = Object.entries(BAD).flatMap(([key, values]) =>
  [...values, ...(key === 'kafka' ? [] : WRONG_FOR_ALL)].map((value) => [key, value] as const),
);

describe('createOffsetRateWeightSource config errors (every option)', () => {
  it('has a row for every option the source resolves', () => {
    const resolved = Object.keys(resolveOptions({ kafka: reader })).map((k) => OPTION_OF[k] ?? k);
    expect(resolved.sort()).toEqual(Object.keys(BAD).sort());
  });

  it.each(cases)('rejects %s = %p with LOAD_AWARE_CONFIG naming the key', (key, value) => {
    const err = configErrorOf({ kafka: reader, [key]: value });
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(key);
  });

  it('rejects a sample interval longer than the rate interval, naming sampleIntervalMs', () => {
    const err = configErrorOf({ kafka: reader, rateIntervalMs: 10_000, sampleIntervalMs: 20_000 });
    expect(err.message).toContain('sampleIntervalMs');
  });

  it('rejects missing options and non-object options', () => {
    for (const options of [undefined, null, {}, 'kafka', 42]) {
      expect(configErrorOf(options).code).toBe('LOAD_AWARE_CONFIG');
    }
  });

  it('never echoes a SASL password given where a Kafka was expected, in the message or the cause chain', () => {
    const err = configErrorOf({
      kafka: { brokers: ['b:9092'], sasl: { mechanism: 'plain', username: 'u', password: SECRET } },
    });
    expect(reachableStrings(err).filter((s) => s.includes(SECRET))).toEqual([]);
  });
});
