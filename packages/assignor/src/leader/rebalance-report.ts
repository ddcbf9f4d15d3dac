import type { RebalanceCause } from '../protocol/rebalance-cause.js';
import type { RebalancePause } from '../protocol/user-data.js';

/** What the sum reads of a member: a decoded subscription or a described member alike. */
export interface PauseReporter {
  readonly instanceId: string;
  readonly lastPause?: RebalancePause | undefined;
}

/** The group's cost of one rebalance, added up from what its members reported. */
export interface GroupPause {
  readonly generation: number;
  readonly cause: RebalanceCause;
  /** Sum over the reporting members of the time each processed nothing (s). */
  readonly pausedMemberSeconds: number;
  /** How many members reported a pause for that generation. */
  readonly members: number;
  /** The longest single pause (s) and whose it was. */
  readonly longestSeconds: number;
  readonly longestInstanceId: string;
}

/**
 * The latest rebalance the members reported a pause for. Each member measures its own pause and
 * sends it with its next JoinGroup (userData version 4), so the leader of generation N reads the
 * cost of an earlier generation: the latest one any member reports. Members that report an older
 * generation (they were not in the latest one) do not count. Undefined when nobody reports.
 */
export function latestGroupPause(members: ReadonlyArray<PauseReporter>): GroupPause | undefined {
  let generation = 0;
  for (const m of members) if (m.lastPause !== undefined) generation = Math.max(generation, m.lastPause.generation);
  if (generation === 0) return undefined;
  let sumMs = 0;
  let count = 0;
  let longestMs = -1;
  let longestInstanceId = '';
  const causes = new Map<RebalanceCause, number>();
  for (const m of members) {
    const p = m.lastPause;
    if (p?.generation !== generation) continue;
    sumMs += p.pauseMs;
    count++;
    causes.set(p.cause, (causes.get(p.cause) ?? 0) + 1);
    if (p.pauseMs > longestMs) {
      longestMs = p.pauseMs;
      longestInstanceId = m.instanceId;
    }
  }
  // Members agree on the leader's cause; one that saw its coordinator move may have refined it.
  const cause = [...causes].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
  return {
    generation,
    cause,
    pausedMemberSeconds: sumMs / 1000,
    members: count,
    longestSeconds: longestMs / 1000,
    longestInstanceId,
  };
}
