/**
 * The smallest group that holds the SLA, found by measuring as few group sizes as possible.
 * Sizes are tried upwards from the lower bound; a size whose busiest member would get more than
 * it can process is passed over unmeasured (its latency grows without bound); the first measured
 * size that holds is the answer, since every smaller one either failed or was passed over. Not a
 * bisection: a count-based assignment can hold at N and fail at N + 1 (N + 1 can pair two hot
 * partitions that N kept apart). Pure: the caller measures.
 */

/** Where the search stands. */
export interface SearchInput {
  /** Smallest and largest group size to consider. */
  from: number;
  to: number;
  /** True when `members` members cannot hold any latency bound (skipped unmeasured). */
  overloaded: (members: number) => boolean;
  /** Sizes measured so far: whether p99 ≤ SLA held. */
  holds: ReadonlyMap<number, boolean>;
}

/** What to do next. */
export type SearchStep =
  | { readonly kind: 'measure'; readonly members: number }
  | { readonly kind: 'found'; readonly members: number }
  | { readonly kind: 'none' };

/** The next size to measure, or the answer. */
export function nextSearchStep(input: SearchInput): SearchStep {
  for (let members = input.from; members <= input.to; members++) {
    const held = input.holds.get(members);
    if (held === true) return { kind: 'found', members };
    if (held === false || input.overloaded(members)) continue;
    return { kind: 'measure', members };
  }
  return { kind: 'none' };
}
