/**
 * A proactive fire made inside a member's process, as the trigger makes it: a new epoch in the
 * assigner's userData (so the broker rebalances whoever leads) and a rejoin of this process's
 * consumers of the group. One function per {@link FireMode}, so a new way of firing (issue 25,
 * item 3: after a heartbeat round, keep processing until the others noticed, ...) is one case
 * here and one name in protocol.ts.
 */
import type { LoadAwarePartitionAssigner } from '@load-aware/assignor';
import { assignerInternals } from '@load-aware/assignor/internal';
import type { FireMode } from './protocol.js';

/** What a fire did: the new epoch and how many consumers were asked to rejoin. */
export interface FireResult {
  epoch: number;
  asked: number;
}

/** One way of firing: what it does to the assigner and group, resolved once the fire is made. */
type Fire = (assigner: LoadAwarePartitionAssigner, groupId: string) => Promise<FireResult>;

const FIRES: Readonly<Record<FireMode, Fire>> = {
  immediate: (assigner, groupId) => {
    const internals = assignerInternals(assigner);
    const epoch = internals.bumpEpoch(groupId);
    const asked = internals.requestRejoin(groupId);
    return Promise.resolve({ epoch, asked });
  },
  // What the trigger does now: the JoinGroup goes out on a side connection and the member keeps
  // processing until its own heartbeat learns of the rebalance, like every other member.
  background: (assigner, groupId) => {
    const internals = assignerInternals(assigner);
    const epoch = internals.bumpEpoch(groupId);
    const asked = internals.startRebalance(groupId);
    return Promise.resolve({ epoch, asked });
  },
};

/** Fires a rebalance of `groupId` from this process, the way `mode` says. */
export function fire(assigner: LoadAwarePartitionAssigner, groupId: string, mode: FireMode): Promise<FireResult> {
  return FIRES[mode](assigner, groupId);
}
