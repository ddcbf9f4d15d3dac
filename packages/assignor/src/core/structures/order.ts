import type { TopicPartition } from '../types.js';

/**
 * Explicit orderings used for every tie-break in the core. Plain code-unit comparison, never
 * `localeCompare`, so results do not depend on the machine's locale.
 */

/** Compares two strings by UTF-16 code units. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders partitions by topic, then partition number. */
export function comparePartitions(a: TopicPartition, b: TopicPartition): number {
  return compareStrings(a.topic, b.topic) || a.partition - b.partition;
}

/** True when `numbers[start, end)` strictly ascend. */
export function isAscending(numbers: ArrayLike<number>, start: number, end: number): boolean {
  for (let e = start + 1; e < end; e++) if (!(numbers[e - 1]! < numbers[e]!)) return false;
  return true;
}
