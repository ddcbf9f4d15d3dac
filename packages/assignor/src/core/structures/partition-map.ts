/**
 * Partition numbers below this index an array; others (negative, fractional, NaN, huge) go through a Map.
 * Kafka numbers partitions 0, 1, 2, …, so the array covers every real one; a hostile 2^31 cannot make it huge.
 */
const DENSE_LIMIT = 1 << 20;

/**
 * Beyond {@link SLOT_BUDGET} plus this many slots per entry, over all topics, entries go to the Map: a few
 * far-apart numbers on many topics (a hostile report) must not make the arrays large.
 */
const SLOTS_PER_ENTRY = 8;
const SLOT_BUDGET = 1 << 22;

/** One topic's entries, in the order they were first set. */
interface TopicEntries<V> {
  /** By partition number below the array's length: 1 + the entry's position, 0 when none. */
  slots: Int32Array;
  /** The entry position of every partition kept outside `slots`. */
  sparse: Map<number, number> | undefined;
  /** Partition number of each entry. */
  readonly partitions: number[];
  /** Value of each entry. */
  readonly values: V[];
}

/**
 * A map from (topic, partition number) to a value with the semantics of a `Map<string, Map<number, V>>`
 * (SameValueZero keys, so -0 is 0; first-insertion order, topic by topic) but an index array per topic: on
 * paths touching every partition, a hash lookup and map entry each cost more than the work done with them.
 */
export class PartitionMap<V> {
  private readonly byTopic = new Map<string, TopicEntries<V>>();
  // The last topic looked up: callers mostly walk partitions topic by topic, so this spares the hash.
  private lastTopic: string | undefined;
  private lastEntries: TopicEntries<V> | undefined;
  private count = 0;
  private slotCount = 0;

  /** The value of `topic`'s `partition`, undefined when none was set. */
  get(topic: string, partition: number): V | undefined {
    const entries = this.entriesOf(topic);
    if (entries === undefined) return undefined;
    const position = positionOf(entries, partition);
    return position < 0 ? undefined : entries.values[position];
  }

  /** Sets the value of `topic`'s `partition`. */
  set(topic: string, partition: number, value: V): void {
    let entries = this.entriesOf(topic);
    if (entries === undefined) {
      entries = { slots: new Int32Array(0), sparse: undefined, partitions: [], values: [] };
      this.byTopic.set(topic, entries);
      this.lastTopic = topic;
      this.lastEntries = entries;
    }
    const position = positionOf(entries, partition);
    if (position >= 0) {
      entries.values[position] = value;
      return;
    }
    // SameValueZero: -0 is stored and reported as 0, as a Map key would be.
    const key = partition === 0 ? 0 : partition;
    const added = entries.partitions.push(key) - 1;
    entries.values.push(value);
    this.count++;
    if (this.fitsSlots(entries, key)) entries.slots[key] = added + 1;
    else (entries.sparse ??= new Map<number, number>()).set(key, added);
  }

  /** How many (topic, partition) pairs have a value. */
  get size(): number {
    return this.count;
  }

  /** Calls `visit` once per pair with a value: topics, then partitions, in first insertion order. */
  forEach(visit: (topic: string, partition: number, value: V) => void): void {
    for (const [topic, { partitions, values }] of this.byTopic) {
      for (let i = 0; i < partitions.length; i++) visit(topic, partitions[i]!, values[i]!);
    }
  }

  private entriesOf(topic: string): TopicEntries<V> | undefined {
    if (topic === this.lastTopic && this.lastEntries !== undefined) return this.lastEntries;
    const entries = this.byTopic.get(topic);
    // Only a topic that exists is cached: set() must still see a missing one as missing.
    if (entries !== undefined) {
      this.lastTopic = topic;
      this.lastEntries = entries;
    }
    return entries;
  }

  /** True when `key` has (or, growing the array within bounds, gets) a slot of the topic's array. */
  private fitsSlots(entries: TopicEntries<V>, key: number): boolean {
    const { slots } = entries;
    if (key < slots.length && Number.isInteger(key) && key >= 0) return true;
    if (!(Number.isInteger(key) && key >= 0 && key < DENSE_LIMIT)) return false;
    // Doubling keeps the copies linear in the final length, whatever order numbers come in.
    const length = Math.min(DENSE_LIMIT, Math.max(key + 1, 2 * slots.length, 16));
    if (this.slotCount + length - slots.length > SLOT_BUDGET + SLOTS_PER_ENTRY * this.count) return false;
    const grown = new Int32Array(length);
    grown.set(slots);
    this.slotCount += length - slots.length;
    entries.slots = grown;
    return true;
  }
}

/** Where the entry of `partition` is in the topic's lists; -1 when it has none. */
function positionOf(entries: TopicEntries<unknown>, partition: number): number {
  const { slots } = entries;
  // Typed-array reads of any other number (fractional, negative, NaN) are undefined, never a slot.
  const slot = slots[partition];
  if (slot !== undefined && slot > 0) return slot - 1;
  return entries.sparse?.get(partition) ?? -1;
}
