import type { ObservedGroup } from '@load-aware/trigger/internal';
import type { GroupSnapshot } from '@load-aware/cli/internal';

/** A member of a fake observed group: instance from userData unless `loadAware` is false. */
export interface FakeMember {
  readonly memberId: string;
  readonly instanceId?: string;
  readonly capacity?: number;
  readonly held: ReadonlyArray<number>;
  readonly loadAware?: boolean;
  readonly host?: string;
}

/** A Stable group on topic `t` whose members hold the given partitions of it. */
export function fakeGroup(members: ReadonlyArray<FakeMember>, state = 'Stable'): ObservedGroup {
  return {
    groupId: 'g',
    state,
    protocol: 'LoadAwareAssigner',
    members: members.map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId ?? `member:${m.memberId}`,
      topics: ['t'],
      assigned: m.held.map((partition) => ({ topic: 't', partition })),
      capacity: m.capacity,
    })),
    loadAwareMemberIds: members.filter((m) => m.loadAware !== false).map((m) => m.memberId),
  };
}

/** A snapshot of `fakeGroup(members)` over partitions 0..weights.length-1 of `t`, weighed as given. */
export function fakeSnapshot(
  members: ReadonlyArray<FakeMember>,
  weights: ReadonlyArray<number | undefined>,
  lags: ReadonlyArray<[number, number]> = [],
): GroupSnapshot {
  return {
    group: fakeGroup(members),
    clients: new Map(
      members.map((m) => [m.memberId, { clientId: `client-${m.memberId}`, clientHost: m.host ?? '/10.0.0.1' }]),
    ),
    partitions: weights.map((_, partition) => ({ topic: 't', partition })),
    weights: weights.flatMap((weight, partition) => (weight === undefined ? [] : [{ topic: 't', partition, weight }])),
    lags: new Map(lags.map(([partition, lag]) => [`t\u0000${String(partition)}`, lag])),
  };
}
