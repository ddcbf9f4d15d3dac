import type { TopicPartition } from '@load-aware/assignor';
import { partitionKey } from '@load-aware/assignor/internal';
import { PartitionHistory, type RateWindow } from './partition-history.js';

/**
 * Failures in a row (in samples where other partitions succeeded) after which a partition stops
 * being sampled: its topic was most likely deleted or shrunk, and a dead partition must not cost
 * a request slot forever. Asking for it again in `getWeights()` tracks it afresh.
 */
export const MAX_CONSECUTIVE_FAILURES = 3;

interface Tracked extends TopicPartition {
  readonly history: PartitionHistory;
  failures: number;
  /** The rate read from the time index, until the first sampled weight replaces it. */
  instant: InstantWeight | undefined;
  /** When the last time-index lookup of the partition started. */
  lookedUpAtMs: number | undefined;
  /** When `getWeights()` or `track()` last asked for the partition. */
  askedAtMs: number;
}

/** A rate read from the time index at `atMs`; `idle`: no record in the window. */
export interface InstantWeight {
  readonly weight: number;
  readonly idle: boolean;
  readonly atMs: number;
}

/** A partition whose first sampled weight replaced its instant one, for the cross-check. */
export interface ReplacedInstant extends TopicPartition {
  readonly instant: InstantWeight;
  readonly sampled: number;
}

/** What applying one sample changed. */
export interface SampleReport {
  /** Partitions whose end offset was read. */
  readonly succeeded: number;
  /** Partitions that failed, with their errors (in tracking order). */
  readonly failed: ReadonlyArray<TopicPartition & { readonly error: unknown }>;
  /** Partitions whose end offset went backwards: their history started over. */
  readonly reset: ReadonlyArray<TopicPartition>;
  /** Partitions no longer tracked after {@link MAX_CONSECUTIVE_FAILURES} isolated failures. */
  readonly untracked: ReadonlyArray<TopicPartition>;
  /** Partitions whose first sampled weight replaced their instant one in this sample. */
  readonly replaced: ReadonlyArray<ReplacedInstant>;
}

/** One partition's result in a sample: its end offset, or why it could not be read. */
export type PartitionOutcome = { readonly offset: bigint } | { readonly error: unknown };

/**
 * The partitions being sampled and their histories. Pure bookkeeping: the sampler feeds it
 * results with a timestamp, `getWeights()` reads weights from it.
 */
export class PartitionTracker {
  // By topic, then partition number, rather than one string key per partition: a first
  // getWeights() tracks, claims, stores and reads 10,000 partitions inside its time box, and
  // building and hashing a key for each, several times over, was a large part of that work.
  private readonly byTopic = new Map<string, Map<number, Tracked>>();
  /** Every tracked entry, in the order tracking started. */
  private readonly order = new Set<Tracked>();
  private weightsGiven = 0;

  constructor(private readonly window: RateWindow) {}

  /**
   * Grows whenever a partition may have gained a weight (an instant rate stored, a sample
   * applied): a caller that reads it before and after waiting knows whether asking again can
   * give anything new.
   */
  get revision(): number {
    return this.weightsGiven;
  }

  /**
   * Notes that the partitions were asked for at `nowMs` and starts tracking those not tracked yet;
   * returns those.
   */
  track(partitions: ReadonlyArray<TopicPartition>, nowMs: number): TopicPartition[] {
    const added: TopicPartition[] = [];
    let topicName: string | undefined;
    let ofTopic: Map<number, Tracked> | undefined;
    for (const { topic, partition } of partitions) {
      // Callers list partitions topic by topic: one topic lookup per run of them.
      if (topic !== topicName || ofTopic === undefined) {
        topicName = topic;
        ofTopic = this.byTopic.get(topic);
        if (ofTopic === undefined) this.byTopic.set(topic, (ofTopic = new Map<number, Tracked>()));
      }
      const known = ofTopic.get(partition);
      if (known !== undefined) {
        known.askedAtMs = nowMs;
        continue;
      }
      const entry: Tracked = {
        topic,
        partition,
        history: new PartitionHistory(this.window),
        failures: 0,
        instant: undefined,
        lookedUpAtMs: undefined,
        askedAtMs: nowMs,
      };
      ofTopic.set(partition, entry);
      this.order.add(entry);
      added.push({ topic, partition });
    }
    return added;
  }

  /**
   * Stops tracking the partitions nothing asked for in more than `idleMs` before `nowMs`; returns
   * those. A partition no group asks about any more would otherwise be sampled, and its history
   * kept, until the source stops.
   */
  untrackIdle(nowMs: number, idleMs: number): TopicPartition[] {
    const removed: TopicPartition[] = [];
    for (const entry of this.order) {
      if (nowMs - entry.askedAtMs <= idleMs) continue;
      this.remove(entry);
      removed.push({ topic: entry.topic, partition: entry.partition });
    }
    return removed;
  }

  /** Every tracked partition, in the order tracking started. */
  tracked(): TopicPartition[] {
    return [...this.order].map(({ topic, partition }) => ({ topic, partition }));
  }

  /** How many partitions are tracked. */
  get size(): number {
    return this.order.size;
  }

  /** Forgets every partition and its history. */
  clear(): void {
    this.byTopic.clear();
    this.order.clear();
  }

  /**
   * Applies one sample taken at `atMs` of `requested` partitions; a requested partition absent
   * from `outcomes` counts as failed. Failures count towards untracking only when some other
   * partition of the same sample succeeded: when everything fails (broker down, network gone)
   * the cause is not the partition, and untracking everything would throw away all history
   * right when it is needed to recover.
   */
  apply(
    atMs: number,
    requested: ReadonlyArray<TopicPartition>,
    outcomes: ReadonlyMap<string, PartitionOutcome>,
  ): SampleReport {
    let succeeded = 0;
    const failed: Array<TopicPartition & { error: unknown }> = [];
    const reset: TopicPartition[] = [];
    const replaced: ReplacedInstant[] = [];
    const failedTracked: Tracked[] = [];
    for (const { topic, partition } of requested) {
      const entry = this.entry(topic, partition);
      // Untracked while the sample was in flight: its result has nowhere to go.
      if (entry === undefined) continue;
      const outcome = outcomes.get(partitionKey(topic, partition));
      if (outcome !== undefined && 'offset' in outcome) {
        succeeded++;
        entry.failures = 0;
        if (entry.history.record(atMs, outcome.offset) === 'reset') reset.push({ topic, partition });
        const sampled = entry.history.weight();
        if (entry.instant !== undefined && sampled !== undefined) {
          replaced.push({ topic, partition, instant: entry.instant, sampled });
          entry.instant = undefined;
        }
      } else {
        failed.push({ topic, partition, error: outcome === undefined ? undefined : outcome.error });
        failedTracked.push(entry);
      }
    }
    const untracked: TopicPartition[] = [];
    if (succeeded > 0) {
      this.weightsGiven++;
      for (const entry of failedTracked) {
        entry.failures++;
        if (entry.failures >= MAX_CONSECUTIVE_FAILURES) {
          this.remove(entry);
          untracked.push({ topic: entry.topic, partition: entry.partition });
        }
      }
    }
    return { succeeded, failed, reset, untracked, replaced };
  }

  /**
   * Claims a time-index lookup of a tracked partition: true (and noted) unless one started less
   * than `cooldownMs` ago, so repeated rebalances cost one lookup per partition per interval.
   */
  claimLookup(topic: string, partition: number, nowMs: number, cooldownMs: number): boolean {
    const entry = this.entry(topic, partition);
    if (entry === undefined) return false;
    if (entry.lookedUpAtMs !== undefined && nowMs - entry.lookedUpAtMs < cooldownMs) return false;
    entry.lookedUpAtMs = nowMs;
    return true;
  }

  /**
   * Keeps a partition's instant rate (read at `instant.atMs`) until a sampled weight replaces it;
   * false when the partition is not tracked any more or has a current sampled weight.
   */
  setInstant(topic: string, partition: number, instant: InstantWeight): boolean {
    const entry = this.entry(topic, partition);
    if (entry === undefined || this.sampledWeight(entry, instant.atMs) !== undefined) return false;
    entry.instant = instant;
    this.weightsGiven++;
    return true;
  }

  /**
   * The partition's weight at `nowMs` in events/s: its sampled weight, else its instant rate.
   * Undefined when it is not tracked, or has neither a sampled weight (two samples in its
   * window, the newest no older than a rate interval: a stale rate is not a measurement any
   * more) nor an instant rate read within the last rate interval.
   */
  weightOf(topic: string, partition: number, nowMs: number): number | undefined {
    const entry = this.entry(topic, partition);
    if (entry === undefined) return undefined;
    const sampled = this.sampledWeight(entry, nowMs);
    if (sampled !== undefined) return sampled;
    const { instant } = entry;
    return instant === undefined || nowMs - instant.atMs > this.window.rateIntervalMs ? undefined : instant.weight;
  }

  private entry(topic: string, partition: number): Tracked | undefined {
    return this.byTopic.get(topic)?.get(partition);
  }

  private remove(entry: Tracked): void {
    const ofTopic = this.byTopic.get(entry.topic);
    ofTopic?.delete(entry.partition);
    if (ofTopic?.size === 0) this.byTopic.delete(entry.topic);
    this.order.delete(entry);
  }

  /** The sampled weight, unless the newest sample is older than a rate interval. */
  private sampledWeight(entry: Tracked, nowMs: number): number | undefined {
    const newest = entry.history.newestAtMs();
    return newest === undefined || nowMs - newest > this.window.rateIntervalMs ? undefined : entry.history.weight();
  }
}
