import type { TopicPartition } from '../core/types.js';
import { WeightsFailedError, WeightsTimeoutError } from '../errors/errors.js';
import { withTimeout } from '../base/timeout.js';
import { errorMessageOf } from '../errors/error-fields.js';

/** One partition's weight as a source reports it. */
export interface PartitionWeight extends TopicPartition {
  readonly weight: number;
}

/**
 * Where weights come from. A source returns entries only for the partitions it knows; the
 * assignor gives the rest the default weight and counts them as defaulted.
 */
export interface WeightSource {
  /**
   * Resolves to the weights of the partitions asked for, in any order; partitions it does not
   * know may be left out. Called by the group leader at every assignment, inside
   * `weightsTimeoutMs`.
   */
  getWeights(partitions: ReadonlyArray<TopicPartition>): Promise<ReadonlyArray<PartitionWeight>>;
}

/** True for anything usable as a {@link WeightSource}. */
export function isWeightSource(value: unknown): value is WeightSource {
  return typeof value === 'object' && value !== null && typeof (value as WeightSource).getWeights === 'function';
}

/**
 * The default source: every partition weighs the same, so the assignor balances partition
 * counts per instance (still better than KafkaJS's round-robin, which ignores instances).
 */
export function createUniformWeightSource(weight = 1): WeightSource {
  return {
    getWeights: (partitions) =>
      Promise.resolve(partitions.map((p) => ({ topic: p.topic, partition: p.partition, weight }))),
  };
}

/**
 * Asks a source for weights within a time budget. Rejects with {@link WeightsTimeoutError} when
 * the budget runs out and with {@link WeightsFailedError} when the source throws or answers with
 * something that is not a list; individual malformed entries are dropped (those partitions are
 * simply defaulted) so one bad entry never costs the whole group its weights.
 */
export async function fetchWeights(
  source: WeightSource,
  partitions: ReadonlyArray<TopicPartition>,
  timeoutMs: number,
): Promise<PartitionWeight[]> {
  const answer = await withTimeout(callSource(source, partitions), timeoutMs, () => new WeightsTimeoutError(timeoutMs));
  if (!Array.isArray(answer)) throw new WeightsFailedError(`expected an array of weights, got ${describe(answer)}`);
  return answer.filter(isWeightEntry);
}

async function callSource(source: WeightSource, partitions: ReadonlyArray<TopicPartition>): Promise<unknown> {
  try {
    // Called inside try so that a source throwing synchronously is handled like a rejection.
    // The source gets its own copy: one that drains or extends the list it is given (a common
    // batching idiom) must not change which partitions are assigned.
    return await source.getWeights(partitions.map((p) => ({ topic: p.topic, partition: p.partition })));
  } catch (err) {
    throw new WeightsFailedError(errorMessageOf(err), { cause: err });
  }
}

function isWeightEntry(entry: unknown): entry is PartitionWeight {
  if (typeof entry !== 'object' || entry === null) return false;
  const e = entry as Record<string, unknown>;
  return typeof e['topic'] === 'string' && Number.isInteger(e['partition']) && typeof e['weight'] === 'number';
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
