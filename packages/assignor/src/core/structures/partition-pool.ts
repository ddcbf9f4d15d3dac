import type { TopicPartition } from '../types.js';

/**
 * A number this far past a topic's highest pooled one gets a fresh object instead: a lone
 * partition 900,000 must not make the pool hold 900,000 empty slots. Kafka numbers a topic's
 * partitions from 0 and results walk them in ascending order, so a real topic's slots fill
 * without gaps; with the capacity, this also keeps every pooled number below the capacity.
 */
const LARGEST_GAP = 1024;

/**
 * Immutable `{ topic, partition }` objects shared between `balance()` calls.
 *
 * Why: a result at 100k partitions is 100k small objects that all survive the call. In Node they
 * are born in the young generation, and every scavenge that runs while a later call works copies
 * them again before they are promoted; at 100k that costs more than computing the placement.
 * A leader and a trigger place the same topics call after call, so handing out the same frozen
 * objects each time removes that cost and nothing else changes: a `TopicPartition` is a value
 * whose fields are read-only by type, and freezing makes them read-only at run time too, so no
 * caller can change another caller's result through a shared object.
 *
 * The pool is bounded: when it would hold more than `capacity` objects it starts over (objects
 * already handed out stay valid; they are only no longer reused). A process placing more
 * partitions than that then simply gets fresh objects, as without a pool.
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

/**
 * The pool `balance()` draws its results from: up to 2^20 partitions (about 25–30 MB at most,
 * as much as one result of that size holds anyway).
 */
export const sharedPartitions = new TopicPartitionPool(1 << 20);
