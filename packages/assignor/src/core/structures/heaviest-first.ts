/** Digits of the radix sort: 16 bits, so a 64-bit key takes at most four passes. */
const DIGIT_BITS = 16;
const DIGIT_MASK = (1 << DIGIT_BITS) - 1;

/** Up to this many weights a comparison sort is cheaper (the trigger balances each instance alone). */
const SMALL = 4096;

/** True on little-endian machines, where a double's low word comes first in memory. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Positions `0..n-1` ordered by weight, heaviest first, ties by position: the order every level
 * places in. Weights must be finite and non-negative (resolved weights are).
 *
 * Already ordered weights (equal ones, the usual unweighted case) are detected and cost one
 * pass; a few thousand are sorted by comparison. Otherwise a stable least-significant-digit
 * radix sort runs on the weights' bit patterns, which order like the numbers themselves for
 * non-negative doubles: counting passes instead of a comparison sort calling back into
 * JavaScript 1.7 million times for 100k partitions.
 *
 * Only the high 32 bits (sign, exponent, top 20 bits of the mantissa) are sorted at first: two
 * passes instead of four. Weights that share their high word are then ordered by comparison
 * within their run; measured weights rarely agree on 20 bits of mantissa, and integer ones that
 * do are equal. If many do (weights packed into a band narrower than a millionth), the full
 * four-pass sort runs instead, so no input degrades to a large comparison sort.
 */
export function orderHeaviestFirst(weight: Float64Array): Int32Array {
  const n = weight.length;
  const order = new Int32Array(n);
  let sorted = true;
  for (let c = 0; c < n; c++) {
    order[c] = c;
    if (c > 0 && weight[c - 1]! < weight[c]!) sorted = false;
  }
  if (sorted) return order;
  // Below this the radix sort's passes over its 64k counters cost more than comparing.
  if (n <= SMALL) return order.sort((a, b) => weight[b]! - weight[a]! || a - b);

  // The weights' memory read as words (a Float64Array view is always 8-byte aligned).
  const words = new Uint32Array(weight.buffer, weight.byteOffset, 2 * n);
  const byHigh = radixPasses(order, [complementedWords(words, n, HIGH_AT)]);
  if (settleHighWordTies(byHigh, words, weight)) return byHigh;
  return radixPasses(order, [complementedWords(words, n, LOW_AT), complementedWords(words, n, HIGH_AT)]);
}

/** Position of a double's high and low word within its two (little- or big-endian). */
const HIGH_AT = LITTLE_ENDIAN ? 1 : 0;
const LOW_AT = 1 - HIGH_AT;

/**
 * Word `at` of every weight, bits complemented: ascending order of these is descending order of
 * the weights, and a stable sort keeps equal ones in position order.
 */
function complementedWords(words: Uint32Array, n: number, at: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let c = 0; c < n; c++) out[c] = ~words[2 * c + at]! >>> 0;
  return out;
}

/**
 * Stable LSD radix sort of `initial` (a permutation, left untouched) by the 32-bit keys in
 * `keys`, least significant key first, 16 bits per pass. A pass whose digit is the same for
 * every key (the low bits of integer weights) is skipped.
 */
function radixPasses(initial: Int32Array, keys: ReadonlyArray<Uint32Array>): Int32Array {
  const n = initial.length;
  let order = Int32Array.from(initial);
  let nextOrder = new Int32Array(n);
  // Each key array travels with the order, so every pass reads its keys sequentially.
  let current = keys.map((k) => Uint32Array.from(k));
  let next = keys.map(() => new Uint32Array(n));
  const count = new Int32Array(DIGIT_MASK + 2);
  for (let pass = 0; pass < 2 * keys.length; pass++) {
    const key = current[pass >> 1]!;
    const shift = (pass % 2) * DIGIT_BITS;
    count.fill(0);
    for (let k = 0; k < n; k++) {
      const d = (key[k]! >>> shift) & DIGIT_MASK;
      count[d + 1] = count[d + 1]! + 1;
    }
    if (count[((key[0]! >>> shift) & DIGIT_MASK) + 1] === n) continue; // one digit for all: nothing to do
    for (let d = 1; d <= DIGIT_MASK + 1; d++) count[d] = count[d]! + count[d - 1]!;
    scatter(order, nextOrder, current, next, key, shift, count);
    [order, nextOrder] = [nextOrder, order];
    [current, next] = [next, current];
  }
  return order;
}

/** One counting pass: moves every entry (and its one or two keys) to its digit's next free position. */
function scatter(
  order: Int32Array,
  nextOrder: Int32Array,
  current: ReadonlyArray<Uint32Array>,
  next: ReadonlyArray<Uint32Array>,
  key: Uint32Array,
  shift: number,
  count: Int32Array,
): void {
  for (let k = 0; k < order.length; k++) {
    const d = (key[k]! >>> shift) & DIGIT_MASK;
    const to = count[d]!;
    count[d] = to + 1;
    nextOrder[to] = order[k]!;
    next[0]![to] = current[0]![k]!;
    if (current.length === 2) next[1]![to] = current[1]![k]!;
  }
}

/**
 * Orders, by comparison, each run of `order` whose weights share their high word but not their
 * low one. Returns false, leaving `order` partly sorted, when such runs hold more than a
 * sixteenth of the weights: a full radix sort is cheaper then.
 */
function settleHighWordTies(order: Int32Array, words: Uint32Array, weight: Float64Array): boolean {
  const n = order.length;
  let unsettled = 0;
  for (let start = 0; start < n;) {
    const high = words[2 * order[start]! + HIGH_AT]!;
    const low = words[2 * order[start]! + LOW_AT]!;
    let end = start + 1;
    let lowsDiffer = false;
    while (end < n && words[2 * order[end]! + HIGH_AT] === high) {
      if (words[2 * order[end]! + LOW_AT] !== low) lowsDiffer = true;
      end++;
      if (lowsDiffer && unsettled + end - start > n >> 4) return false;
    }
    if (lowsDiffer) {
      // The loop above already returned if this run took the total past the limit.
      unsettled += end - start;
      order.subarray(start, end).sort((a, b) => weight[b]! - weight[a]! || a - b);
    }
    start = end;
  }
  return true;
}
