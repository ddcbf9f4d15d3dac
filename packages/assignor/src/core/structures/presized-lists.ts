/** Longest list allocated at its final size (V8 preallocates fast arrays up to ~100k). */
const PRESIZED_LIST_LIMIT = 32_768;

/**
 * One empty list per entry of `sizes`, each allocated at that size, to be filled by index in
 * order. Lists filled by `push` grow through copies, and at 100k partitions in 1,000 lists those
 * copies were most of the garbage surviving a `balance()` call. A list longer than V8's limit for
 * a preallocated fast array starts empty instead: writing at its length appends, so the caller's
 * writes are the same either way.
 */
export function presizedLists<T>(sizes: Int32Array): T[][] {
  return Array.from(sizes, (size): T[] => (size <= PRESIZED_LIST_LIMIT ? new Array<T>(size) : []));
}
