import type { TopicPartition } from '../core/types.js';
import { keyOfPartition } from '../core/structures/partition-key.js';
import { weightTable } from '../core/model/weights.js';
import type { ObservedMember } from '../protocol/observed-group.js';
import { withTimeout } from '../base/timeout.js';
import { errorMessageOf } from '../errors/error-fields.js';

/**
 * Cross-group balancing reads the other consumer groups that run on the same instances: what each
 * of their members holds, and on which instance. The leader turns that into a base load per
 * instance before balancing its own group (`BalanceInput.instanceBaseLoad`); the trigger judges
 * the combined load with the very same reading.
 */

/** The `crossGroup` option after validation. */
export interface CrossGroupSettings {
  /** Every group of the set, the own one included, sorted and without duplicates. */
  readonly groups: ReadonlyArray<string>;
  /** How long a Stable reading of a group stands in for it while it rebalances or cannot be read. */
  readonly maxStaleMs: number;
  /**
   * Length of each group's turn for proactive rebalances: the wall clock is cut into turns handed to
   * the groups in sorted order, so two groups of the set never fire together.
   */
  readonly turnMs: number;
}

/**
 * How a sibling group counted: read Stable now; `stale`: not Stable now (rebalancing) or not
 * readable, so its last Stable reading, at most `maxStaleMs` old, stands in; `left_out`: neither,
 * so it adds no load.
 */
export type SiblingStatus = 'stable' | 'stale' | 'left_out';

/** One sibling group as one reading saw it. */
export interface SiblingReading {
  readonly groupId: string;
  readonly status: SiblingStatus;
  /** The state DescribeGroups answered now; undefined when the group could not be read. */
  readonly state: string | undefined;
  /** Why the group is stale or left out; undefined when it is stable. */
  readonly reason: string | undefined;
  /** Its members, with their instances and what they hold (none when left out). */
  readonly members: ReadonlyArray<ObservedMember>;
  /** How old the members' reading is, in milliseconds (0 when read now). */
  readonly ageMs: number;
}

/**
 * One group as DescribeGroups answered, already decoded by the leader's rule: an `ObservedGroup`
 * fits. Decoded by the caller, so that this file loads no client library and every adapter
 * (KafkaJS's coordinator connection, platformatic's `Admin`) reads siblings the same way.
 */
export interface DescribedSibling {
  readonly state: string;
  /** Its members; only read while the group is Stable (the broker returns none otherwise). */
  readonly members: ReadonlyArray<ObservedMember>;
}

/** Reads and decodes one group's description; rejects when it cannot. */
export type DescribeGroup = (groupId: string) => Promise<DescribedSibling>;

/** The last Stable reading of each sibling group, shared by everything one assigner serves. */
export class SiblingCache {
  private readonly readings = new Map<string, { readonly atMs: number; readonly members: ObservedMember[] }>();

  /** Keeps a Stable reading taken at `atMs`. */
  remember(groupId: string, atMs: number, members: ReadonlyArray<ObservedMember>): void {
    this.readings.set(groupId, { atMs, members: [...members] });
  }

  /** The reading of `groupId` if it is at most `maxAgeMs` old at `nowMs`. */
  recall(groupId: string, nowMs: number, maxAgeMs: number): { ageMs: number; members: ObservedMember[] } | undefined {
    const kept = this.readings.get(groupId);
    if (kept === undefined || nowMs - kept.atMs > maxAgeMs) return undefined;
    return { ageMs: Math.max(0, nowMs - kept.atMs), members: kept.members };
  }
}

/**
 * Reads every sibling of `ownGroupId` at once, each within `timeoutMs`. Never rejects: a group that
 * is not Stable or cannot be read falls back to its recent Stable reading, else it is left out.
 * `Empty` and `Dead` groups (no members, or deleted) are read as carrying nothing.
 */
export async function readSiblingGroups(
  describe: DescribeGroup,
  ownGroupId: string,
  settings: CrossGroupSettings,
  cache: SiblingCache,
  timeoutMs: number,
  nowMs: () => number = Date.now,
): Promise<SiblingReading[]> {
  const siblings = settings.groups.filter((g) => g !== ownGroupId);
  return Promise.all(
    siblings.map(async (groupId): Promise<SiblingReading> => {
      let state: string | undefined;
      let reason: string;
      try {
        const timeout = (): Error => new Error(`DescribeGroups did not answer within ${String(timeoutMs)} ms`);
        const description = await withTimeout(describe(groupId), timeoutMs, timeout);
        state = description.state;
        if (state === 'Stable' || state === 'Empty' || state === 'Dead') {
          const members = state === 'Stable' ? [...description.members] : [];
          cache.remember(groupId, nowMs(), members);
          return { groupId, status: 'stable', state, reason: undefined, members, ageMs: 0 };
        }
        reason = `the group is ${state}`;
      } catch (err) {
        reason = `cannot be read: ${errorMessageOf(err)}`;
      }
      const kept = cache.recall(groupId, nowMs(), settings.maxStaleMs);
      if (kept !== undefined)
        return { groupId, status: 'stale', state, reason, members: kept.members, ageMs: kept.ageMs };
      return { groupId, status: 'left_out', state, reason, members: [], ageMs: 0 };
    }),
  );
}

/** Every partition some sibling member holds, each once: what must be weighed besides the group's own. */
export function siblingPartitions(readings: ReadonlyArray<SiblingReading>): TopicPartition[] {
  const seen = new Map<string, TopicPartition>();
  for (const r of readings) {
    for (const m of r.members) for (const p of m.assigned) seen.set(keyOfPartition(p), p);
  }
  return [...seen.values()];
}

/**
 * Base load per instance: the weights of what the siblings' members on it hold, weighed with the
 * rule the group's own partitions get (a partition a source reported twice keeps its largest
 * usable weight; a missing or unusable one counts as `defaultWeight`). The leader and the trigger
 * both weigh siblings here, so they judge the same loads. Members without load-aware userData get
 * an instance id of their own, so they never add to a real instance.
 */
export function siblingBaseLoads(
  readings: ReadonlyArray<SiblingReading>,
  weights: ReadonlyArray<{ topic: string; partition: number; weight: number }>,
  defaultWeight: number,
): Map<string, number> {
  const table = weightTable(weights);
  const load = new Map<string, number>();
  for (const r of readings) {
    for (const m of r.members) {
      let sum = load.get(m.instanceId) ?? 0;
      for (const p of m.assigned) sum += table.weightOf(p.topic, p.partition) ?? defaultWeight;
      load.set(m.instanceId, sum);
    }
  }
  return load;
}

/**
 * A canonical text of who holds what in the siblings, independent of listing order: the trigger
 * restarts its streak when it changes, because a sibling's rebalance changes what this group is
 * judged against.
 */
export function siblingFingerprint(readings: ReadonlyArray<SiblingReading>): string {
  return readings
    .map((r) => {
      const members = r.members
        .map((m) => `${m.instanceId}/${m.memberId}=${m.assigned.map(keyOfPartition).sort().join(',')}`)
        .sort();
      return `${r.groupId}:${r.status === 'left_out' ? '-' : members.join(';')}`;
    })
    .sort()
    .join('\n');
}

/**
 * Whose turn it is to correct its balance: the wall clock is cut into turns of `turnMs`, handed to
 * the groups of the set in sorted order. Every instance agrees on it without talking to the
 * others (clocks of one cluster agree to far less than a turn), so two groups never fire
 * together, and the second one judges the first one's result. A turn only opens during its first
 * half, leaving the rest for the rebalance to finish before the next group's turn.
 */
export function turnOf(
  settings: CrossGroupSettings,
  groupId: string,
  nowMs: number,
): { readonly open: boolean; readonly holder: string; readonly opensInMs: number } {
  const { groups, turnMs } = settings;
  const set = groups.includes(groupId) ? groups : [...groups, groupId].sort();
  const slot = Math.floor(nowMs / turnMs);
  const holder = set[slot % set.length]!;
  const intoTurn = nowMs - slot * turnMs;
  const own = set.indexOf(groupId);
  const open = holder === groupId && intoTurn < turnMs / 2;
  if (open) return { open, holder, opensInMs: 0 };
  // Slots until the own group's next turn (this one counts as passed once its open half is over).
  const ahead = (own - (slot % set.length) + set.length) % set.length || set.length;
  return { open, holder, opensInMs: ahead * turnMs - intoTurn };
}
