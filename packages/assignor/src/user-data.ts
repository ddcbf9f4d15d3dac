import { readOwnedSection, writeOwnedSection, type OwnedPartitions } from './owned-partitions.js';

/**
 * The load-aware subscription userData: a small versioned binary record every member sends with
 * each JoinGroup. It must stay byte-for-byte stable between rejoins that should not rebalance
 * (docs/ARCHITECTURE.md, "userData"): the broker rebalances the whole group when a follower's
 * metadata changes, so only the instance id, the capacity, the rebalance epoch and the owned
 * partitions (which change only when a rebalance changed them) live here, never live loads or
 * timestamps.
 *
 * Layout (big-endian): "LA" magic, u8 version, u16 instance-id byte length, UTF-8 instance id,
 * f64 capacity, u32 epoch (version 1); then the owned section of `owned-partitions.ts`
 * (version 2). Later versions only append fields, so a reader understands the prefix of any
 * newer record, and a version-1 reader reads a version-2 record's prefix.
 */

/** What a member tells the leader about itself. */
export interface LoadAwareUserData {
  readonly instanceId: string;
  readonly capacity: number;
  /** Bumped to force a group-wide rebalance (the broker sees changed metadata). */
  readonly epoch: number;
  /**
   * The partitions the member owns and the generation it received them in (version 2). Absent
   * when the member knows nothing yet (it has not been assigned since it started) or reported too
   * many to carry; the leader then falls back to its own memory.
   */
  readonly owned?: OwnedPartitions | undefined;
}

/** The decoder's answer: a record, or why there is none. Decoding never throws. */
export type DecodedUserData =
  { readonly ok: true; readonly value: LoadAwareUserData } | { readonly ok: false; readonly reason: string };

const MAGIC_0 = 0x4c; // 'L'
const MAGIC_1 = 0x41; // 'A'
/** The record version this build writes. */
export const USER_DATA_VERSION = 2;
const HEADER_BYTES = 5;
const TAIL_BYTES = 12;
/** Longest instance id accepted, in UTF-8 bytes: userData rides on every JoinGroup. */
export const MAX_INSTANCE_ID_BYTES = 255;

/** Encodes a record; throws a RangeError for values the format cannot carry. */
export function encodeUserData(data: LoadAwareUserData): Buffer {
  const id = Buffer.from(data.instanceId, 'utf8');
  if (id.length === 0 || id.length > MAX_INSTANCE_ID_BYTES) {
    throw new RangeError(`instanceId must be 1-${String(MAX_INSTANCE_ID_BYTES)} UTF-8 bytes, got ${String(id.length)}`);
  }
  if (!Number.isFinite(data.capacity) || data.capacity <= 0) {
    throw new RangeError(`capacity must be a finite number above 0, got ${String(data.capacity)}`);
  }
  if (!Number.isInteger(data.epoch) || data.epoch < 0 || data.epoch > 0xffffffff) {
    throw new RangeError(`epoch must be an integer in 0..2^32-1, got ${String(data.epoch)}`);
  }
  const prefix = Buffer.alloc(HEADER_BYTES + id.length + TAIL_BYTES);
  prefix[0] = MAGIC_0;
  prefix[1] = MAGIC_1;
  prefix[2] = USER_DATA_VERSION;
  prefix.writeUInt16BE(id.length, 3);
  id.copy(prefix, HEADER_BYTES);
  prefix.writeDoubleBE(data.capacity, HEADER_BYTES + id.length);
  prefix.writeUInt32BE(data.epoch, HEADER_BYTES + id.length + 8);
  const owned: number[] = [];
  // Too many to carry: report nothing rather than an incomplete set the leader would trust.
  if (!writeOwnedSection(owned, data.owned)) writeOwnedSection(owned, undefined);
  return Buffer.concat([prefix, Buffer.from(owned)]);
}

/** Decodes a record from another member; anything unexpected becomes `{ ok: false, reason }`. */
export function decodeUserData(bytes: Buffer | null | undefined): DecodedUserData {
  if (bytes === null || bytes === undefined || bytes.length === 0) return fail('no userData');
  if (bytes.length < HEADER_BYTES || bytes[0] !== MAGIC_0 || bytes[1] !== MAGIC_1) {
    return fail('not a load-aware record (bad magic)');
  }
  const version = bytes[2]!;
  if (version < 1) return fail(`unsupported record version ${String(version)}`);
  const idLength = bytes.readUInt16BE(3);
  if (idLength === 0 || idLength > MAX_INSTANCE_ID_BYTES) return fail(`bad instance id length ${String(idLength)}`);
  if (bytes.length < HEADER_BYTES + idLength + TAIL_BYTES) return fail('record truncated');
  const idBytes = bytes.subarray(HEADER_BYTES, HEADER_BYTES + idLength);
  const instanceId = idBytes.toString('utf8');
  // A lossy decode (invalid UTF-8) would silently merge distinct instances: reject it instead.
  if (!Buffer.from(instanceId, 'utf8').equals(idBytes)) return fail('instance id is not valid UTF-8');
  const capacity = bytes.readDoubleBE(HEADER_BYTES + idLength);
  if (!Number.isFinite(capacity) || capacity <= 0) return fail(`bad capacity ${String(capacity)}`);
  const epoch = bytes.readUInt32BE(HEADER_BYTES + idLength + 8);
  const owned = version >= 2 ? readOwnedSection(bytes, HEADER_BYTES + idLength + TAIL_BYTES) : undefined;
  return {
    ok: true,
    value: owned === undefined ? { instanceId, capacity, epoch } : { instanceId, capacity, epoch, owned },
  };
}

function fail(reason: string): DecodedUserData {
  return { ok: false, reason };
}
