import fc from 'fast-check';
import { decodeUserData, encodeUserData, USER_DATA_VERSION } from '@load-aware/assignor/internal';

describe('userData codec', () => {
  it('round-trips instance id, capacity and epoch', () => {
    const data = { instanceId: 'pod-a-7', capacity: 2.5, epoch: 42 };
    expect(decodeUserData(encodeUserData(data))).toEqual({ ok: true, value: data });
  });

  it('encodes identically for identical input, so rejoins do not look like changed metadata', () => {
    const data = { instanceId: 'pod-a', capacity: 1, epoch: 0 };
    expect(encodeUserData(data).equals(encodeUserData({ ...data }))).toBe(true);
  });

  it('stays small', () => {
    expect(encodeUserData({ instanceId: 'host-12345-abcdef', capacity: 1, epoch: 3 }).length).toBeLessThan(64);
  });

  it('reads the known prefix of a newer record version that appends fields', () => {
    const bytes = encodeUserData({ instanceId: 'pod-b', capacity: 1, epoch: 9 });
    const newer = Buffer.concat([bytes, Buffer.from([1, 2, 3, 4])]);
    newer[2] = USER_DATA_VERSION + 1;
    expect(decodeUserData(newer)).toEqual({ ok: true, value: { instanceId: 'pod-b', capacity: 1, epoch: 9 } });
  });

  it.each([
    ['absent', undefined, 'no userData'],
    ['empty', Buffer.alloc(0), 'no userData'],
    ['foreign', Buffer.from('{"json":true}'), 'bad magic'],
    ['truncated', encodeUserData({ instanceId: 'pod-c', capacity: 1, epoch: 1 }).subarray(0, 9), 'truncated'],
  ])('reports %s userData as unusable instead of throwing', (_name, bytes, reason) => {
    const decoded = decodeUserData(bytes);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.reason).toContain(reason);
  });

  it('rejects a record whose capacity is not a positive finite number', () => {
    const bytes = encodeUserData({ instanceId: 'p', capacity: 1, epoch: 0 });
    bytes.writeDoubleBE(Number.NaN, 6);
    expect(decodeUserData(bytes).ok).toBe(false);
  });

  it('rejects an instance id that is not valid UTF-8 rather than merging instances', () => {
    const bytes = encodeUserData({ instanceId: 'ab', capacity: 1, epoch: 0 });
    bytes[5] = 0xff;
    expect(decodeUserData(bytes).ok).toBe(false);
  });

  it('refuses to encode values the format cannot carry', () => {
    expect(() => encodeUserData({ instanceId: '', capacity: 1, epoch: 0 })).toThrow(RangeError);
    expect(() => encodeUserData({ instanceId: 'x'.repeat(256), capacity: 1, epoch: 0 })).toThrow(RangeError);
    expect(() => encodeUserData({ instanceId: 'x', capacity: 0, epoch: 0 })).toThrow(RangeError);
    expect(() => encodeUserData({ instanceId: 'x', capacity: 1, epoch: -1 })).toThrow(RangeError);
  });

  it('round-trips any valid record (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        fc.nat({ max: 0xffffffff }),
        (instanceId, capacity, epoch) => {
          const decoded = decodeUserData(encodeUserData({ instanceId, capacity, epoch }));
          expect(decoded).toEqual({ ok: true, value: { instanceId, capacity, epoch } });
        },
      ),
    );
  });

  it('never throws on arbitrary bytes (fuzz)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (raw) => {
        const bytes = Buffer.from(raw);
        if (raw.length > 2) [bytes[0], bytes[1]] = [0x4c, 0x41];
        const decoded = decodeUserData(bytes);
        if (decoded.ok) {
          expect(decoded.value.instanceId.length).toBeGreaterThan(0);
          expect(Number.isFinite(decoded.value.capacity) && decoded.value.capacity > 0).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
