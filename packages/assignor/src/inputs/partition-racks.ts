/**
 * Which racks hold a partition, from the metadata a leader already loaded: clients list each
 * partition's replicas and leader by broker id, and the brokers' `broker.rack` beside them.
 * Client-neutral: the KafkaJS and the @platformatic/kafka adapters both read racks through it.
 */

/** Which replicas make a partition local to a rack (the `replicaRacks` option). */
export type ReplicaRackMode = 'all' | 'leader';

/**
 * The racks of one partition's replicas (or of its leader only), sorted and without repeats;
 * undefined when none is known (no broker has a rack), which `balance()` reads as no preference.
 */
export function partitionRacks(
  partition: { readonly leader: number; readonly replicas?: ReadonlyArray<number> | undefined },
  brokerRacks: ReadonlyMap<number, string>,
  mode: ReplicaRackMode,
): string[] | undefined {
  if (brokerRacks.size === 0) return undefined;
  const nodes: ReadonlyArray<number> = mode === 'leader' ? [partition.leader] : (partition.replicas ?? []);
  const found = new Set<string>();
  for (const node of nodes) {
    const rack = typeof node === 'number' ? brokerRacks.get(node) : undefined;
    if (rack !== undefined) found.add(rack);
  }
  if (found.size === 0) return undefined;
  return [...found].sort();
}
