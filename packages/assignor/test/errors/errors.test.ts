import {
  ConfigError,
  ERROR_CODES,
  ErrorCodes,
  InvalidBalanceInputError,
  isLoadAwareError,
  KafkaJsInternalMissingError,
  LoadAwareAssigner,
  LoadAwareError,
  MetadataTimeoutError,
  StaticMemberFencedError,
  StaticMembershipUnsupportedError,
  WeightsFailedError,
  WeightsTimeoutError,
  type LoadAwareErrorCode,
} from '@load-aware/assignor';
import { fakeCluster, member, recordingLogger } from '@load-aware/test-support';

const BRAND = Symbol.for('load-aware.error');

/** The assignor module as a second installed copy would load it: its own classes, same symbol. */
function secondCopy(): typeof import('@load-aware/assignor') {
  let copy: typeof import('@load-aware/assignor') | undefined;
  jest.isolateModules(() => {
    copy = jest.requireActual<typeof import('@load-aware/assignor')>('@load-aware/assignor');
  });
  return copy!;
}

describe('error codes', () => {
  it('lists every code once, across all packages, with the assignor’s group as ErrorCodes', () => {
    const all: LoadAwareErrorCode[] = Object.values(ERROR_CODES).flatMap((group) => Object.values(group));
    expect(new Set(all).size).toBe(all.length);
    expect(all.every((code) => /^LOAD_AWARE_[A-Z_]+$/.test(code))).toBe(true);
    expect(Object.keys(ERROR_CODES)).toEqual([
      'assignor',
      'offsetRate',
      'prometheus',
      'otel',
      'trigger',
      'platformatic',
    ]);
    expect(ErrorCodes).toBe(ERROR_CODES.assignor);
  });
});

describe('isLoadAwareError', () => {
  const errors: Array<[string, LoadAwareError]> = [
    ['ConfigError', new ConfigError('bad')],
    ['InvalidBalanceInputError', new InvalidBalanceInputError('memberId', '""', 'a non-empty id')],
    ['WeightsTimeoutError', new WeightsTimeoutError(10)],
    ['WeightsFailedError', new WeightsFailedError('down')],
    ['MetadataTimeoutError', new MetadataTimeoutError(2, 50)],
    ['StaticMemberFencedError', new StaticMemberFencedError('orders', 'pod-1.0')],
    ['StaticMembershipUnsupportedError', new StaticMembershipUnsupportedError('JoinGroup v4')],
    ['KafkaJsInternalMissingError', new KafkaJsInternalMissingError('requests', 'staticMembership', 'lost')],
  ];

  it.each(errors)('recognizes a %s by its brand and code', (name, err) => {
    expect(err.name).toBe(name);
    expect(isLoadAwareError(err)).toBe(true);
    expect(isLoadAwareError(err, err.code)).toBe(true);
    expect(isLoadAwareError(err, 'LOAD_AWARE_TRIGGER_CHECK_TIMEOUT')).toBe(false);
  });

  it('gives every code of the assignor a class of its own', () => {
    expect(errors.map(([, err]) => err.code).sort()).toEqual(Object.values(ErrorCodes).sort());
  });

  it('keeps the brand out of keys and JSON, but on the error itself', () => {
    const err = new WeightsTimeoutError(10);
    expect(Object.getOwnPropertySymbols(err)).toContain(BRAND);
    expect(Object.keys(err)).not.toContain(BRAND);
    expect(JSON.stringify(err)).not.toContain('load-aware.error');
  });

  it('rejects anything without the brand, even with a load-aware code', () => {
    const lookalike = Object.assign(new Error('x'), { code: 'LOAD_AWARE_CONFIG' });
    expect(isLoadAwareError(lookalike)).toBe(false);
    expect(isLoadAwareError({ [Symbol('load-aware.error')]: true, code: 'LOAD_AWARE_CONFIG' })).toBe(false);
    expect(isLoadAwareError({ [BRAND]: true })).toBe(false); // no code
    for (const value of [undefined, null, 'LOAD_AWARE_CONFIG', 42, new Error('plain')]) {
      expect(isLoadAwareError(value)).toBe(false);
    }
  });

  it('recognizes errors of another installed copy of the package, where instanceof fails', () => {
    const copy = secondCopy();
    expect(copy.LoadAwareError).not.toBe(LoadAwareError);
    const foreign = new copy.WeightsTimeoutError(10);
    expect(foreign instanceof LoadAwareError).toBe(false);
    expect(isLoadAwareError(foreign)).toBe(true);
    expect(isLoadAwareError(foreign, ErrorCodes.weightsTimeout)).toBe(true);
    expect(copy.isLoadAwareError(new ConfigError('bad'), 'LOAD_AWARE_CONFIG')).toBe(true);
  });

  it('narrows by code', () => {
    const err: unknown = new WeightsTimeoutError(10);
    if (isLoadAwareError(err, 'LOAD_AWARE_WEIGHTS_TIMEOUT')) {
      const code: 'LOAD_AWARE_WEIGHTS_TIMEOUT' = err.code;
      expect(code).toBe('LOAD_AWARE_WEIGHTS_TIMEOUT');
    } else {
      throw new Error('expected a weights timeout');
    }
  });
});

describe('MetadataTimeoutError', () => {
  it('keeps the message and code the metadata timeout always had', () => {
    const err = new MetadataTimeoutError(3, 50);
    expect(err.code).toBe('LOAD_AWARE_METADATA_TIMEOUT');
    expect(err.message).toBe('metadata for 3 topics not loaded within 50 ms');
    expect([err.topics, err.timeoutMs]).toEqual([3, 50]);
  });

  it('is what the leader logs when metadata of other members’ topics does not load in time', async () => {
    const logger = recordingLogger();
    const cluster = fakeCluster({ orders: 2, audit: 2 }, { hidden: ['audit'] });
    // Metadata that never arrives: the leader must give up after weightsTimeoutMs.
    cluster.addMultipleTargetTopics = () => new Promise<never>(() => undefined);
    const assigner = LoadAwareAssigner({ logger, weightsTimeoutMs: 20 })({
      cluster,
      groupId: 'g',
      logger: undefined as never,
    });
    await assigner.assign({
      members: [member('m1', ['orders'], 'pod-a'), member('m2', ['audit'], 'pod-b')],
      topics: ['orders'],
    });
    const warn = logger.records.find((r) => r.message.startsWith('could not load metadata'));
    expect(warn?.fields['err']).toBeInstanceOf(MetadataTimeoutError);
    expect(isLoadAwareError(warn?.fields['err'], 'LOAD_AWARE_METADATA_TIMEOUT')).toBe(true);
  });
});
