import { ConfigError, LoadAwareAssigner } from '@load-aware/assignor';
import { createThresholdTrigger, createTriggerController, resolveTriggerOptions } from '@load-aware/trigger/internal';
import { description, fakeConsumer } from './fakes';
import { errorThrownBy } from '@load-aware/test-support';

/**
 * Every option of `createThresholdTrigger(options)` and `createTriggerController(deps, options)`
 * (nested `trigger.*` included), given a wrong type and a wrong range, fails at construction with
 * a `ConfigError` (`LOAD_AWARE_CONFIG`) naming the key.
 */

const WRONG_FOR_ALL: unknown[] = [null, Symbol('x'), [], 'x'];

const BAD_TRIGGER: Record<string, unknown[]> = {
  threshold: [0.99, 0, -1, 1001, Number.NaN, Number.POSITIVE_INFINITY, '1.1', true],
  memberLevel: [
    { threshold: 0.99 },
    { threshold: Number.NaN },
    { threshold: '1.25' },
    { enabled: 'yes' },
    { enabled: 1 },
    { treshold: 1.2 },
    true,
    1.25,
  ],
  minViolatedChecks: [0, -1, 1.5, 1001, Number.NaN, '2'],
  cooldownMs: [-1, 0.5, 7 * 24 * 3600 * 1000 + 1, Number.NaN, '600000'],
  maxCooldownMs: [-1, 0.5, 7 * 24 * 3600 * 1000 + 1, Number.NaN, '7200000'],
  defaultWeight: [-1, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_VALUE, '1'],
  moveTolerance: [-0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '0.05'],
  maxMovesPerRebalance: [-1, 1.5, Number.NaN, '3', {}],
  minGainToCost: [-1, Number.NaN, Number.POSITIVE_INFINITY, 2e6, '2'],
  now: [Date.now(), {}, 'Date.now', true],
  monotonicNow: [performance.now(), {}, 'performance.now', true],
};

const BAD_CONTROLLER: Record<string, unknown[]> = {
  checkIntervalMs: [99, 86_400_001, 1.5, 0, Number.NaN, '30000'],
  checkTimeoutMs: [49, 600_001, 1.5, Number.NaN, '10000'],
  trigger: [{ threshold: 0.5 }, { treshold: 1.2 }, 1.1, true],
  advise: ['yes', 1, 'false', {}],
  awayProbeMs: [99, 60_001, 1.5, Number.NaN, '2000'],
  weights: [{}, { getWeight: () => [] }, 'assigner'],
  logger: [console.log, {}, { info() {} }],
  registry: [{}, { registerMetric() {} }, 'default'],
};

function configErrorOf(action: () => unknown): ConfigError {
  return errorThrownBy(action, ConfigError);
}

const triggerCases = Object.entries(BAD_TRIGGER).flatMap(([key, values]) =>
  [...values, ...WRONG_FOR_ALL].map((value) => [key, value] as const),
);
const controllerCases = Object.entries(BAD_CONTROLLER).flatMap(([key, values]) =>
  [...values, ...WRONG_FOR_ALL].map((value) => [key, value] as const),
);

describe('trigger config errors (every option)', () => {
  const consumer = fakeConsumer(() => Promise.resolve(description('g', [])));
  const assigner = LoadAwareAssigner({ instanceId: 'pod', defaultWeight: 5 });
  const controllers: Array<{ stop(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(controllers.map((c) => c.stop()));
  });

  it('has a row for every threshold-trigger option', () => {
    expect(Object.keys(resolveTriggerOptions({})).sort()).toEqual(Object.keys(BAD_TRIGGER).sort());
  });

  it.each([
    [{ threshold: 0.99 }, 'memberLevel.threshold'],
    [{ enabled: 'yes' }, 'memberLevel.enabled'],
    [{ treshold: 1.2 }, 'treshold'],
  ])('createThresholdTrigger rejects memberLevel %p naming %s', (memberLevel, path) => {
    const err = configErrorOf(() => createThresholdTrigger({ memberLevel } as never));
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(path);
  });

  it('defaults the member level to on with threshold 1.25, and keeps the given half of a partial one', () => {
    expect(resolveTriggerOptions({}).memberLevel).toEqual({ enabled: true, threshold: 1.25 });
    expect(resolveTriggerOptions({ memberLevel: { enabled: false } }).memberLevel).toEqual({
      enabled: false,
      threshold: 1.25,
    });
    expect(resolveTriggerOptions({ memberLevel: { threshold: 1.5 } }).memberLevel).toEqual({
      enabled: true,
      threshold: 1.5,
    });
  });

  it.each(triggerCases)('createThresholdTrigger rejects %s = %p naming the key', (key, value) => {
    const err = configErrorOf(() => createThresholdTrigger({ [key]: value }));
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(key);
  });

  it.each(triggerCases)('createTriggerController rejects trigger.%s = %p naming trigger.<key>', (key, value) => {
    const err = configErrorOf(() =>
      createTriggerController({ target: assigner.triggerTarget(consumer) }, { trigger: { [key]: value } }),
    );
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(`trigger.${key}`);
  });

  it.each(controllerCases)('createTriggerController rejects %s = %p naming the key', (key, value) => {
    const err = configErrorOf(() =>
      createTriggerController({ target: assigner.triggerTarget(consumer) }, { [key]: value }),
    );
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(key);
  });

  it.each([
    ['target', {}],
    ['target', { target: {} }],
    ['target', { target: { describeGroup() {}, onMembership() {} } }],
    ['target', { target: { describeGroup() {}, onMembership() {}, assigner: { bumpEpoch() {}, weights: {} } } }],
    // The form of releases before one target for both adapters: named, so the migration is obvious.
    ['TriggerTarget', { consumer, assigner }],
  ])('createTriggerController rejects a bad dependency %s naming it', (key, deps) => {
    const err = configErrorOf(() => createTriggerController(deps as never));
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(key);
  });

  it('names the cross-field rules: maxCooldownMs below cooldownMs, checkTimeoutMs above checkIntervalMs', () => {
    expect(configErrorOf(() => createThresholdTrigger({ cooldownMs: 20, maxCooldownMs: 10 })).message).toContain(
      'maxCooldownMs',
    );
    expect(
      configErrorOf(() =>
        createTriggerController(
          { target: assigner.triggerTarget(consumer) },
          { checkIntervalMs: 1000, checkTimeoutMs: 2000 },
        ),
      ).message,
    ).toContain('checkTimeoutMs');
  });

  it('judges with the assigner default weight when trigger.defaultWeight is passed as undefined', async () => {
    // p0 has no weight, p1 weighs 2. With the assigner's default (5) the current max instance
    // load is 5; with the schema's own default (1) it would be 2: trigger and assignor would
    // silently weigh differently.
    const members = [
      { memberId: 'a-1', instanceId: 'pod-a', partitions: [0] },
      { memberId: 'b-1', instanceId: 'pod-b', partitions: [1] },
    ];
    const groupConsumer = fakeConsumer(() => Promise.resolve(description('g', members)));
    const weights = { getWeights: () => Promise.resolve([{ topic: 't', partition: 1, weight: 2 }]) };
    const controller = createTriggerController(
      { target: assigner.triggerTarget(groupConsumer) },
      { weights, trigger: { defaultWeight: undefined } as never, checkIntervalMs: 86_400_000 },
    );
    controllers.push(controller);
    groupConsumer.emit('GROUP_JOIN', { memberId: 'a-1', groupId: 'g', isLeader: true, leaderId: 'a-1' });
    const result = await controller.checkNow();
    expect(result.evaluation?.currentMaxLoad).toBe(5);
  });
});
