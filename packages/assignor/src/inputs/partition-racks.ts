/**
 * Which racks hold a partition, from the metadata a leader already loaded: clients list each
 * partition's replicas and leader by broker id, and the brokers' `broker.rack` beside them.
 * Client-neutral: the KafkaJS and the @platformatic/kafka adapters both read racks through it.
 */

/** Which replicas make a partition local to a rack (the `replicaRacks` option). */
export type ReplicaRackMode = 'all' | 'leader';

/**
 * Rack lists already handed out during one listing, by content. A cluster has few distinct
 * replica placements (three zones give at most seven rack sets), so 100k partitions can share a
 * handful of arrays instead of holding one each: less memory, and `balance()` reads a shared
 * list's racks once.
 */
export type SharedRackLists = Map<string, ReadonlyArray<string>>;

/**
 * The racks of one partition's replicas (or of its leader only), sorted and without repeats;
 * undefined when none is known (no broker has a rack), which `balance()` reads as no preference.
 * With `shared`, equal lists come back as one array (so never mutate what this returns).
 */
export function partitionRacks(
  partition: { readonly leader: number; readonly replicas?: ReadonlyArray<number> | undefined },
  brokerRacks: ReadonlyMap<number, string>,
  mode: ReplicaRackMode,
  shared?: SharedRackLists,
): ReadonlyArray<string> | undefined {
  if (brokerRacks.size === 0) return undefined;
  const nodes: ReadonlyArray<number> = mode === 'leader' ? [partition.leader] : (partition.replicas ?? []);
  const found = new Set<string>();
  for (const node of nodes) {
    const rack = typeof node === 'number' ? brokerRacks.get(node) : undefined;
    if (rack !== undefined) found.add(rack);
  }
  if (found.size === 0) return undefined;
  const racks = [...found].sort();
  if (shared === undefined) return racks;
  // Rack names cannot hold a NUL (brokers read them from a properties file), so it separates them.
  const key = racks.join('\u0000');
  const known = shared.get(key);
  if (known !== undefined) return known;
  shared.set(key, racks);
  return racks;
}
