import { ConfigError } from '@load-aware/assignor/portable';
import { LoadAwareAssigner } from '@load-aware/platformatic';
import { DEFAULT_MAX_WEIGHTS_AGE_MS, resolvePlatformaticOptions } from '@load-aware/platformatic/internal';
import { errorThrownBy } from '@load-aware/test-support';

describe('options of LoadAwareAssigner', () => {
  it('fills in the same defaults as the KafkaJS assigner, and eager mode', () => {
    const o = resolvePlatformaticOptions({});
    expect(o.mode).toBe('eager');
    expect(o.maxWeightsAgeMs).toBe(DEFAULT_MAX_WEIGHTS_AGE_MS);
    expect(o.placement.weightsTimeoutMs).toBe(5000);
    expect(o.placement.defaultWeight).toBe(1);
    expect(o.placement.moveTolerance).toBe(0.05);
    expect(o.placement.crossGroup).toBeUndefined();
    expect(o.placement.staticMembership).toBe(false);
    expect(Object.isFrozen(o)).toBe(true);
  });

  it("refuses a bad shared key with the KafkaJS assigner's rule, as a ConfigError naming it", () => {
    const err = errorThrownBy(() => LoadAwareAssigner({ capacity: 0 }), ConfigError);
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain('capacity');
    expect(err.message).toContain('LoadAwareAssigner');
  });

  it('refuses the KafkaJS-only keys: the static membership switches (consumers take groupInstanceId)', () => {
    for (const key of ['staticMembership', 'leaveOnDisconnect']) {
      const err = errorThrownBy(() => resolvePlatformaticOptions({ [key]: true }), ConfigError);
      expect(err.code).toBe('LOAD_AWARE_CONFIG');
      expect(err.message).toContain(key);
    }
  });

  it('takes crossGroup by the KafkaJS rules: groups sorted, defaults filled, a bad one refused', () => {
    const o = resolvePlatformaticOptions({ crossGroup: { groups: ['payments', 'orders'] } });
    expect(o.placement.crossGroup).toEqual({ groups: ['orders', 'payments'], maxStaleMs: 120_000, turnMs: 60_000 });
    const err = errorThrownBy(() => resolvePlatformaticOptions({ crossGroup: { groups: [] } }), ConfigError);
    expect(err.message).toContain('crossGroup');
  });

  it('refuses an unknown mode and a weight age below a second', () => {
    expect(errorThrownBy(() => resolvePlatformaticOptions({ mode: 'incremental' }), ConfigError).message).toContain(
      'mode',
    );
    expect(errorThrownBy(() => resolvePlatformaticOptions({ maxWeightsAgeMs: 10 }), ConfigError).message).toContain(
      'maxWeightsAgeMs',
    );
  });
});
