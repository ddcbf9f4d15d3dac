import {
  classifyRebalance,
  decodeAssignmentNote,
  encodeAssignmentNote,
  REBALANCE_CAUSES,
  type PreviousGeneration,
} from '../../src/protocol/rebalance-cause';
import { latestGroupPause } from '../../src/leader/rebalance-report';
import { decodeUserData, encodeUserData } from '../../src/protocol/user-data';
import type { DecodedMember } from '../../src/protocol/members';

const previous: PreviousGeneration = {
  memberIds: new Set(['a', 'b']),
  epochs: new Map([
    ['a', 0],
    ['b', 3],
  ]),
  partitionCounts: new Map([['t', 4]]),
};
const counts = new Map([['t', 4]]);

describe('classifyRebalance', () => {
  it('tells a group forming from a leader that lost its memory', () => {
    expect(classifyRebalance(undefined, { members: [], partitionCounts: counts, ownersReported: false })).toBe('start');
    expect(classifyRebalance(undefined, { members: [], partitionCounts: counts, ownersReported: true })).toBe(
      'unknown',
    );
  });

  it.each([
    [
      'fire',
      [
        { memberId: 'a', epoch: 1 },
        { memberId: 'b', epoch: 3 },
      ],
      counts,
    ],
    [
      'metadata',
      [
        { memberId: 'a', epoch: 0 },
        { memberId: 'b', epoch: 3 },
      ],
      new Map([['t', 8]]),
    ],
    [
      'join',
      [
        { memberId: 'a', epoch: 0 },
        { memberId: 'b', epoch: 3 },
        { memberId: 'c', epoch: 0 },
      ],
      counts,
    ],
    ['leave', [{ memberId: 'a', epoch: 0 }], counts],
    [
      'unknown',
      [
        { memberId: 'a', epoch: 0 },
        { memberId: 'b', epoch: 3 },
      ],
      counts,
    ],
  ])('answers %s', (cause, members, partitionCounts) => {
    expect(classifyRebalance(previous, { members, partitionCounts, ownersReported: true })).toBe(cause);
  });

  it('calls partitions added under a forced fire a metadata change', () => {
    const members = [
      { memberId: 'a', epoch: 1 },
      { memberId: 'b', epoch: 3 },
    ];
    const partitionCounts = new Map([['t', 8]]);
    expect(classifyRebalance(previous, { members, partitionCounts, ownersReported: true })).toBe('metadata');
  });

  it('puts a fire before a join that happens in the same rebalance', () => {
    const members = [
      { memberId: 'a', epoch: 1 },
      { memberId: 'c', epoch: 0 },
    ];
    expect(classifyRebalance(previous, { members, partitionCounts: counts, ownersReported: true })).toBe('fire');
  });
});

describe('the assignment note', () => {
  it.each(REBALANCE_CAUSES)('round-trips %s', (cause) => {
    expect(decodeAssignmentNote(encodeAssignmentNote(cause))).toBe(cause);
  });

  it('reads nothing from empty, foreign or unknown notes', () => {
    for (const bytes of [undefined, null, Buffer.alloc(0), Buffer.from('xyzw'), Buffer.from([0x4c, 0x41, 1, 200])]) {
      expect(decodeAssignmentNote(bytes)).toBeUndefined();
    }
  });
});

describe('the pause in userData (version 4)', () => {
  const base = { instanceId: 'pod-a', capacity: 1, epoch: 2, processToken: 'ab' };

  it('round-trips, capped to the field', () => {
    const lastPause = { generation: 7, pauseMs: 1234, cause: 'join' as const };
    expect(decodeUserData(encodeUserData({ ...base, lastPause }))).toEqual({ ok: true, value: { ...base, lastPause } });
    const huge = decodeUserData(encodeUserData({ ...base, lastPause: { ...lastPause, pauseMs: 1e12 } }));
    expect(huge.ok && huge.value.lastPause?.pauseMs).toBe(0xffffffff);
  });

  it('is absent while no pause is known, and when the field is cut off', () => {
    const bytes = encodeUserData(base);
    expect(decodeUserData(bytes)).toEqual({ ok: true, value: base });
    const withPause = encodeUserData({ ...base, lastPause: { generation: 3, pauseMs: 10, cause: 'fire' } });
    // The last byte is the (empty) rack of version 5; one more cuts into the pause.
    expect(decodeUserData(withPause.subarray(0, withPause.length - 2))).toEqual({ ok: true, value: base });
  });
});

describe('latestGroupPause', () => {
  const member = (memberId: string, instanceId: string, lastPause?: DecodedMember['lastPause']): DecodedMember => ({
    memberId,
    instanceId,
    topics: ['t'],
    capacity: 1,
    epoch: 0,
    owned: undefined,
    processToken: undefined,
    rack: undefined,
    lastPause,
    problem: undefined,
  });

  it('adds up the latest generation any member reports, ignoring older reports', () => {
    const got = latestGroupPause([
      member('a', 'pod-a', { generation: 5, pauseMs: 1000, cause: 'join' }),
      member('b', 'pod-b', { generation: 5, pauseMs: 2500, cause: 'join' }),
      member('c', 'pod-c', { generation: 4, pauseMs: 9000, cause: 'leave' }),
      member('d', 'pod-d'),
    ]);
    expect(got).toEqual({
      generation: 5,
      cause: 'join',
      pausedMemberSeconds: 3.5,
      members: 2,
      longestSeconds: 2.5,
      longestInstanceId: 'pod-b',
    });
  });

  it('is undefined when nobody reports', () => {
    expect(latestGroupPause([member('a', 'pod-a')])).toBeUndefined();
  });
});
