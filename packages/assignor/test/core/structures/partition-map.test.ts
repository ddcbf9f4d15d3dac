import fc from 'fast-check';
import { PartitionMap } from '@load-aware/assignor/internal';

/** What PartitionMap must behave exactly like. */
function nestedMap(ops: ReadonlyArray<[string, number, number]>): Map<string, Map<number, number>> {
  const byTopic = new Map<string, Map<number, number>>();
  for (const [topic, partition, value] of ops) {
    let byPartition = byTopic.get(topic);
    if (byPartition === undefined) byTopic.set(topic, (byPartition = new Map<number, number>()));
    byPartition.set(partition, value);
  }
  return byTopic;
}

function entriesOf(map: PartitionMap<number>): Array<[string, number, number]> {
  const seen: Array<[string, number, number]> = [];
  map.forEach((topic, partition, value) => seen.push([topic, partition, value]));
  return seen;
}

describe('PartitionMap: a Map<topic, Map<partition, value>> with an index array per topic', () => {
  it('gets what was set and visits entries in first insertion order, topic by topic', () => {
    const map = new PartitionMap<string>();
    map.set('b', 5, 'b5');
    map.set('a', 2, 'a2');
    map.set('b', 1, 'b1');
    map.set('b', 5, 'b5 again');
    expect(map.get('b', 5)).toBe('b5 again');
    expect(map.get('b', 2)).toBeUndefined();
    expect(map.get('c', 0)).toBeUndefined();
    expect(map.size).toBe(3);
    const seen: Array<[string, number, string]> = [];
    map.forEach((topic, partition, value) => seen.push([topic, partition, value]));
    expect(seen).toEqual([
      ['b', 5, 'b5 again'],
      ['b', 1, 'b1'],
      ['a', 2, 'a2'],
    ]);
  });

  it('treats -0 as 0 and reports it as 0, as a Map key would', () => {
    const map = new PartitionMap<number>();
    map.set('t', -0, 1);
    map.set('t', 0, 2);
    expect(map.get('t', -0)).toBe(2);
    expect(map.size).toBe(1);
    const [[, partition]] = entriesOf(map) as [[string, number, number]];
    expect(Object.is(partition, 0)).toBe(true);
  });

  it('keeps numbers no array should hold (huge, negative, fractional, NaN) apart and findable', () => {
    const odd = [2 ** 31 - 1, 2 ** 40, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY];
    const map = new PartitionMap<number>();
    odd.forEach((p, i) => {
      map.set('t', p, i);
    });
    map.set('t', 1, 100);
    odd.forEach((p, i) => {
      expect(map.get('t', p)).toBe(i);
    });
    expect(map.get('t', 1)).toBe(100);
    expect(map.get('t', 2)).toBeUndefined();
    expect(map.size).toBe(odd.length + 1);
  });

  it('stays correct when far-apart numbers on many topics exhaust the array budget', () => {
    const map = new PartitionMap<number>();
    // Each topic's one partition near the array limit would need a million slots.
    for (let t = 0; t < 50; t++) map.set(`t${String(t)}`, 1_000_000 - t, t);
    for (let t = 0; t < 50; t++) {
      expect(map.get(`t${String(t)}`, 1_000_000 - t)).toBe(t);
      expect(map.get(`t${String(t)}`, 0)).toBeUndefined();
    }
    // A number first kept outside the array stays found after the array grows past it.
    map.set('t0', 3, 7);
    expect(map.get('t0', 1_000_000)).toBe(0);
    expect(map.get('t0', 3)).toBe(7);
  });

  it('behaves exactly like nested Maps for any sequence of sets (property)', () => {
    const partition = fc.oneof(
      fc.integer({ min: 0, max: 40 }),
      fc.integer({ min: -3, max: 2 ** 31 }),
      fc.constantFrom(-0, 0.5, Number.NaN, 2 ** 20, 2 ** 20 - 1),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), partition, fc.integer()), { maxLength: 200 }),
        (ops) => {
          const map = new PartitionMap<number>();
          for (const [topic, p, value] of ops) map.set(topic, p, value);
          const expected = nestedMap(ops);
          const flat: Array<[string, number, number]> = [];
          for (const [topic, byPartition] of expected) for (const [p, v] of byPartition) flat.push([topic, p, v]);
          expect(entriesOf(map)).toEqual(flat);
          expect(map.size).toBe(flat.length);
          for (const [topic, p] of ops) expect(map.get(topic, p)).toBe(expected.get(topic)?.get(p));
        },
      ),
    );
  });
});
