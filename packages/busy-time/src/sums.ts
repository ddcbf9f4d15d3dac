/**
 * Per-partition sums not yet handed to a counter. The handler path only adds numbers to a map
 * entry; labels are hashed once per scrape instead of once per message, which is what keeps the
 * wrapper's cost near zero (see BENCHMARKS.md).
 */
export class PartitionSums {
  // Nested maps: no string key to build per message.
  private readonly byTopic = new Map<string, Map<number, Float64Array>>();
  /**
   * Everything ever added, all partitions: [0] busy seconds, [1] messages. Kept apart from the
   * per-partition slots because a scrape drains those; the sizing reads these between scrapes.
   */
  readonly totals = new Float64Array(2);

  /** The slot of one partition: [0] busy seconds, [1] messages. Created on first use. */
  slot(topic: string, partition: number): Float64Array {
    let byPartition = this.byTopic.get(topic);
    if (byPartition === undefined) this.byTopic.set(topic, (byPartition = new Map<number, Float64Array>()));
    let slot = byPartition.get(partition);
    if (slot === undefined) byPartition.set(partition, (slot = new Float64Array(2)));
    return slot;
  }

  /** Adds to one partition's sums. */
  add(topic: string, partition: number, seconds: number, messages: number): void {
    const slot = this.slot(topic, partition);
    slot[0] = slot[0]! + seconds;
    slot[1] = slot[1]! + messages;
    this.totals[0] = this.totals[0]! + seconds;
    this.totals[1] = this.totals[1]! + messages;
  }

  /**
   * Calls `visit` for every partition with a non-zero pending amount at `index` and zeroes it, so
   * each amount is handed over exactly once.
   */
  drain(index: 0 | 1, visit: (topic: string, partition: number, amount: number) => void): void {
    for (const [topic, byPartition] of this.byTopic) {
      for (const [partition, slot] of byPartition) {
        const amount = slot[index]!;
        if (amount === 0) continue;
        slot[index] = 0;
        visit(topic, partition, amount);
      }
    }
  }
}
