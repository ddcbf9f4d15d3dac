import type { ObservedGroup } from './observe.js';

/**
 * Picks the group's trigger coordinator: the smallest member id (by UTF-16 code units, the same
 * order everywhere) among the members of a Stable group that send load-aware userData.
 *
 * Every member runs the same rule on the same DescribeGroups answer, so all agree without any
 * extra infrastructure; member ids survive rebalances, so the role stays put while its member
 * lives. When that member's process dies the broker evicts it after the session timeout, the
 * group rebalances, and the next-smallest id takes over at its first check of the Stable group.
 * Returns undefined when the group is not Stable (its member list is not final then).
 */
export function electCoordinator(group: ObservedGroup): string | undefined {
  if (group.state !== 'Stable') return undefined;
  let smallest: string | undefined;
  for (const id of group.loadAwareMemberIds) {
    if (smallest === undefined || id < smallest) smallest = id;
  }
  return smallest;
}
