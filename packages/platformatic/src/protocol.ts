import { ASSIGNER_NAME } from '@load-aware/assignor/portable';

/**
 * The protocol names and subscription versions this adapter advertises, and how the leader tells
 * from the members' subscriptions which protocol the broker chose.
 *
 * Platformatic rebalances incrementally only under a protocol named exactly `cooperative-sticky`
 * (its `COOPERATIVE_STICKY_ASSIGNOR`), and only then sends owned partitions and the generation in
 * the subscription itself. Below subscription version 2 it reads that generation out of the first
 * 4 bytes of userData, which here hold the load-aware record's magic: so the cooperative entry is
 * advertised with version 3 (owned partitions from 1, generation from 2, rack from 3).
 *
 * The `LoadAwareAssigner` entry keeps version 0, exactly what KafkaJS members send: the leader is
 * not told which protocol the broker chose, but the members' subscription versions tell it.
 */

/** Platformatic's name for its incremental protocol (`COOPERATIVE_STICKY_ASSIGNOR` in 2.12.1). */
export const COOPERATIVE_PROTOCOL = 'cooperative-sticky';
/** The subscription version of the cooperative entry: the generation has its own field. */
export const COOPERATIVE_SUBSCRIPTION_VERSION = 3;
/** The subscription version of the `LoadAwareAssigner` entry: what KafkaJS members send. */
export const EAGER_SUBSCRIPTION_VERSION = 0;

/** One entry of platformatic's `protocols` option. */
export interface ProtocolEntry {
  readonly name: string;
  readonly version: number;
}

/**
 * What a consumer offers in JoinGroup, in order of preference. Cooperative mode keeps the eager
 * protocol second, so that while any member offers only that one (a KafkaJS member, an eager
 * platformatic member mid-roll) the group still forms, eagerly.
 */
export function protocolsFor(mode: 'eager' | 'cooperative'): ProtocolEntry[] {
  const eager = { name: ASSIGNER_NAME, version: EAGER_SUBSCRIPTION_VERSION };
  return mode === 'eager'
    ? [eager]
    : [{ name: COOPERATIVE_PROTOCOL, version: COOPERATIVE_SUBSCRIPTION_VERSION }, eager];
}

/**
 * True when the subscriptions the leader holds are those of the cooperative entry: the broker
 * chose `cooperative-sticky`. Every load-aware member sends the version of the entry chosen, so one
 * version-0 member means `LoadAwareAssigner` (eager) was chosen. Members without a load-aware record
 * (a plain cooperative-sticky member) do not count here; they are warned about instead.
 */
export function isCooperativeRound(versions: ReadonlyArray<number>): boolean {
  return versions.length > 0 && versions.every((v) => v >= COOPERATIVE_SUBSCRIPTION_VERSION);
}
