import fc from 'fast-check';
import { decodeUserData, encodeUserData, type TopicPartition } from '@load-aware/assignor/internal';

/** Owned partitions in userData version 2: round trip, canonical form, size, and old readers. */

function owned(generation: number, partitions: TopicPartition[]) {
  return { instanceId: 'pod-a', capacity: 1, epoch: 3, owned: { generation, partitions } };
}

describe('owned partitions in userData', () => {
  it('round-trips the owned set and its generation, topics and partitions in canonical order', () => {
    const record = owned(7, [
      { topic: 'orders', partition: 5 },
      { topic: 'audit', partition: 0 },
      { topic: 'orders', partition: 1 },
      { topic: 'orders', partition: 5 },
    ]);
    const decoded = decodeUserData(encodeUserData(record));
    expect(decoded).toEqual({
      ok: true,
      value: {
        instanceId: 'pod-a',
        capacity: 1,
        epoch: 3,
        owned: {
          generation: 7,
          partitions: [
            { topic: 'audit', partition: 0 },
            { topic: 'orders', partition: 1 },
            { topic: 'orders', partition: 5 },
          ],
        },
      },
    });
  });

  it('tells "owns nothing" at a known generation apart from "knows nothing yet"', () => {
    const none = decodeUserData(encodeUserData(owned(4, [])));
    expect(none.ok && none.value.owned).toEqual({ generation: 4, partitions: [] });
    const unknown = decodeUserData(encodeUserData({ instanceId: 'pod-a', capacity: 1, epoch: 0 }));
    expect(unknown.ok && unknown.value.owned).toBeUndefined();
  });

  it('encodes the same set identically whatever order it is given in (rejoins stay byte-stable)', () => {
    const a = encodeUserData(
      owned(2, [
        { topic: 't', partition: 3 },
        { topic: 's', partition: 9 },
      ]),
    );
    const b = encodeUserData(
      owned(2, [
        { topic: 's', partition: 9 },
        { topic: 't', partition: 3 },
      ]),
    );
    expect(a.equals(b)).toBe(true);
  });

  it('keeps the version-1 prefix, so a reader of version 1 still reads instance, capacity and epoch', () => {
    const bytes = encodeUserData(owned(9, [{ topic: 'orders', partition: 1 }]));
    const idLength = bytes.readUInt16BE(3);
    expect(bytes.subarray(5, 5 + idLength).toString('utf8')).toBe('pod-a');
    expect(bytes.readDoubleBE(5 + idLength)).toBe(1);
    expect(bytes.readUInt32BE(5 + idLength + 8)).toBe(3);
  });

  it('drops a set too large to carry instead of sending part of it', () => {
    const many = Array.from({ length: 40_000 }, (_, p) => ({ topic: 'big', partition: p * 1000 }));
    const decoded = decodeUserData(encodeUserData(owned(1, many)));
    expect(decoded.ok).toBe(true);
    expect(decoded.ok && decoded.value.owned).toBeUndefined();
  });

  it('ignores an owned section that is not canonical or is damaged, keeping the rest of the record', () => {
    const bytes = encodeUserData(
      owned(1, [
        { topic: 'a', partition: 1 },
        { topic: 'b', partition: 2 },
      ]),
    );
    // Swap the two topic names: out of order now.
    const swapped = Buffer.from(bytes);
    const at = swapped.indexOf(Buffer.from([1, 0x61]));
    const bt = swapped.indexOf(Buffer.from([1, 0x62]));
    swapped[at + 1] = 0x62;
    swapped[bt + 1] = 0x61;
    const decoded = decodeUserData(swapped);
    expect(decoded.ok && decoded.value.instanceId).toBe('pod-a');
    expect(decoded.ok && decoded.value.owned).toBeUndefined();
    // The owned section's last byte: version 3 appends the process token's length (0 here) after
    // it, version 4 the 9-byte pause field and version 5 the rack's length (0 here).
    const tail = 1 + 9 + 1;
    expect(bytes[bytes.length - tail]).toBe(0);
    const cut = decodeUserData(Buffer.concat([bytes.subarray(0, bytes.length - tail - 1), Buffer.from([0])]));
    expect(cut.ok && cut.value.owned).toBeUndefined();
  });

  it('round-trips any owned set (property)', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 0x7fffffff }),
        fc.array(
          fc.record({
            topic: fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }),
            partition: fc.nat({ max: 0x7fffffff }),
          }),
          { maxLength: 50 },
        ),
        (generation, partitions) => {
          const decoded = decodeUserData(encodeUserData(owned(generation, partitions)));
          expect(decoded.ok).toBe(true);
          if (!decoded.ok) return;
          const key = (p: TopicPartition): string => `${p.topic}\u0000${String(p.partition)}`;
          expect(decoded.value.owned?.generation).toBe(generation);
          expect(new Set(decoded.value.owned?.partitions.map(key))).toEqual(new Set(partitions.map(key)));
        },
      ),
    );
  });

  it('stays small at 100k partitions over 1,000 members (bytes per member reported)', () => {
    // 10 topics of 10,000 partitions; members own round-robin slices, the worst spread there is.
    const members = 1000;
    const sizes: number[] = [];
    for (const m of [0, 499, 999]) {
      const partitions: TopicPartition[] = [];
      for (let t = 0; t < 10; t++) {
        for (let p = m; p < 10_000; p += members)
          partitions.push({ topic: `orders-events-${String(t)}`, partition: p });
      }
      sizes.push(encodeUserData(owned(12345, partitions)).length);
    }
    process.stdout.write(`userData v3 at 100k partitions / 1,000 members: ${JSON.stringify(sizes)} bytes per member\n`);
    for (const size of sizes) expect(size).toBeLessThan(512);
  });
});
