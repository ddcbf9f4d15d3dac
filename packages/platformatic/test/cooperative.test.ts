import fc from 'fast-check';
import type { TopicPartition } from '@load-aware/assignor/portable';
import { cooperativeRound, withPromises } from '@load-aware/platformatic/internal';

const tp = (partition: number): TopicPartition => ({ topic: 'orders', partition });

describe('cooperative round', () => {
  it('takes a moving partition from its owner this round and hands everything else out at once', () => {
    const target = new Map([
      ['a', [tp(0)]],
      ['b', [tp(1), tp(2), tp(3)]],
    ]);
    const owners = new Map([
      ['a', [tp(0), tp(1)]],
      ['b', [tp(2)]],
    ]);
    const { handed, withheld } = cooperativeRound(target, owners);
    expect(handed.get('a')).toEqual([tp(0)]);
    // 1 is a's until a revokes it; 3 is nobody's, so b gets it now.
    expect(handed.get('b')).toEqual([tp(2), tp(3)]);
    expect(withheld).toEqual([{ topic: 'orders', partition: 1, from: 'a', to: 'b' }]);
  });

  it("hands a departed member's partitions straight to their new owner", () => {
    const target = new Map([['b', [tp(0), tp(1)]]]);
    const owners = new Map([
      ['gone', [tp(0)]],
      ['b', [tp(1)]],
    ]);
    expect(cooperativeRound(target, owners).withheld).toEqual([]);
  });

  it('never hands a partition to one member while another present member owns it', () => {
    const memberIds = ['a', 'b', 'c', 'd'];
    const placement = fc.array(fc.constantFrom(...memberIds, undefined), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(placement, placement, (targetOf, ownerOf) => {
        const group = (of: ReadonlyArray<string | undefined>) => {
          const m = new Map<string, TopicPartition[]>(memberIds.map((id) => [id, []]));
          of.forEach((id, p) => {
            if (id !== undefined) m.get(id)!.push(tp(p));
          });
          return m;
        };
        const target = group(targetOf);
        const { handed, withheld } = cooperativeRound(target, group(ownerOf));
        for (const [memberId, partitions] of handed) {
          for (const p of partitions) {
            const owner = ownerOf[p.partition];
            expect(owner === undefined || owner === memberId).toBe(true);
          }
        }
        // Nothing lost: what is handed plus what is promised is the target.
        const total = [...handed.values()].reduce((n, l) => n + l.length, 0) + withheld.length;
        expect(total).toBe([...target.values()].reduce((n, l) => n + l.length, 0));
        for (const t of withheld) expect(ownerOf[t.partition]).toBe(t.from);
      }),
    );
  });
});

describe('promises of the follow-up round', () => {
  const members = [
    { memberId: 'a', instanceId: 'x', topics: ['orders'] },
    { memberId: 'b', instanceId: 'y', topics: ['orders'] },
    { memberId: 'c', instanceId: 'z', topics: ['payments'] },
  ];
  const owners = {
    previous: new Map([['a', [tp(0)]]]),
    previousInstances: new Map<string, string>(),
    reportingMembers: 1,
    rememberedMembers: 0,
  };

  it("counts a revoked, now unowned partition as its promised member's, so balance() keeps it there", () => {
    const next = withPromises(owners, [{ topic: 'orders', partition: 1, from: 'a', to: 'b' }], members);
    expect(next.previous.get('b')).toEqual([tp(1)]);
    expect(owners.previous.has('b')).toBe(false);
  });

  it('drops a promise whose partition is owned again, or whose member left or does not subscribe', () => {
    const next = withPromises(
      owners,
      [
        { topic: 'orders', partition: 0, from: 'b', to: 'b' },
        { topic: 'orders', partition: 2, from: 'a', to: 'gone' },
        { topic: 'orders', partition: 3, from: 'a', to: 'c' },
      ],
      members,
    );
    expect([...next.previous.keys()]).toEqual(['a']);
  });
});
