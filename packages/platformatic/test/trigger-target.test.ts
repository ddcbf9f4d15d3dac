import type { Group } from '@platformatic/kafka';
import { ConfigError, decodeUserData, encodeUserData, isLoadAwareError } from '@load-aware/assignor/portable';
import { LoadAwareAssigner, type LoadAwareGroupOptions } from '@load-aware/platformatic';
import { errorThrownBy } from '@load-aware/test-support';
import { FakeConsumer, staticWeights, topicsMetadata } from './fakes';

const metadata = topicsMetadata({ orders: 4 });

/** An Admin that answers DescribeGroups with the groups it was given. */
function describer(groups: Group[]) {
  const calls: string[][] = [];
  return {
    calls,
    describeGroups: ({ groups: ids }: { groups: string[] }) => {
      calls.push(ids);
      return Promise.resolve(new Map(groups.filter((g) => ids.includes(g.id)).map((g) => [g.id, g])));
    },
  };
}

function member(
  id: string,
  userData: Buffer | undefined,
  assigned: number[],
): Group['members'] extends Map<string, infer M> ? M : never {
  return {
    id,
    groupInstanceId: null,
    clientId: id,
    clientHost: '/127.0.0.1',
    ...(userData === undefined
      ? {}
      : {
          metadata: { version: 0, topics: ['orders'], metadata: userData },
          assignments: new Map([['orders', { topic: 'orders', partitions: assigned }]]),
        }),
  };
}

const stable = (members: ReturnType<typeof member>[]): Group => ({
  id: 'orders-group',
  state: 'Stable',
  protocolType: 'consumer',
  protocol: 'LoadAwareAssigner',
  members: new Map(members.map((m) => [m.id, m])),
  authorizedOperations: 0,
});

function attached(options: Parameters<typeof LoadAwareAssigner>[0] = {}) {
  const assigner = LoadAwareAssigner({ instanceId: 'pod-a', weights: staticWeights({}), ...options });
  const groupOptions = assigner.groupOptions();
  const consumer = assigner.attach(new FakeConsumer('orders-group', groupOptions));
  return { assigner, groupOptions, consumer };
}

async function epochInRecord(options: LoadAwareGroupOptions): Promise<number> {
  const bytes = await options.protocolsMetadata(options.protocols, ['orders'], metadata as never, () => undefined);
  const decoded = decodeUserData(bytes);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value.epoch;
}

describe('assigner.triggerTarget(consumer, admin)', () => {
  it("describes the consumer's group through the admin, decoding members by the leader's rule", async () => {
    const { assigner, consumer } = attached();
    const record = encodeUserData({ instanceId: 'pod-b', capacity: 2, epoch: 0 });
    const admin = describer([
      stable([member('m1', record, [0, 1]), member('m2', Buffer.from('other'), [2]), member('m3', undefined, [])]),
    ]);
    const group = await assigner.triggerTarget(consumer, admin).describeGroup();
    expect(admin.calls).toEqual([['orders-group']]);
    expect(group).toMatchObject({ groupId: 'orders-group', state: 'Stable', protocol: 'LoadAwareAssigner' });
    expect(group.members[0]).toMatchObject({
      memberId: 'm1',
      instanceId: 'pod-b',
      capacity: 2,
      topics: ['orders'],
      assigned: [0, 1].map((partition) => ({ topic: 'orders', partition })),
    });
    // Another assigner's userData, or none: an instance of its own and no coordinator candidate.
    expect(group.members[1]).toMatchObject({ memberId: 'm2', instanceId: 'member:m2' });
    expect(group.members[2]).toMatchObject({ memberId: 'm3', instanceId: 'member:m3', topics: [], assigned: [] });
    expect(group.loadAwareMemberIds).toEqual(['m1']);
  });

  it("rejects with the trigger's group-not-described code when the admin does not return the group", async () => {
    const { assigner, consumer } = attached();
    const err = await assigner
      .triggerTarget(consumer, describer([]))
      .describeGroup()
      .catch((e: unknown) => e);
    expect(isLoadAwareError(err, 'LOAD_AWARE_TRIGGER_GROUP_NOT_DESCRIBED')).toBe(true);
  });

  it("follows the consumer's joins, heartbeats, leave and close, and stops following when asked", () => {
    const { assigner, consumer } = attached();
    const events: unknown[] = [];
    const stop = assigner.triggerTarget(consumer, describer([])).onMembership((e) => events.push(e));
    consumer.leader = true;
    consumer.joined('m1', 3, [0]);
    consumer.heartbeat();
    consumer.emit('consumer:group:leave', { groupId: 'orders-group', memberId: 'm1' });
    consumer.emit('client:close');
    stop();
    consumer.joined('m1', 4, [0]);
    expect(events).toEqual([
      { kind: 'join', groupId: 'orders-group', memberId: 'm1', isLeader: true },
      { kind: 'heartbeat', groupId: 'orders-group', memberId: 'm1' },
      { kind: 'leave', reason: 'consumer left the group' },
      { kind: 'leave', reason: 'consumer closed' },
    ]);
  });

  it("judges with the assigner's own settings and rebalances by a new epoch and platformatic's joinGroup()", async () => {
    const weights = staticWeights({ 'orders:0': 5 });
    const { assigner, groupOptions, consumer } = attached({
      weights,
      defaultWeight: 3,
      moveTolerance: 0.2,
      maxMovesPerRebalance: 4,
    });
    const target = assigner.triggerTarget(consumer, describer([]));
    expect(target.assigner).toMatchObject({ weights, defaultWeight: 3, moveTolerance: 0.2, maxMovesPerRebalance: 4 });
    // Not joined yet: no consumer to rejoin.
    expect(target.assigner.startRebalance('orders-group')).toBe(0);
    consumer.joined('m1', 1, [0, 1]);
    expect(target.assigner.bumpEpoch('orders-group')).toBe(1);
    expect(await epochInRecord(groupOptions)).toBe(1);
    expect(target.assigner.startRebalance('orders-group')).toBe(1);
    expect(consumer.joins).toBe(1);
    // Another group's epoch is its own.
    expect(assigner.epochOf('other-group')).toBe(0);
  });

  it('refuses a consumer that is not attached to this assigner', () => {
    const { assigner } = attached();
    const stranger = new FakeConsumer('orders-group', assigner.groupOptions());
    expect(errorThrownBy(() => assigner.triggerTarget(stranger, describer([])), ConfigError).code).toBe(
      'LOAD_AWARE_CONFIG',
    );
  });
});
