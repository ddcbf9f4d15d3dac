/**
 * Subscribed partitions that no member holds (partitions added to a topic since the last
 * rebalance, mostly), and when to force a rebalance for them. Pure: the controller reads the
 * group and the topics' metadata, this decides. A correctness matter, not a balance one, so there
 * is no threshold, hysteresis or cooldown before the first fire; only a rebalance that did not
 * get them held backs off, so a partition no leader can assign never makes the group rebalance at
 * every check.
 */
import { keyOfPartition, type ListedTopic, type TopicPartition } from '@load-aware/assignor/internal';
import type { ObservedMember } from './load.js';

/** Every topic some member subscribes to, sorted. */
export function subscribedTopics(members: ReadonlyArray<ObservedMember>): string[] {
  return [...new Set(members.flatMap((m) => m.topics))].sort();
}

/**
 * The partitions of subscribed topics that the broker lists and no member holds, by topic and
 * partition number. Topics no member subscribes to are not the group's business.
 */
export function unheldPartitions(
  members: ReadonlyArray<ObservedMember>,
  listed: ReadonlyArray<ListedTopic>,
): TopicPartition[] {
  const subscribed = new Set(members.flatMap((m) => m.topics));
  const held = new Set(members.flatMap((m) => m.assigned.map(keyOfPartition)));
  const out: TopicPartition[] = [];
  for (const { topic, partitions } of [...listed].sort((a, b) =>
    a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0,
  )) {
    if (!subscribed.has(topic)) continue;
    for (const partition of [...new Set(partitions)].sort((a, b) => a - b)) {
      if (!held.has(keyOfPartition({ topic, partition }))) out.push({ topic, partition });
    }
  }
  return out;
}

/** How many ranges of one topic {@link partitionsText} names before it says how many more. */
const MAX_RANGES = 20;

/**
 * Partitions as short text for a log line: `orders[4-7], payments[0, 2]`, at most `maxTopics`
 * topics (then `… and N more topics`) and 20 ranges per topic (then `… +N`), so thousands of
 * unheld partitions stay one short line. `partitions` are sorted by topic, then number, as
 * {@link unheldPartitions} returns them.
 */
export function partitionsText(partitions: ReadonlyArray<TopicPartition>, maxTopics = 10): string {
  const byTopic = new Map<string, number[]>();
  for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
  const texts = [...byTopic].slice(0, maxTopics).map(([topic, numbers]) => `${topic}[${rangesText(numbers)}]`);
  const more = byTopic.size - texts.length;
  return more > 0 ? `${texts.join(', ')} and ${String(more)} more topics` : texts.join(', ');
}

/** Ascending numbers as ranges: `0, 2, 4-7`; past {@link MAX_RANGES}, `… +N` counts the rest. */
function rangesText(numbers: ReadonlyArray<number>): string {
  const ranges: string[] = [];
  let i = 0;
  while (i < numbers.length && ranges.length < MAX_RANGES) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
    ranges.push(j === i ? String(numbers[i]) : `${String(numbers[i])}-${String(numbers[j])}`);
    i = j + 1;
  }
  return i < numbers.length ? `${ranges.join(', ')}, … +${String(numbers.length - i)}` : ranges.join(', ');
}

/** What to do about the unheld partitions one check saw. */
export type UnheldVerdict =
  /** Every subscribed partition is held. `afterAttempts`: forced rebalances it took (0: none were needed). */
  | { readonly kind: 'held'; readonly afterAttempts: number }
  /**
   * Force a rebalance now. `attempt` 1 for partitions never forced for before (they were just
   * added), higher for a retry after the backoff; `nextRetryMs`: the wait before the next one.
   */
  | { readonly kind: 'force'; readonly attempt: number; readonly nextRetryMs: number }
  /**
   * Leave the group alone: the last forced rebalance is under way or did not help, and the next
   * attempt is `retryInMs` away. `failed` is true on the first check that sees a rebalance done
   * since the last force and the partitions still unheld (to warn once per attempt).
   */
  | { readonly kind: 'wait'; readonly attempt: number; readonly retryInMs: number; readonly failed: boolean };

/** Options of {@link createUnheldGuard}. */
export interface UnheldGuardOptions {
  /** Wait after a forced rebalance before forcing again for the same partitions. */
  readonly retryMs: number;
  /** The wait doubles after each attempt, up to this. */
  readonly maxRetryMs: number;
  /** Monotonic clock in ms. */
  readonly monotonicNow: () => number;
}

/** The guard's decisions, one per check of a Stable group; see {@link createUnheldGuard}. */
export interface UnheldGuard {
  /**
   * Judges one check: `unheld` as {@link unheldPartitions} found them; `rebalances` any count that
   * grows with each rebalance this member took part in (its joins), to tell a rebalance that did
   * not help from one that has not happened yet.
   */
  observe(unheld: ReadonlyArray<TopicPartition>, rebalances: number): UnheldVerdict;
}

/**
 * The rule: partitions no force was made for yet (added since) force a rebalance at once. If
 * partitions are still unheld after that, the next force waits `retryMs`, then twice that after
 * each further attempt, up to `maxRetryMs`. A check that sees every partition held ends the
 * episode and the next unheld partition forces at once again. Memory is the partitions of one
 * episode, so it is bounded by the group's partitions.
 */
export function createUnheldGuard(options: UnheldGuardOptions): UnheldGuard {
  let episode:
    | {
        forcedFor: Set<string>;
        /** Forces for the current partitions (a fresh partition starts over at 1). */
        attempts: number;
        /** Forces of the whole episode. */
        forces: number;
        forcedAtMs: number;
        delayMs: number;
        rebalancesAtForce: number;
        failureSeen: boolean;
      }
    | undefined;

  return {
    observe(unheld, rebalances) {
      if (unheld.length === 0) {
        const afterAttempts = episode?.forces ?? 0;
        episode = undefined;
        return { kind: 'held', afterAttempts };
      }
      const now = options.monotonicNow();
      const keys = unheld.map(keyOfPartition);
      const fresh = episode === undefined || keys.some((k) => !episode!.forcedFor.has(k));
      if (episode !== undefined && !fresh && now - episode.forcedAtMs < episode.delayMs) {
        const failed = !episode.failureSeen && rebalances !== episode.rebalancesAtForce;
        if (failed) episode.failureSeen = true;
        return {
          kind: 'wait',
          attempt: episode.attempts,
          retryInMs: episode.forcedAtMs + episode.delayMs - now,
          failed,
        };
      }
      // New partitions are a new event: forced for at once, and their retries start from retryMs.
      const attempt = fresh ? 1 : episode!.attempts + 1;
      const delayMs = fresh ? options.retryMs : Math.min(options.maxRetryMs, episode!.delayMs * 2);
      const forcedFor = episode?.forcedFor ?? new Set<string>();
      for (const k of keys) forcedFor.add(k);
      episode = {
        forcedFor,
        attempts: attempt,
        forces: (episode?.forces ?? 0) + 1,
        forcedAtMs: now,
        delayMs,
        rebalancesAtForce: rebalances,
        failureSeen: false,
      };
      return { kind: 'force', attempt, nextRetryMs: delayMs };
    },
  };
}
