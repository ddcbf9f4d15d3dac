import type { BalanceMember, BalanceResult, TopicPartition, WeightedPartition } from '@load-aware/assignor';

/**
 * The rack layouts of Apache Kafka's assignor tests (AbstractPartitionAssignorTest), rebuilt for
 * balance(): broker `i` sits in rack `brokerRacks[i]` (null: no rack), partition `p` of the k-th
 * topic (in the order given) has its replicas on brokers `(p + j + first) % brokers` for j below
 * the replication factor, where `first` counts the partitions of the topics before it. Weight 1.
 */
export function kafkaPartitions(
  sizes: ReadonlyArray<readonly [string, number]>,
  replicationFactor: number,
  brokerRacks: ReadonlyArray<string | null>,
): WeightedPartition[] {
  const out: WeightedPartition[] = [];
  let first = 0;
  for (const [topic, count] of sizes) {
    for (let p = 0; p < count; p++) {
      const racks = new Set<string>();
      for (let j = 0; j < replicationFactor; j++) {
        const rack = brokerRacks[(p + j + first) % brokerRacks.length];
        if (rack !== null && rack !== undefined) racks.add(rack);
      }
      out.push(
        racks.size === 0 ? { topic, partition: p, weight: 1 } : { topic, partition: p, weight: 1, racks: [...racks] },
      );
    }
    first += count;
  }
  return out;
}

/** Kafka's `racks(n)`: a, b, c, ... */
export function racks(n: number): string[] {
  return Array.from({ length: n }, (_, i) => 'abcdef'[i % 6]!);
}

/** Kafka's `nullRacks(n)`. */
export function nullRacks(n: number): null[] {
  return Array.from({ length: n }, () => null);
}

/** Consumers `c0, c1, ...`, each its own instance, with the given subscriptions and racks. */
export function consumers(
  topics: ReadonlyArray<ReadonlyArray<string>>,
  consumerRacks: ReadonlyArray<string | null>,
): BalanceMember[] {
  return topics.map((t, i) => {
    const rack = consumerRacks[i];
    const base = { memberId: `c${String(i)}`, instanceId: `c${String(i)}`, topics: [...t] };
    return rack === null || rack === undefined ? base : { ...base, rack };
  });
}

/** Kafka's mismatch count: partitions on a consumer with a rack that holds none of their replicas. */
export function rackMismatches(
  members: ReadonlyArray<BalanceMember>,
  partitions: ReadonlyArray<WeightedPartition>,
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
): number {
  const racksOf = new Map(partitions.map((p) => [`${p.topic}-${String(p.partition)}`, p.racks ?? []]));
  let mismatched = 0;
  for (const m of members) {
    if (m.rack === undefined) continue;
    for (const p of assignments.get(m.memberId) ?? []) {
      if (!(racksOf.get(`${p.topic}-${String(p.partition)}`) ?? []).includes(m.rack)) mismatched++;
    }
  }
  return mismatched;
}

/** Kafka's owned-partition lists ("t1-0, t1-3") as a previous assignment of c0, c1, ... */
export function owned(lists: ReadonlyArray<string>): Map<string, TopicPartition[]> {
  return new Map(
    lists.map((list, i) => [
      `c${String(i)}`,
      list.split(', ').map((label) => {
        const cut = label.lastIndexOf('-');
        return { topic: label.slice(0, cut), partition: Number(label.slice(cut + 1)) };
      }),
    ]),
  );
}

/** Everything of a result but the rack tallies, to compare placements byte for byte. */
export function withoutRackTallies(result: BalanceResult): unknown {
  const {
    crossRackWeight: _w,
    crossRackPartitions: _p,
    crossRackLowerBound: _b,
    crossRackForcedWeight: _f,
    ...rest
  } = result;
  const instances = rest.instances.map(({ rack: _r, ...i }) => i);
  return JSON.stringify({ ...rest, instances, assignments: [...rest.assignments] });
}
