/**
 * True on Kafka's terms: the first `count` weights all equal, and every bin of equal capacity
 * carrying the same base load. Placement then reduces to counts, and Kafka's balance rule (no
 * partition could move to a subscriber holding two or more fewer) replaces the tolerance. The
 * one definition the levels (on a `Problem`) and the rack passes (on the model's weighted
 * partitions) both judge by. Both order items heaviest first, so equal weights means the first
 * equals the last.
 */
export function equalTerms(
  weight: ArrayLike<number>,
  count: number,
  capacity: ArrayLike<number>,
  baseLoad: ArrayLike<number>,
): boolean {
  if (count > 0 && weight[0] !== weight[count - 1]) return false;
  for (let b = 1; b < capacity.length; b++) {
    if (capacity[b] !== capacity[0] || baseLoad[b] !== baseLoad[0]) return false;
  }
  return true;
}
