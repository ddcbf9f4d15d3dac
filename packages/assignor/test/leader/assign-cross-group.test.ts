import { assignerInternals } from '@load-aware/assignor/internal';
import { AssignerProtocol, type GroupDescription } from 'kafkajs';
import { Registry } from 'prom-client';
import { LoadAwareAssigner, type WeightSource } from '@load-aware/assignor/internal';
import { decodeAssignments, fakeCluster, member, recordingLogger } from '@load-aware/test-support';

/**
 * Cross-group balancing through the KafkaJS adapter: the leader of `orders` reads its sibling
 * `payments` with DescribeGroups (a fake coordinator here; the real-broker scenario is in
 * test/cross-group.int.test.ts) and balances on top of what the sibling's members hold.
 */

/** Every partition of either topic weighs 100. */
const weights: WeightSource = {
  getWeights: (partitions) => Promise.resolve(partitions.map((p) => ({ ...p, weight: 100 }))),
};

const orders = [member('a1', ['orders'], 'A'), member('b1', ['orders'], 'B'), member('c1', ['orders'], 'C')];

/** A Stable `payments` in which instance A's member holds partitions 0–2 (300) and the others none. */
function paymentsDescription(state: GroupDescription['state'] = 'Stable'): GroupDescription {
  const describedMember = (memberId: string, instanceId: string, partitions: number[]) => {
    const { memberMetadata } = member(memberId, ['payments'], instanceId);
    return {
      memberId,
      clientId: 'c',
      clientHost: '/127.0.0.1',
      memberMetadata,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: 0,
        assignment: { payments: partitions },
        userData: Buffer.alloc(0),
      }),
    };
  };
  return {
    groupId: 'payments',
    state,
    protocol: 'LoadAwareAssigner',
    protocolType: 'consumer',
    members: [describedMember('pa', 'A', [0, 1, 2]), describedMember('pb', 'B', []), describedMember('pc', 'C', [])],
  };
}

/** A fake cluster whose coordinator answers DescribeGroups with `answer(groupId)`. */
function clusterAnswering(answer: (groupId: string) => Promise<GroupDescription>) {
  return Object.assign(fakeCluster({ orders: 6, payments: 3 }), {
    findGroupCoordinator: () =>
      Promise.resolve({
        describeGroups: async ({ groupIds }: { groupIds: string[] }) => ({
          groups: await Promise.all(groupIds.map(answer)),
        }),
      }),
  });
}

function leaderOf(answer: (groupId: string) => Promise<GroupDescription>, options: { weightsTimeoutMs?: number } = {}) {
  const logger = recordingLogger();
  const registry = new Registry();
  const assigner = LoadAwareAssigner({
    weights,
    logger,
    registry,
    crossGroup: { groups: ['orders', 'payments'] },
    ...options,
  });
  const consumer = assigner({
    cluster: clusterAnswering(answer),
    groupId: 'orders',
    logger: undefined as never,
  });
  const assign = async () => decodeAssignments(await consumer.assign({ members: orders, topics: ['orders'] }));
  return { assign, logger, registry };
}

/** Every partition of `orders` exactly once. */
function expectComplete(assignment: Map<string, string[]>): void {
  const all = [...assignment.values()].flat().sort();
  expect(all).toEqual(['orders:0', 'orders:1', 'orders:2', 'orders:3', 'orders:4', 'orders:5']);
}

describe('LoadAwareAssigner with crossGroup', () => {
  it("puts the group's load where the sibling left room, and explains the combined load", async () => {
    const { assign, logger, registry } = leaderOf(() => Promise.resolve(paymentsDescription()));
    const assignment = await assign();
    // A carries 300 from payments: (600 + 300) / 3 = 300, so A takes nothing and B, C 300 each.
    expect(assignment.get('a1')).toEqual([]);
    expect(assignment.get('b1')).toHaveLength(3);
    expect(assignment.get('c1')).toHaveLength(3);
    const info = logger.messages('info');
    expect(info).toContain('instance A: base 300 + group 0 (0.0%) = combined 300, 0 partitions, 1 member');
    expect(info).toContain('combined skew: max combined load 300 vs ideal 300 (1.00x)');
    const text = await registry.metrics();
    expect(text).toContain('load_aware_combined_load_ratio{group="orders"} 1');
    expect(text).toContain('load_aware_sibling_group_reads_total{group="orders",sibling="payments",status="stable"} 1');
  });

  it('lets the last Stable reading stand in while the sibling rebalances', async () => {
    let state: GroupDescription['state'] = 'Stable';
    const { assign, logger, registry } = leaderOf(() => Promise.resolve(paymentsDescription(state)));
    const first = await assign();
    state = 'PreparingRebalance';
    const second = await assign();
    expect(second).toEqual(first);
    expect(
      logger
        .messages('info')
        .some((m) =>
          /group payments the group is PreparingRebalance; its Stable reading from \d+ s ago counts/.test(m),
        ),
    ).toBe(true);
    expect(await registry.metrics()).toContain('status="stale"} 1');
  });

  it.each([
    ['unreadable (ACL)', () => Promise.reject(new Error('Not authorized to access group: Group authorization failed'))],
    ['rebalancing, never read Stable', () => Promise.resolve(paymentsDescription('CompletingRebalance'))],
    ['silent', () => new Promise<GroupDescription>(() => undefined)],
  ])('balances without a sibling that is %s, with a WARN, never failing', async (_what, answer) => {
    const { assign, logger, registry } = leaderOf(answer, { weightsTimeoutMs: 200 });
    const assignment = await assign();
    expectComplete(assignment);
    // Without the sibling's load the group is balanced on its own: two partitions each.
    expect([...assignment.values()].map((ps) => ps.length)).toEqual([2, 2, 2]);
    const warn = logger.records.filter((r) => r.level === 'warn');
    expect(warn.map((r) => r.message)).toEqual([
      expect.stringMatching(
        /^cross-group: group payments .* and has no recent Stable reading; balancing without its load$/,
      ),
    ]);
    expect(warn[0]!.fields).toMatchObject({ siblingGroupId: 'payments', status: 'left_out' });
    expect(await registry.metrics()).toContain('status="left_out"} 1');
  });

  it('reads a deleted (Dead) or Empty sibling as carrying nothing, without a warning', async () => {
    for (const state of ['Dead', 'Empty'] as const) {
      const { assign, logger } = leaderOf(() => Promise.resolve({ ...paymentsDescription(state), members: [] }));
      const assignment = await assign();
      expect([...assignment.values()].map((ps) => ps.length)).toEqual([2, 2, 2]);
      expect(logger.records.filter((r) => r.level === 'warn')).toEqual([]);
    }
  });

  it('skips its own group in the list and reads only the others', async () => {
    const asked: string[] = [];
    const { assign } = leaderOf((groupId) => {
      asked.push(groupId);
      return Promise.resolve(paymentsDescription());
    });
    await assign();
    expect(asked).toEqual(['payments']);
  });

  it('exposes the settings and reads siblings for the trigger through the same consumer', async () => {
    const assigner = LoadAwareAssigner({ weights, crossGroup: { groups: ['payments', 'orders'], turnMs: 30_000 } });
    expect(assignerInternals(assigner).crossGroup).toEqual({
      groups: ['orders', 'payments'],
      maxStaleMs: 120_000,
      turnMs: 30_000,
    });
    expect(assignerInternals(assigner).readSiblings('orders', 1000)).toBeUndefined();
    assigner({
      cluster: clusterAnswering(() => Promise.resolve(paymentsDescription())),
      groupId: 'orders',
      logger: undefined as never,
    });
    const readings = await assignerInternals(assigner).readSiblings('orders', 1000);
    expect(readings?.map((r) => [r.groupId, r.status, r.members.length])).toEqual([['payments', 'stable', 3]]);
    expect(assignerInternals(LoadAwareAssigner({ weights })).readSiblings('orders', 1000)).toBeUndefined();
  });
});
