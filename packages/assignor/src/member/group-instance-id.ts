import { createHash } from 'node:crypto';

/**
 * Group instance ids (KIP-345) for the consumers of one process, derived rather than configured:
 * one assigner serves every consumer of a process, so the id of each consumer has to come from
 * what is the same across restarts of the same deployment: the process's `instanceId`, the group,
 * and the consumer's place among this process's consumers of that group.
 */

/** Kafka accepts ASCII letters, digits, `.`, `_` and `-` in a group instance id, at most 249. */
const LEGAL = /^[A-Za-z0-9._-]+$/;
const ILLEGAL_CHAR = /[^A-Za-z0-9._-]/g;
/** Longest instance id used as it is; the ordinal suffix must still fit in Kafka's 249. */
const MAX_VERBATIM = 200;
/** How much of a rewritten instance id is kept before its hash. */
const KEPT_PREFIX = 180;

/**
 * The group instance id of the consumer at place `ordinal` (0 for the first consumer of the
 * group created in the process, 1 for the second, ...): `<instanceId>.<ordinal>`, e.g.
 * `orders-7.0`. An instance id that Kafka would refuse (other characters, or longer than 200) is
 * rewritten: illegal characters become `_`, it is cut to 180 characters, and a hash of the
 * original keeps two such ids apart (`<rewritten>.h<10 hex>.<ordinal>`).
 */
export function groupInstanceIdOf(instanceId: string, ordinal: number): string {
  const base =
    LEGAL.test(instanceId) && instanceId.length <= MAX_VERBATIM
      ? instanceId
      : `${instanceId.replace(ILLEGAL_CHAR, '_').slice(0, KEPT_PREFIX)}.h${createHash('sha256').update(instanceId).digest('hex').slice(0, 10)}`;
  return `${base}.${String(ordinal)}`;
}

/** A place among one process's consumers of one group; see {@link claimPlace}. */
export interface ConsumerPlace {
  /** The place held now (the same one after a release and a reclaim, when it is still free). */
  readonly ordinal: number;
  /** Gives the place up: the consumer disconnected. */
  release(): void;
  /** Takes a place again (its previous one when still free, else the lowest free one). */
  reclaim(): void;
}

/**
 * Places taken per (instance id, group), process-wide: two assigners created with the same
 * `instanceId` in one process must still give their consumers different ids, or they would fence
 * each other.
 */
const taken = new Map<string, Set<number>>();

/**
 * Takes the lowest free place among this process's consumers of `groupId` with `instanceId`.
 * Consumers created in the same order get the same places after a restart. A consumer that
 * disconnects frees its place, so a consumer created to replace it takes the same id back.
 */
export function claimPlace(instanceId: string, groupId: string): ConsumerPlace {
  const key = `${instanceId}\u0000${groupId}`;
  const held = taken.get(key) ?? new Set<number>();
  taken.set(key, held);
  const lowestFree = (): number => {
    let n = 0;
    while (held.has(n)) n++;
    return n;
  };
  let ordinal = lowestFree();
  let holding = true;
  held.add(ordinal);
  return {
    get ordinal() {
      return ordinal;
    },
    release() {
      if (!holding) return;
      holding = false;
      held.delete(ordinal);
    },
    reclaim() {
      if (holding) return;
      if (held.has(ordinal)) ordinal = lowestFree();
      holding = true;
      held.add(ordinal);
    },
  };
}
