import { createRandom } from '@load-aware/test-support';

/**
 * Messages per second for each of `partitions` partitions, Zipf-distributed: the partition of
 * rank r gets `topPerSecond / r^exponent`. Ranks are dealt to partitions in a seeded shuffled
 * order, so neither round-robin's partition-id order nor Kafka's replica order lines up with
 * the skew by accident, and every run measures the same workload.
 */
export function zipfRates(partitions: number, topPerSecond: number, exponent: number, seed: number): number[] {
  const random = createRandom(seed);
  const ranks = Array.from({ length: partitions }, (_, index) => index + 1);
  for (let i = ranks.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [ranks[i], ranks[j]] = [ranks[j]!, ranks[i]!];
  }
  return ranks.map((rank) => Math.max(1, Math.round(topPerSecond / rank ** exponent)));
}

/** One partition's replicas, leader first, as KafkaJS `createTopics` takes them. */
export interface ReplicaAssignment {
  readonly partition: number;
  readonly replicas: number[];
}

/**
 * Places the replicas of partitions with the given rates on `brokers` the way a broker-side load
 * balancer (Cruise Control, or an operator with a reassignment plan) keeps a production cluster:
 * heaviest partition first, its leader on the broker with the least leader traffic so far and each
 * further replica on the least-loaded broker not yet holding it (ties: lower node id). Kafka's own
 * placement ignores traffic, and with a few skewed partitions it can leave one rack far busier
 * than the others; then no assignor can be both balanced and in-rack, and the test would measure
 * the placement rather than the assignor.
 */
export function placeReplicasByLoad(
  rates: readonly number[],
  brokers: readonly number[],
  replicationFactor: number,
): ReplicaAssignment[] {
  if (replicationFactor < 1 || replicationFactor > brokers.length) {
    throw new Error(`replicationFactor must be 1..${String(brokers.length)}, got ${String(replicationFactor)}`);
  }
  // One load per replica position: leaders carry the consumers' traffic, followers only
  // replication, so each position is balanced separately.
  const loads = Array.from({ length: replicationFactor }, () => new Map(brokers.map((b) => [b, 0])));
  const order = rates
    .map((rate, partition) => ({ rate, partition }))
    .sort((x, y) => y.rate - x.rate || x.partition - y.partition);
  const placed = order.map(({ rate, partition }) => {
    const replicas: number[] = [];
    for (const load of loads) {
      const broker = [...load]
        .filter(([b]) => !replicas.includes(b))
        .sort(([b1, l1], [b2, l2]) => l1 - l2 || b1 - b2)[0]![0];
      load.set(broker, load.get(broker)! + rate);
      replicas.push(broker);
    }
    return { partition, replicas };
  });
  return placed.sort((x, y) => x.partition - y.partition);
}
