/** Longest list allocated at its final size (V8 preallocates fast arrays up to ~100k). */
const PRESIZED_LIST_LIMIT = 32_768;

/**
 * One empty list per entry of `sizes`, allocated at that size, to fill by index in order: lists grown by
 * `push` copy, and those copies were most of the garbage a large `balance()` left. A list past V8's
 * preallocation limit starts empty; writing at its length appends, so callers write the same either way.
 */
export function presizedLists<T>(sizes: Int32Array): T[][] {
  return Array.from(sizes, (size): T[] => (size <= PRESIZED_LIST_LIMIT ? new Array<T>(size) : []));
}
