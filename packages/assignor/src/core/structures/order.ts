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

/** First position in an ascending list whose value is not below `value` (a binary search). */
export function firstNotBelow(list: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Position of `value` in an ascending list of distinct values, or -1. */
export function sortedIndexOf(list: ArrayLike<number>, value: number): number {
  const at = firstNotBelow(list, value);
  return list[at] === value ? at : -1;
}
