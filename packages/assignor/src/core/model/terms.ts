/**
 * True on Kafka's terms: the first `count` weights equal, every bin of equal capacity and base load. Placement
 * is then by count, and Kafka's rule (no partition could move to a subscriber holding two or more fewer)
 * replaces the tolerance. The one definition the levels and the rack passes share. Items are heaviest first,
 * so comparing the first weight with the last suffices.
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
