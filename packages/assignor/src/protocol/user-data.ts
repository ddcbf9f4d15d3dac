import { scanOwnedSection, writeOwnedSection, type OwnedPartitions } from './owned-partitions.js';
import { REBALANCE_CAUSES, type RebalanceCause } from './rebalance-cause.js';

/**
 * The load-aware subscription userData: a small versioned binary record every member sends with
 * each JoinGroup. It must stay byte-for-byte stable between rejoins that should not rebalance
 * (docs/architecture.md, "userData"): the broker rebalances the whole group when a follower's
 * metadata changes, so only the instance id, the capacity, the rebalance epoch and the owned
 * partitions (which change only when a rebalance changed them) live here, never live loads or
 * timestamps.
 *
 * Layout (big-endian): "LA" magic, u8 version, u16 instance-id byte length, UTF-8 instance id,
 * f64 capacity, u32 epoch (version 1); then the owned section of `owned-partitions.ts`
 * (version 2); then u8 token length and the process token's bytes (version 3); then the last
 * rebalance's pause as u32 generation, u32 milliseconds, u8 cause (version 4); then u8 rack length
 * and the member's rack as UTF-8, length 0 for none (version 5). Later versions
 * only append fields, so a reader understands the prefix of any newer record: a version-2 reader
 * reads a version-3 record up to its owned section and ignores the token.
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
  /**
   * A random id of the sending process, as lowercase hex (version 3): the same for every consumer
   * of one process, different between processes. Lets the leader notice two processes sharing one
   * instance id. Absent in older records and when the field cannot be read.
   */
  readonly processToken?: string | undefined;
  /**
   * What the member's last rebalance cost it (version 4): the generation, how long it processed
   * nothing, and why the group rebalanced. It changes only after a rebalance, like `owned`, so it
   * keeps the record stable between rejoins that must not rebalance. The leader and the trigger
   * add these up into the group's paused member-seconds.
   */
  readonly lastPause?: RebalancePause | undefined;
  /**
   * The rack (availability zone) the member runs in, as configured with the `rack` option
   * (version 5): the leader prefers partitions with a replica in this rack. Absent when none is
   * configured, in older records, and when the field cannot be read.
   */
  readonly rack?: string | undefined;
}

/** One member's pause in one rebalance, as carried in userData. */
export interface RebalancePause {
  readonly generation: number;
  /** Milliseconds without processing, capped at 2^32-1. */
  readonly pauseMs: number;
  readonly cause: RebalanceCause;
}

/** The decoder's answer: a record, or why there is none. Decoding never throws. */
export type DecodedUserData =
  { readonly ok: true; readonly value: LoadAwareUserData } | { readonly ok: false; readonly reason: string };

const MAGIC_0 = 0x4c; // 'L'
const MAGIC_1 = 0x41; // 'A'
/** The record version this build writes. */
export const USER_DATA_VERSION = 5;
const PAUSE_BYTES = 9;
const HEADER_BYTES = 5;
const TAIL_BYTES = 12;
/** Longest instance id accepted, in UTF-8 bytes: userData rides on every JoinGroup. */
export const MAX_INSTANCE_ID_BYTES = 255;
/** Longest rack accepted, in UTF-8 bytes: the same rule as the instance id. */
export const MAX_RACK_BYTES = 255;
/** Longest process token, in bytes: it only needs to tell processes apart. */
export const MAX_PROCESS_TOKEN_BYTES = 32;
const PROCESS_TOKEN = /^(?:[0-9a-f]{2})*$/;

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
  const token = encodeProcessToken(data.processToken);
  const owned: number[] = [];
  // Too many to carry: report nothing rather than an incomplete set the leader would trust.
  if (!writeOwnedSection(owned, data.owned)) writeOwnedSection(owned, undefined);
  const rack = encodeRack(data.rack);
  return Buffer.concat([
    prefix,
    Buffer.from(owned),
    Buffer.from([token.length]),
    token,
    encodePause(data.lastPause),
    Buffer.from([rack.length]),
    rack,
  ]);
}

/** The rack field's bytes; throws a RangeError for a rack the format cannot carry. */
function encodeRack(rack: string | undefined): Buffer {
  if (rack === undefined) return Buffer.alloc(0);
  const bytes = Buffer.from(rack, 'utf8');
  if (bytes.length === 0 || bytes.length > MAX_RACK_BYTES) {
    throw new RangeError(`rack must be 1-${String(MAX_RACK_BYTES)} UTF-8 bytes, got ${String(bytes.length)}`);
  }
  return bytes;
}

/**
 * The rack at `offset`; undefined when absent (length 0), truncated or not valid UTF-8. A hint,
 * never a failure: a member whose rack cannot be read is placed as one without a rack.
 */
function readRack(bytes: Buffer, offset: number): string | undefined {
  if (offset >= bytes.length) return undefined;
  const length = bytes[offset]!;
  if (length === 0 || offset + 1 + length > bytes.length) return undefined;
  const raw = bytes.subarray(offset + 1, offset + 1 + length);
  const rack = raw.toString('utf8');
  return Buffer.from(rack, 'utf8').equals(raw) ? rack : undefined;
}

/** The pause field; all zeros (generation 0 is never a measured one) when there is none. */
function encodePause(pause: RebalancePause | undefined): Buffer {
  const out = Buffer.alloc(PAUSE_BYTES);
  if (pause === undefined) return out;
  const cap = (n: number): number => Math.min(0xffffffff, Math.max(0, Math.round(n)));
  out.writeUInt32BE(cap(pause.generation), 0);
  out.writeUInt32BE(cap(pause.pauseMs), 4);
  out[8] = Math.max(0, REBALANCE_CAUSES.indexOf(pause.cause));
  return out;
}

/** The pause at `offset`; undefined when absent, truncated or unknown. A hint, never a failure. */
function readPause(bytes: Buffer, offset: number): RebalancePause | undefined {
  if (offset + PAUSE_BYTES > bytes.length) return undefined;
  const generation = bytes.readUInt32BE(offset);
  const cause = REBALANCE_CAUSES[bytes[offset + 8]!];
  if (generation === 0 || cause === undefined) return undefined;
  return { generation, pauseMs: bytes.readUInt32BE(offset + 4), cause };
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
  const section = version >= 2 ? scanOwnedSection(bytes, HEADER_BYTES + idLength + TAIL_BYTES) : undefined;
  const owned = section?.owned;
  const processToken = version >= 3 && section?.end !== undefined ? readProcessToken(bytes, section.end) : undefined;
  const tokenEnd =
    section?.end === undefined || section.end >= bytes.length ? undefined : section.end + 1 + bytes[section.end]!;
  const lastPause = version >= 4 && tokenEnd !== undefined ? readPause(bytes, tokenEnd) : undefined;
  // The pause field is written whole (zeros when there is none), so the rack starts right after it.
  const rack = version >= 5 && tokenEnd !== undefined ? readRack(bytes, tokenEnd + PAUSE_BYTES) : undefined;
  return {
    ok: true,
    value: {
      instanceId,
      capacity,
      epoch,
      ...(owned === undefined ? {} : { owned }),
      ...(processToken === undefined ? {} : { processToken }),
      ...(lastPause === undefined ? {} : { lastPause }),
      ...(rack === undefined ? {} : { rack }),
    },
  };
}

/** The token field's bytes; throws a RangeError for a token the format cannot carry. */
function encodeProcessToken(token: string | undefined): Buffer {
  if (token === undefined) return Buffer.alloc(0);
  if (!PROCESS_TOKEN.test(token) || token.length === 0 || token.length / 2 > MAX_PROCESS_TOKEN_BYTES) {
    throw new RangeError(`processToken must be 1-${String(MAX_PROCESS_TOKEN_BYTES)} bytes of lowercase hex`);
  }
  return Buffer.from(token, 'hex');
}

/** The token at `offset`; undefined when absent (length 0), truncated or too long. A hint, never a failure. */
function readProcessToken(bytes: Buffer, offset: number): string | undefined {
  if (offset >= bytes.length) return undefined;
  const length = bytes[offset]!;
  if (length === 0 || length > MAX_PROCESS_TOKEN_BYTES || offset + 1 + length > bytes.length) return undefined;
  return bytes.subarray(offset + 1, offset + 1 + length).toString('hex');
}

function fail(reason: string): DecodedUserData {
  return { ok: false, reason };
}
