import {
  ConfigError,
  ErrorCodes,
  LoadAwareAssigner,
  processInstanceId,
  resolveOptions,
} from '@load-aware/assignor/internal';
import { Registry } from 'prom-client';
import { errorThrownBy } from '@load-aware/test-support';

function configErrorOf(options: unknown): ConfigError {
  return errorThrownBy(() => resolveOptions(options), ConfigError);
}

describe('LoadAwareAssigner options', () => {
  it('applies documented defaults', () => {
    const resolved = resolveOptions({});
    expect(resolved.instanceId).toBe(processInstanceId);
    expect(resolved.capacity).toBe(1);
    expect(resolved.weightsTimeoutMs).toBe(5000);
    expect(resolved.defaultWeight).toBe(1);
    expect(resolved.registry).toBeUndefined();
    expect(Object.isFrozen(resolved)).toBe(true);
  });

  it('gives every consumer of one process the same default instance id', () => {
    expect(LoadAwareAssigner().instanceId).toBe(LoadAwareAssigner().instanceId);
  });

  it('accepts a full, valid configuration', () => {
    const resolved = resolveOptions({
      weights: { getWeights: () => Promise.resolve([]) },
      instanceId: 'pod-1',
      capacity: 4,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      registry: new Registry(),
      weightsTimeoutMs: 100,
      defaultWeight: 0,
    });
    expect(resolved.instanceId).toBe('pod-1');
    expect(resolved.capacity).toBe(4);
  });

  it.each([
    ['capacity', { capacity: -1 }],
    ['capacity', { capacity: Number.NaN }],
    ['capacity', { capacity: '2' }],
    ['weightsTimeoutMs', { weightsTimeoutMs: 0 }],
    ['weightsTimeoutMs', { weightsTimeoutMs: 1.5 }],
    ['instanceId', { instanceId: '' }],
    ['instanceId', { instanceId: 'é'.repeat(200) }],
    ['weights', { weights: { getWeight: () => [] } }],
    ['logger', { logger: console.log }],
    ['registry', { registry: {} }],
    ['defaultWeight', { defaultWeight: -1 }],
    ['wieghts', { wieghts: {} }],
  ])('names the bad key %s in a ConfigError', (key, options) => {
    const err = configErrorOf(options);
    expect(err.code).toBe(ErrorCodes.config);
    expect(err.message).toContain(key);
  });

  it.each([Number.MIN_VALUE, 1e-4, 1e9])('rejects capacity %p and says the accepted range', (capacity) => {
    expect(configErrorOf({ capacity }).message).toContain('expected a capacity from 0.001 to 1000000');
  });

  it('accepts the bounds of capacity themselves', () => {
    expect(resolveOptions({ capacity: 1e-3 }).capacity).toBe(1e-3);
    expect(resolveOptions({ capacity: 1e6 }).capacity).toBe(1e6);
  });

  it('rejects bad options when the assigner is created, not at the first rebalance', () => {
    expect(() => LoadAwareAssigner({ capacity: 0 })).toThrow(ConfigError);
  });
});
