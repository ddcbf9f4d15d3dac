import type { PartitionAssigner } from 'kafkajs';
import { ConfigError, LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import { escapeLogText } from '@load-aware/assignor/internal';
import { errorThrownBy, fakeCluster, member, recordingLogger, type RecordingLogger } from '@load-aware/test-support';

/**
 * Instance ids come from other members' userData: whatever another process (or anyone who can
 * join the group) chose. Written raw into a text log, a newline, a terminal escape or a bidi
 * override forges or hides log lines. Message text escapes them; structured fields keep the raw
 * value (the JSON logger escapes those itself).
 */

/** C0 and C1 controls, DEL, the line/paragraph separators and the bidi embeddings/isolates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const HOSTILE = [
  'pod-a\nINFO forged: all partitions assigned',
  'pod-b\u001b[2J',
  'pod-c\u2028forged',
  'pod-d\u202eevil',
  'pod-e\u0085\u2066x\u2069',
];

async function assignWith(logger: RecordingLogger, weights?: WeightSource): Promise<void> {
  const factory: PartitionAssigner = LoadAwareAssigner({ logger, weightsTimeoutMs: 50, ...(weights && { weights }) });
  const assigner = factory({ cluster: fakeCluster({ t: 10 }), groupId: 'g', logger: undefined as never });
  await assigner.assign({
    members: HOSTILE.map((id, i) => member(`m${String(i)}`, ['t'], id)),
    topics: ['t'],
  });
}

function expectSafeMessages(logger: RecordingLogger): void {
  const unsafe = logger.records.filter((r) => UNSAFE.test(r.message)).map((r) => JSON.stringify(r.message));
  expect(unsafe).toEqual([]);
}

describe('hostile instance ids in log messages', () => {
  it('escapes them in the load-aware assignment lines, keeping the fields raw', async () => {
    const logger = recordingLogger();
    await assignWith(logger);
    expectSafeMessages(logger);
    const lines = logger.messages('info').join('\n');
    expect(lines).toContain('instance pod-a\\u000aINFO forged: all partitions assigned: load');
    expect(lines).toContain('pod-d\\u202eevil');
    const fields = logger.records.map((r) => r.fields['instanceId']).filter((v) => v !== undefined);
    expect(fields).toEqual(expect.arrayContaining(HOSTILE));
  });

  it('escapes them in the round-robin fallback line', async () => {
    const logger = recordingLogger();
    await assignWith(logger, { getWeights: () => Promise.reject(new Error('down')) });
    expect(logger.messages('info').some((m) => m.startsWith('round-robin fallback'))).toBe(true);
    expectSafeMessages(logger);
    expect(logger.messages('info').join('\n')).toContain('pod-c\\u2028forged=');
  });
});

describe('escapeLogText', () => {
  it.each([
    ['a\nb', 'a\\u000ab'],
    ['\u0000\u001f\u007f\u0080\u009f', '\\u0000\\u001f\\u007f\\u0080\\u009f'],
    ['\u2028\u2029', '\\u2028\\u2029'],
    ['\u202a\u202e\u2066\u2069', '\\u202a\\u202e\\u2066\\u2069'],
  ])('escapes %j', (raw, escaped) => {
    expect(escapeLogText(raw)).toBe(escaped);
  });

  it('leaves ordinary text alone, non-ASCII letters included', () => {
    expect(escapeLogText('pod-ä-東京 \\u000a')).toBe('pod-ä-東京 \\u000a');
  });
});

describe('the instanceId option', () => {
  it.each(HOSTILE)('refuses %j with a ConfigError naming the key', (instanceId) => {
    const err = errorThrownBy(() => LoadAwareAssigner({ instanceId }), ConfigError);
    expect(err.message).toContain('instanceId');
    expect(err.message).toContain('control or bidirectional-formatting character');
  });

  it('still takes ordinary ids, non-ASCII ones included', () => {
    expect(() => LoadAwareAssigner({ instanceId: 'pod-ä-東京-1' })).not.toThrow();
  });
});
