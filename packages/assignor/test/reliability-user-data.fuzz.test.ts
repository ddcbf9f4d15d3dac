import fc from 'fast-check';
import { decodeUserData, encodeUserData } from '@load-aware/assignor/internal';

/**
 * The userData decoder against a reference model of the record layout, on inputs that reach deep
 * into it: valid records mutated byte by byte, truncated at every length, with arbitrary length
 * fields, capacity bit patterns (NaN payloads, ±Inf, subnormals, negative zero) and trailing
 * bytes of newer versions. (test/user-data.test.ts already throws random bytes behind the magic;
 * this checks that every accepted record is exactly what the layout says, and every rejected one
 * is rejected for a reason.)
 */

const HEADER = 5;
const TAIL = 12;

/** What the decoder must do, written independently from the layout in user-data.ts. */
function reference(bytes: Buffer): { instanceId: string; capacity: number; epoch: number } | undefined {
  if (bytes.length < HEADER || bytes[0] !== 0x4c || bytes[1] !== 0x41 || bytes[2] === 0) return undefined;
  const idLength = bytes.readUInt16BE(3);
  if (idLength < 1 || idLength > 255 || bytes.length < HEADER + idLength + TAIL) return undefined;
  const id = bytes.subarray(HEADER, HEADER + idLength);
  const instanceId = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let text: string;
  try {
    text = instanceId.decode(id);
  } catch {
    return undefined;
  }
  const capacity = bytes.readDoubleBE(HEADER + idLength);
  if (!Number.isFinite(capacity) || capacity <= 0) return undefined;
  return { instanceId: text, capacity, epoch: bytes.readUInt32BE(HEADER + idLength + 8) };
}

const validRecord = fc
  .record({
    instanceId: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    capacity: fc.double({ min: Number.MIN_VALUE, max: 1e300, noNaN: true }),
    epoch: fc.nat({ max: 0xffffffff }),
    // Version 3: present in records of this build, absent in those of older ones.
    processToken: fc.option(
      fc.uint8Array({ minLength: 1, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
      {
        nil: undefined,
      },
    ),
  })
  .filter((r) => Buffer.byteLength(r.instanceId, 'utf8') <= 255);

/** A valid record, then damaged in one of the ways a foreign or corrupted member could send it. */
const damaged = fc
  .tuple(
    validRecord,
    fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bits: fc.integer({ min: 1, max: 255 }) }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('append' as const),
        tail: fc.uint8Array({ maxLength: 30 }),
        version: fc.integer({ min: 0, max: 255 }),
      }),
      fc.record({ kind: fc.constant('idLength' as const), value: fc.integer({ min: 0, max: 0xffff }) }),
      fc.record({
        kind: fc.constant('capacity' as const),
        bits: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      }),
      fc.record({ kind: fc.constant('raw' as const), bytes: fc.uint8Array({ maxLength: 80 }) }),
    ),
  )
  .map(([record, damage]) => {
    const bytes = Buffer.from(encodeUserData(record));
    const idLength = bytes.readUInt16BE(3);
    switch (damage.kind) {
      case 'flip':
        bytes[damage.at % bytes.length]! ^= damage.bits;
        return bytes;
      case 'cut':
        return bytes.subarray(0, damage.at % bytes.length);
      case 'append': {
        const out = Buffer.concat([bytes, Buffer.from(damage.tail)]);
        out[2] = damage.version;
        return out;
      }
      case 'idLength':
        bytes.writeUInt16BE(damage.value, 3);
        return bytes;
      case 'capacity':
        bytes.writeBigUInt64BE(damage.bits, HEADER + idLength);
        return bytes;
      case 'raw':
        return Buffer.from(damage.bytes);
    }
  });

describe('userData decoder against a reference model (fuzz)', () => {
  it('accepts exactly the records the layout allows, with exactly their fields, and never throws', () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(damaged, (bytes) => {
        const decoded = decodeUserData(bytes);
        const expected = reference(bytes);
        if (expected === undefined) {
          expect(decoded.ok).toBe(false);
          if (!decoded.ok) expect(decoded.reason.length).toBeGreaterThan(0);
          rejected++;
        } else {
          expect(decoded.ok).toBe(true);
          if (!decoded.ok) return;
          const { owned, processToken, lastPause, ...prefix } = decoded.value;
          // The pause (version 4) is optional; when read, a measured generation and a known cause.
          if (lastPause !== undefined) {
            expect(lastPause.generation).toBeGreaterThan(0);
            expect(Number.isInteger(lastPause.pauseMs) && lastPause.pauseMs >= 0).toBe(true);
          }
          expect(prefix).toEqual(expected);
          // The process token (version 3) is optional; when read, it is 1-32 bytes of hex.
          if (processToken !== undefined) expect(processToken).toMatch(/^(?:[0-9a-f]{2}){1,32}$/);
          // The owned section (version 2) is optional; when read, it is well formed.
          if (owned !== undefined) {
            expect(Number.isInteger(owned.generation) && owned.generation >= 0).toBe(true);
            for (const p of owned.partitions) {
              expect(p.topic.length > 0 && Number.isInteger(p.partition) && p.partition >= 0).toBe(true);
            }
          }
          accepted++;
        }
      }),
      { numRuns: 5000 },
    );
    // Both branches were really exercised.
    expect(accepted).toBeGreaterThan(500);
    expect(rejected).toBeGreaterThan(500);
  });

  it('re-encodes every accepted record to the prefix it was read from (no lossy decode)', () => {
    fc.assert(
      fc.property(damaged, (bytes) => {
        const decoded = decodeUserData(bytes);
        if (!decoded.ok) return;
        const again = encodeUserData(decoded.value);
        const fixedLength = HEADER + again.readUInt16BE(3) + TAIL;
        const prefix = Buffer.from(bytes.subarray(0, fixedLength));
        prefix[2] = again[2]!; // a newer version byte reads as this version's fields
        expect(again.subarray(0, fixedLength).equals(prefix)).toBe(true);
        // The owned section reads back to exactly what was decoded.
        expect(decodeUserData(again)).toEqual(decoded);
      }),
      { numRuns: 3000 },
    );
  });

  it('decodes 100 000 hostile records quickly (no pathological input)', () => {
    const samples = fc.sample(damaged, { numRuns: 2000, seed: 42 });
    const started = performance.now();
    for (let i = 0; i < 50; i++) for (const bytes of samples) decodeUserData(bytes);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(2000);
    process.stdout.write(`userData decode: 100000 hostile records in ${elapsed.toFixed(0)} ms\n`);
  });
});
