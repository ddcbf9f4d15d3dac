import type { ObservedMember } from '@load-aware/assignor/internal';
import { awayMembers, type ProgressReading } from '../../src/judge/away-members';

const member = (memberId: string, instanceId: string, partitions: number[]): ObservedMember => ({
  memberId,
  instanceId,
  topics: ['t'],
  assigned: partitions.map((partition) => ({ topic: 't', partition })),
});
const at = (partition: number, committed: number, end: number): ProgressReading => ({
  topic: 't',
  partition,
  committed,
  end,
});

describe('awayMembers', () => {
  const members = [member('m-a', 'pod-a', [0, 1]), member('m-b', 'pod-b', [2, 3])];

  it('names a member whose partitions have messages waiting and whose committed offsets stood still', () => {
    const before = [at(0, 10, 12), at(1, 5, 5), at(2, 100, 140), at(3, 7, 9)];
    const after = [at(0, 12, 15), at(1, 5, 5), at(2, 100, 180), at(3, 7, 12)];
    expect(awayMembers(members, before, after)).toEqual([
      { memberId: 'm-b', instanceId: 'pod-b', stalledPartitions: 2 },
    ]);
  });

  it('keeps a member alive when any of its partitions moved, however far behind the others are', () => {
    const before = [at(2, 100, 500), at(3, 7, 9)];
    const after = [at(2, 100, 900), at(3, 8, 9)];
    expect(awayMembers(members, before, after)).toEqual([]);
  });

  it('cannot see a member with nothing waiting: an idle member is not away', () => {
    const idle = [at(0, 10, 10), at(1, 5, 5), at(2, 3, 3), at(3, 0, 0)];
    expect(awayMembers(members, idle, idle)).toEqual([]);
  });

  it('treats a partition never committed with messages waiting as waiting on its member', () => {
    const before = [at(2, -1, 4), at(3, -1, 0)];
    expect(awayMembers(members, before, [at(2, -1, 6), at(3, -1, 0)])).toEqual([
      { memberId: 'm-b', instanceId: 'pod-b', stalledPartitions: 1 },
    ]);
  });

  it('ignores partitions either reading lacks (moved, deleted, unreadable)', () => {
    expect(awayMembers(members, [at(0, 1, 9)], [at(1, 1, 9)])).toEqual([]);
  });
});
