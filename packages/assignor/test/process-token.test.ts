import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import {
  decodeUserData,
  encodeUserData,
  USER_DATA_VERSION,
  type LoadAwareUserData,
} from '@load-aware/assignor/internal';
import {
  decodeAssignments,
  fakeCluster,
  member,
  memberWithUserData,
  recordingLogger,
  type RecordingLogger,
} from '@load-aware/test-support';

/**
 * Two processes configured with the same instance id (a copy-pasted pod spec) are balanced as one
 * instance: twice the members, half the load each gets. KafkaJS's assign() input carries no client
 * host, so each process puts a random per-process token in its userData (record version 3, a field
 * appended after the owned section) and the leader warns when one instance id arrives with several.
 */

/** A version-2 record, written independently of user-data.ts: the layout older builds send. */
function v2Record(instanceId: string, capacity: number, epoch: number): Buffer {
  const id = Buffer.from(instanceId, 'utf8');
  const out = Buffer.alloc(5 + id.length + 12 + 5);
  out.write('LA', 0, 'latin1');
  out[2] = 2;
  out.writeUInt16BE(id.length, 3);
  id.copy(out, 5);
  out.writeDoubleBE(capacity, 5 + id.length);
  out.writeUInt32BE(epoch, 5 + id.length + 8);
  out.writeInt32BE(-1, 5 + id.length + 12); // owned section: nothing known, no topics
  out[5 + id.length + 16] = 0;
  return out;
}

/** A version-3 record as this layout defines it: the v2 fields, then u8 length and the token bytes. */
function v3Record(instanceId: string, tokenHex: string): Buffer {
  const v2 = v2Record(instanceId, 1, 0);
  v2[2] = 3;
  const token = Buffer.from(tokenHex, 'hex');
  return Buffer.concat([v2, Buffer.from([token.length]), token]);
}

function assignerWith(logger: RecordingLogger) {
  const factory: PartitionAssigner = LoadAwareAssigner({ logger, instanceId: 'leader' });
  return factory({ cluster: fakeCluster({ t: 12 }), groupId: 'g', logger: undefined as never });
}

const duplicateMessages = (logger: RecordingLogger): string[] =>
  logger.messages('warn').filter((m) => m.includes('several processes'));

describe('record version 3: the per-process token', () => {
  it('is written after the version-2 fields, which stay byte for byte what a version-2 reader reads', () => {
    const bytes = encodeUserData({ instanceId: 'pod-a', capacity: 1, epoch: 0, processToken: '0011223344556677' });
    const v2 = v2Record('pod-a', 1, 0);
    expect(bytes[2]).toBe(USER_DATA_VERSION);
    // A version-2 reader reads up to the end of the owned section and ignores what follows.
    expect(bytes.subarray(3, v2.length).equals(v2.subarray(3))).toBe(true);
    // Then version 4's pause field: nine zero bytes while no pause is known; then version 5's rack
    // length, 0 without a rack.
    expect(bytes.subarray(v2.length).toString('hex')).toBe(`080011223344556677${'00'.repeat(9)}00`);
    expect(decodeUserData(bytes)).toEqual({
      ok: true,
      value: { instanceId: 'pod-a', capacity: 1, epoch: 0, processToken: '0011223344556677' },
    });
  });

  it('is absent, and nothing else changes, when a version-2 member sends its record', () => {
    expect(decodeUserData(v2Record('pod-b', 2, 5))).toEqual({
      ok: true,
      value: { instanceId: 'pod-b', capacity: 2, epoch: 5 },
    });
  });

  it('reads what the version-2 encoder wrote, owned partitions included (bytes frozen from it)', () => {
    const v2 = Buffer.from('4c41020005706f642d6140000000000000000000000700000005010174020103', 'hex');
    expect(decodeUserData(v2)).toEqual({
      ok: true,
      value: {
        instanceId: 'pod-a',
        capacity: 2,
        epoch: 7,
        owned: {
          generation: 5,
          partitions: [
            { topic: 't', partition: 0 },
            { topic: 't', partition: 3 },
          ],
        },
      },
    });
    // And writes exactly those bytes again, the token field appended and the version raised.
    const v3 = encodeUserData({ ...(decodeUserData(v2) as { value: LoadAwareUserData }).value, processToken: 'ab' });
    expect(v3.subarray(3, v2.length).equals(v2.subarray(3))).toBe(true);
    expect(v3.subarray(v2.length).toString('hex')).toBe(`01ab${'00'.repeat(9)}00`);
  });

  it('is what the assigner sends: one token per process, the same for every consumer in it', () => {
    const a = LoadAwareAssigner({ instanceId: 'pod-a' });
    const b = LoadAwareAssigner({ instanceId: 'pod-b' });
    const tokenOf = (assigner: typeof a) => {
      const { metadata } = assigner({ cluster: fakeCluster({}), groupId: 'g', logger: undefined as never }).protocol({
        topics: ['t'],
      });
      const decoded = decodeUserData(AssignerProtocol.MemberMetadata.decode(metadata)?.userData);
      return decoded.ok ? decoded.value.processToken : undefined;
    };
    expect(tokenOf(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(tokenOf(a)).toBe(tokenOf(b));
  });

  it('stays within the size budget', () => {
    expect(
      encodeUserData({ instanceId: 'host-12345-abcdef', capacity: 1, epoch: 3, processToken: 'ffffffffffffffff' })
        .length,
    ).toBeLessThan(64);
  });
});

describe('the leader, when one instance id arrives from several processes', () => {
  const twins = [
    memberWithUserData('m1', ['t'], v3Record('pod-x', 'aaaaaaaaaaaaaaaa')),
    memberWithUserData('m2', ['t'], v3Record('pod-x', 'bbbbbbbbbbbbbbbb')),
    memberWithUserData('m3', ['t'], v3Record('pod-y', 'cccccccccccccccc')),
    memberWithUserData('m4', ['t'], v3Record('pod-y', 'cccccccccccccccc')),
  ];

  it('warns once, naming the instance and its members, and places exactly as before', async () => {
    const logger = recordingLogger();
    const assigner = assignerWith(logger);
    const result = decodeAssignments(await assigner.assign({ members: twins, topics: ['t'] }));
    expect(duplicateMessages(logger)).toHaveLength(1);
    const warning = logger.records.find((r) => r.level === 'warn' && r.message.includes('several processes'))!;
    expect(warning.message).toContain('pod-x');
    expect(warning.message).toContain('m1, m2');
    expect(warning.fields).toMatchObject({ instanceId: 'pod-x', memberIds: ['m1', 'm2'], processes: 2 });
    // The next generation with the same twins: no second WARN.
    await assigner.assign({ members: twins, topics: ['t'] });
    expect(duplicateMessages(logger)).toHaveLength(1);

    // Placement is unchanged: the same as for members without tokens (version 2).
    const plain = decodeAssignments(
      await assignerWith(recordingLogger()).assign({
        members: [
          memberWithUserData('m1', ['t'], v2Record('pod-x', 1, 0)),
          memberWithUserData('m2', ['t'], v2Record('pod-x', 1, 0)),
          memberWithUserData('m3', ['t'], v2Record('pod-y', 1, 0)),
          memberWithUserData('m4', ['t'], v2Record('pod-y', 1, 0)),
        ],
        topics: ['t'],
      }),
    );
    expect(result).toEqual(plain);
  });

  it('stays quiet for one process with several consumers, and for version-2 members without tokens', async () => {
    const logger = recordingLogger();
    await assignerWith(logger).assign({
      members: [
        memberWithUserData('m1', ['t'], v3Record('pod-x', 'aaaaaaaaaaaaaaaa')),
        memberWithUserData('m2', ['t'], v3Record('pod-x', 'aaaaaaaaaaaaaaaa')),
        memberWithUserData('m3', ['t'], v2Record('pod-x', 1, 0)),
        member('m4', ['t'], 'pod-y'),
      ],
      topics: ['t'],
    });
    expect(duplicateMessages(logger)).toEqual([]);
  });
});
