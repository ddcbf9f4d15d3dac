/**
 * Partition lists of topics whose metadata reached the leader only after an assignment's budget.
 * Such a topic was left out of that assignment; the list lets the next one include it even when
 * the metadata is slow again, so asking for a rebalance after a late answer cannot loop.
 */
export class LateTopicMetadata {
  private readonly byTopic = new Map<string, { readonly partitions: ReadonlyArray<number>; readonly atMs: number }>();

  /**
   * @param maxAgeMs - how long a remembered list stands in for fresh metadata; partition counts
   *   only grow, but a deleted and recreated topic may shrink, so the list must not live forever.
   * @param maxTopics - bound on memory: the oldest entries go first.
   */
  constructor(
    private readonly maxAgeMs = 10 * 60_000,
    private readonly maxTopics = 10_000,
  ) {}

  /** Keeps `partitions` as `topic`'s list, learnt at `nowMs`. */
  remember(topic: string, partitions: ReadonlyArray<number>, nowMs: number): void {
    this.byTopic.delete(topic);
    this.byTopic.set(topic, { partitions: [...partitions], atMs: nowMs });
    for (const oldest of this.byTopic.keys()) {
      if (this.byTopic.size <= this.maxTopics) break;
      this.byTopic.delete(oldest);
    }
  }

  /** `topic`'s remembered partitions, or undefined when none or older than `maxAgeMs`. */
  recall(topic: string, nowMs: number): ReadonlyArray<number> | undefined {
    const entry = this.byTopic.get(topic);
    if (entry === undefined) return undefined;
    if (nowMs - entry.atMs > this.maxAgeMs) {
      this.byTopic.delete(topic);
      return undefined;
    }
    return entry.partitions;
  }
}
