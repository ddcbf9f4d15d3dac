import { ConfigError, ErrorCodes, LoadAwareAssigner, resolveOptions } from '@load-aware/assignor/internal';
import { errorThrownBy } from '@load-aware/test-support';

/**
 * Every option of `LoadAwareAssigner(options)`, given a wrong type and a wrong range, fails at
 * construction with a `ConfigError` (`LOAD_AWARE_CONFIG`) whose message names the key. The table
 * is checked against the resolved options, so an option added later without a row here fails.
 */

/** Values that are wrong whatever the option: none of them is a valid value of any key below. */
const WRONG_FOR_ALL: unknown[] = [null, Symbol('x'), () => undefined];

const BAD: Record<string, unknown[]> = {
  weights: [{}, { getWeight: () => [] }, 'prometheus', 1, [], { getWeights: 'nope' }],
  instanceId: ['', 42, 'é'.repeat(128), 'pod\nforged', 'pod\u202e', ['pod'], { id: 'pod' }, true],
  rack: ['', 42, 'é'.repeat(128), 'zone\nforged', 'zone\u202e', ['a'], true],
  replicaRacks: ['leaders', 'ALL', 1, true, ['all']],
  capacity: [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e10, 1e6 * 1.000001, 9.99e-4, Number.MIN_VALUE, '2', 2n],
  logger: [console.log, {}, { info() {} }, 'pino', 1],
  registry: [{}, { registerMetric() {} }, 'default', 1],
  weightsTimeoutMs: [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 600_001, '5000', 5000n],
  defaultWeight: [-1, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_VALUE, '1', false],
  moveTolerance: [-0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '0.05', true],
  orphanAim: [-0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '0.25', true],
  maxMovesPerRebalance: [-1, 1.5, Number.NaN, '3', {}],
  crossGroup: [
    {},
    { groups: [] },
    { groups: [''] },
    { groups: 'orders' },
    { groups: Array.from({ length: 51 }, (_, i) => `g${String(i)}`) },
    { groups: ['orders'], turnMs: 999 },
    { groups: ['orders'], maxStaleMs: -1 },
    { groups: ['orders'], turnMs: 1.5 },
    { groups: ['orders'], extra: true },
    ['orders'],
  ],
  staticMembership: [1, 'true', {}],
  leaveOnDisconnect: [1, 'yes', {}],
};

function configErrorOf(options: unknown): ConfigError {
  return errorThrownBy(() => LoadAwareAssigner(options as never), ConfigError);
}

const cases = Object.entries(BAD).flatMap(([key, values]) =>
  [...values, ...WRONG_FOR_ALL].map((value) => [key, value] as const),
);

describe('LoadAwareAssigner config errors (every option)', () => {
  it('has a row for every option the assigner resolves', () => {
    expect(Object.keys(resolveOptions({})).sort()).toEqual(Object.keys(BAD).sort());
  });

  it.each(cases)('rejects %s = %p with LOAD_AWARE_CONFIG naming the key', (key, value) => {
    const err = configErrorOf({ [key]: value });
    expect(err.code).toBe(ErrorCodes.config);
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(key);
  });

  it('resolves crossGroup with its defaults, the groups sorted and without duplicates', () => {
    expect(resolveOptions({ crossGroup: { groups: ['payments', 'orders', 'payments'] } }).crossGroup).toEqual({
      groups: ['orders', 'payments'],
      maxStaleMs: 120_000,
      turnMs: 60_000,
    });
    expect(resolveOptions({}).crossGroup).toBeUndefined();
  });

  it('requires an explicit instanceId with staticMembership, naming both', () => {
    const err = configErrorOf({ staticMembership: true });
    expect(err.message).toContain('instanceId');
    expect(err.message).toContain('staticMembership');
    expect(resolveOptions({ staticMembership: true, instanceId: 'pod-0' }).staticMembership).toBe(true);
    expect(resolveOptions({}).staticMembership).toBe(false);
    expect(resolveOptions({}).leaveOnDisconnect).toBe(false);
  });

  it('names every bad key at once, plus unknown keys', () => {
    const err = configErrorOf({ capacity: -1, weightsTimeoutMs: 'x', wieghts: {}, instanceID: 'a' });
    for (const key of ['capacity', 'weightsTimeoutMs', 'wieghts', 'instanceID']) expect(err.message).toContain(key);
  });

  it.each([
    ['a string', 'pod-1'],
    ['a number', 7],
    ['an array', []],
    ['a function', () => ({})],
  ])('rejects options that are %s as a whole', (_what, options) => {
    expect(configErrorOf(options).code).toBe('LOAD_AWARE_CONFIG');
  });
});
