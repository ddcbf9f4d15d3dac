import type { TopicPartition } from '../core/types.js';

/**
 * The partitions a member owns, as it reports them in its subscription userData (record version
 * 2), and the compact byte layout they travel in.
 *
 * Why members report them: stickiness needs the current owners, and a leader that just took over
 * (its predecessor's pod restarted) has no memory of the last assignment. Kafka's own sticky
 * assignors solve it the same way (owned partitions and a generation in the subscription).
 *
 * Why `generation` is the generation in which the owned set last *changed*, not the latest one:
 * the broker rebalances a Stable group when a follower rejoins with different metadata, and
 * KafkaJS rejoins on its own when the group coordinator moves. A member whose assignment did not
 * change must therefore send byte-identical userData. Conflict resolution still works: a member
 * that missed the generation in which it lost a partition reports a set that changed before that
 * generation, while the partition's new owner reports that generation or a later one.
 */
export interface OwnedPartitions {
  /** The group generation in which this owned set was received; higher wins a conflicting claim. */
  readonly generation: number;
  readonly partitions: ReadonlyArray<TopicPartition>;
}

/**
 * The most bytes the owned section may take in one record. Kafka stores every member's
 * subscription in one group metadata record (1 MB by default, shared with the assignments), so
 * a member owning a huge share of a huge group reports nothing rather than risk that record; the
 * leader then falls back to its own memory for that member.
 */
export const MAX_OWNED_BYTES = 32 * 1024;

/** Largest partition number a topic can have (Kafka partitions are int32). */
const MAX_PARTITION = 0x7fffffff;

/**
 * Appends the owned section to `out`: i32 generation, then varint topic count and per topic (in
 * name order) varint name length, UTF-8 name, varint partition count and the ascending partition
 * numbers as varint deltas. Returns false (and writes nothing) when it would exceed
 * {@link MAX_OWNED_BYTES}; `undefined` (nothing known yet) writes generation -1 and no topics,
 * which differs from an empty set at a known generation ("I own nothing").
 */
export function writeOwnedSection(out: number[], owned: OwnedPartitions | undefined): boolean {
  const section: number[] = [];
  const byTopic = owned === undefined ? new Map<string, number[]>() : groupSorted(owned.partitions);
  pushInt32(section, owned === undefined ? -1 : owned.generation);
  pushVarint(section, byTopic.size);
  for (const [topic, partitions] of byTopic) {
    const name = Buffer.from(topic, 'utf8');
    pushVarint(section, name.length);
    for (const byte of name) section.push(byte);
    pushVarint(section, partitions.length);
    let last = -1;
    for (const p of partitions) {
      pushVarint(section, p - last);
      last = p;
    }
    if (section.length > MAX_OWNED_BYTES) return false;
  }
  for (const byte of section) out.push(byte);
  return true;
}

/**
 * Reads the owned section at `offset` and says where it ends, so that fields appended after it
 * (record version 3) can be found. Anything malformed (truncated, a partition out of range, topics
 * out of order or listed twice, bad UTF-8) yields no `owned`: a member's claim is a hint for
 * stickiness, never worth failing its whole record over. `end` is undefined when the section is malformed (nothing after
 * it can be located); "nothing known yet" (generation -1) has an `end` but no `owned`.
 */
export function scanOwnedSection(
  bytes: Buffer,
  offset: number,
): { readonly owned: OwnedPartitions | undefined; readonly end: number | undefined } {
  const malformed = { owned: undefined, end: undefined };
  const reader = new Reader(bytes, offset);
  const generation = reader.int32();
  const topicCount = reader.varint();
  if (generation === undefined || topicCount === undefined) return malformed;
  // Only "nothing known" is written with a negative generation, and always without topics.
  if (generation < 0) return topicCount === 0 ? { owned: undefined, end: reader.position } : malformed;
  const partitions: TopicPartition[] = [];
  let previousTopic: string | undefined;
  for (let t = 0; t < topicCount; t++) {
    const nameBytes = reader.bytes(reader.varint());
    if (nameBytes === undefined || nameBytes.length === 0) return malformed;
    const topic = nameBytes.toString('utf8');
    if (!Buffer.from(topic, 'utf8').equals(nameBytes)) return malformed;
    // Only the canonical form (topics ascending, each once) is accepted, so that a record reads
    // back to exactly what encoding it again gives.
    if (previousTopic !== undefined && !(previousTopic < topic)) return malformed;
    previousTopic = topic;
    const count = reader.varint();
    if (count === undefined || count > bytes.length) return malformed;
    let partition = -1;
    for (let i = 0; i < count; i++) {
      const delta = reader.varint();
      if (delta === undefined || delta < 1) return malformed;
      partition += delta;
      if (partition > MAX_PARTITION) return malformed;
      partitions.push({ topic, partition });
    }
  }
  return { owned: { generation, partitions }, end: reader.position };
}

/** True when `a` and `b` list the same partitions, in any order (each list without duplicates). */
export function samePartitions(a: ReadonlyArray<TopicPartition>, b: ReadonlyArray<TopicPartition>): boolean {
  if (a.length !== b.length) return false;
  const keys = new Set(a.map((p) => `${p.topic}\u0000${String(p.partition)}`));
  return b.every((p) => keys.has(`${p.topic}\u0000${String(p.partition)}`));
}

/** Topic → its distinct partitions ascending, topics in code-unit order (so encoding is canonical). */
function groupSorted(partitions: ReadonlyArray<TopicPartition>): Map<string, number[]> {
  const byTopic = new Map<string, Set<number>>();
  for (const { topic, partition } of partitions) {
    if (!Number.isInteger(partition) || partition < 0 || partition > MAX_PARTITION) continue;
    let set = byTopic.get(topic);
    if (set === undefined) byTopic.set(topic, (set = new Set<number>()));
    set.add(partition);
  }
  const topics = [...byTopic.keys()].filter((t) => t.length > 0).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return new Map(topics.map((t) => [t, [...byTopic.get(t)!].sort((a, b) => a - b)]));
}

function pushInt32(out: number[], value: number): void {
  const v = value >>> 0;
  out.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
}

/** Unsigned LEB128, for non-negative integers up to 2^31. */
function pushVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** A bounds-checked cursor: every read answers undefined past the end instead of throwing. */
class Reader {
  constructor(
    private readonly buffer: Buffer,
    private offset: number,
  ) {}

  /** Where the next read starts. */
  get position(): number {
    return this.offset;
  }

  int32(): number | undefined {
    if (this.offset + 4 > this.buffer.length) return undefined;
    const value = this.buffer.readInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  varint(): number | undefined {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      if (this.offset >= this.buffer.length) return undefined;
      const byte = this.buffer[this.offset++]!;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    return undefined; // longer than any int32 needs
  }

  bytes(length: number | undefined): Buffer | undefined {
    if (length === undefined || this.offset + length > this.buffer.length) return undefined;
    const out = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
}
