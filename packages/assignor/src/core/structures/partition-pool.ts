import type { TopicPartition } from '../types.js';

/**
 * A number this far past a topic's highest pooled one gets a fresh object, so a lone partition 900,000 cannot
 * fill the pool with empty slots. Real topics fill their slots in order, without gaps; with the capacity check,
 * this also keeps every pooled number below the capacity.
 */
const LARGEST_GAP = 1024;

/**
 * Immutable `{ topic, partition }` objects shared between `balance()` calls. A large result's small objects
 * all survive the call, and scavenges copy them again before promotion, costing more than the placement;
 * the same topics are placed call after call, so the same frozen objects are handed out. Freezing makes
 * them read-only at run time too, so no caller can change another's result through a shared object.
 *
 * Bounded: past `capacity` objects the pool starts over (objects handed out stay valid, only not reused).
 */
export class TopicPartitionPool {
  private readonly byTopic = new Map<string, Array<TopicPartition | undefined>>();
  private size = 0;

  /** @param capacity - Most objects held at once (each about 24 bytes plus its slot). */
  constructor(private readonly capacity: number) {}

  /** The frozen object for (`topic`, `partition`), created on first use. */
  get(topic: string, partition: number): TopicPartition {
    // Only non-negative 32-bit integers index a slot; anything else a caller passes is kept as given.
    if (!(partition >= 0 && (partition | 0) === partition)) return Object.freeze({ topic, partition });
    let slots = this.byTopic.get(topic);
    if (slots === undefined) {
      slots = [];
      this.byTopic.set(topic, slots);
    }
    const known = slots[partition];
    if (known !== undefined) return known;
    // Slots count towards the capacity, gaps included: they are what the pool holds.
    let grows = partition < slots.length ? 0 : partition + 1 - slots.length;
    if (grows > LARGEST_GAP) return Object.freeze({ topic, partition });
    if (this.size + grows > this.capacity) {
      this.byTopic.clear();
      this.size = 0;
      slots = [];
      this.byTopic.set(topic, slots);
      grows = partition + 1;
      if (grows > LARGEST_GAP || grows > this.capacity) return Object.freeze({ topic, partition });
    }
    const created = Object.freeze({ topic, partition });
    this.size += grows;
    // Gaps below `partition` hold undefined so the slot array stays a dense list.
    while (slots.length < partition) slots.push(undefined);
    slots[partition] = created;
    return created;
  }

  /** One topic's slots, for a caller resolving many partitions of it in a row. */
  slotsOf(topic: string): ReadonlyArray<TopicPartition | undefined> {
    return this.byTopic.get(topic) ?? [];
  }
}

/** The pool `balance()` draws its results from: up to 2^20 partitions (25–30 MB, as much as one such result). */
export const sharedPartitions = new TopicPartitionPool(1 << 20);
