import type { TopicPartition } from '../types.js';

/** Orderings for every tie-break in the core: code units, never `localeCompare`, so the locale cannot matter. */

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
