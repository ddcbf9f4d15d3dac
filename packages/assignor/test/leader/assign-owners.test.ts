import { AssignerProtocol, type Cluster, type PartitionAssigner } from 'kafkajs';
import { LoadAwareAssigner, decodeUserData, type WeightSource } from '@load-aware/assignor/internal';
import { ownerMember } from '../fakes';
import { decodeAssignments, fakeCluster, member, recordingLogger } from '@load-aware/test-support';

/**
 * Owners travel with the members: a leader that never assigned this group before (its
 * predecessor's pod restarted) still keeps partitions where they are, and a consumer learns what
 * it owns from its own SyncGroup without any user code.
 */

const weights: WeightSource = {
  getWeights: (partitions) => Promise.resolve(partitions.map((p) => ({ ...p, weight: 1 + (p.partition % 3) }))),
};

function freshLeader(partitions = 12, logger = recordingLogger()) {
  const factory: PartitionAssigner = LoadAwareAssigner({ weights, logger });
  return {
    assigner: factory({ cluster: fakeCluster({ orders: partitions }), groupId: 'g', logger: undefined as never }),
    logger,
  };
}

const slice = (from: number, to: number): string[] =>
  Array.from({ length: to - from }, (_, i) => `orders:${String(from + i)}`);

describe('owners reported by members', () => {
  it('a brand-new leader keeps every partition with the member that reports owning it', async () => {
    const { assigner, logger } = freshLeader();
    // Weights 1, 2, 3 repeating (total 24): each member already holds exactly 8.
    const reported = new Map([
      ['a1', ['orders:1', 'orders:2', 'orders:5']],
      ['b1', ['orders:4', 'orders:8', 'orders:11']],
      ['c1', ['orders:0', 'orders:3', 'orders:6', 'orders:7', 'orders:9', 'orders:10']],
    ]);
    const members = [...reported].map(([id, ps], i) =>
      ownerMember(id, ['orders'], `pod-${String(i)}`, { generation: 5, partitions: ps }),
    );
    const result = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    for (const [id, ps] of reported) expect(result.get(id)).toEqual([...ps].sort());
    expect(logger.messages('info')).toContain('moves: 0 of 12 previously owned partitions changed owner');
    const moves = logger.records.find((r) => r.message.startsWith('moves:'));
    expect(moves?.fields).toMatchObject({ ownersReportedBy: 3, ownersRememberedFor: 0 });
  });

  it('after the old leader left, moves only what the leaver held', async () => {
    const { assigner } = freshLeader();
    const members = [
      ownerMember('b1', ['orders'], 'pod-b', { generation: 3, partitions: slice(4, 8) }),
      ownerMember('c1', ['orders'], 'pod-c', { generation: 3, partitions: slice(8, 12) }),
    ];
    const result = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    for (const p of slice(4, 8)) expect(result.get('b1')).toContain(p);
    for (const p of slice(8, 12)) expect(result.get('c1')).toContain(p);
  });

  it('resolves two claims on one partition by generation: a member that missed a rebalance loses', async () => {
    const { assigner } = freshLeader(4);
    const members = [
      ownerMember('stale', ['orders'], 'pod-a', { generation: 2, partitions: ['orders:0', 'orders:1'] }),
      ownerMember('fresh', ['orders'], 'pod-b', { generation: 6, partitions: ['orders:1', 'orders:3'] }),
    ];
    const result = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    expect(result.get('fresh')).toEqual(expect.arrayContaining(['orders:1', 'orders:3']));
    expect(result.get('stale')).toEqual(expect.arrayContaining(['orders:0']));
  });

  it('falls back to its own memory for members that report nothing (older versions)', async () => {
    const logger = recordingLogger();
    const factory: PartitionAssigner = LoadAwareAssigner({ weights, logger });
    const assigner = factory({ cluster: fakeCluster({ orders: 12 }), groupId: 'g', logger: undefined as never });
    const members = [member('a1', ['orders'], 'A'), member('b1', ['orders'], 'B'), member('c1', ['orders'], 'C')];
    const first = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    const second = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    expect(second).toEqual(first);
  });
});

/** A cluster whose coordinator answers JoinGroup/SyncGroup/Heartbeat like a broker. */
function coordinatorCluster() {
  const state = { generation: 0, assignment: {} as Record<string, number[]>, rebalancing: false, leader: false };
  const broker = {
    nodeId: 1,
    heartbeats: 0,
    joinGroup: () =>
      Promise.resolve({
        generationId: ++state.generation,
        memberId: 'm-1',
        leaderId: state.leader ? 'm-1' : 'm-0',
        members: [],
      }),
    syncGroup: () =>
      Promise.resolve({
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 0,
          assignment: state.assignment,
          userData: Buffer.alloc(0),
        }),
      }),
    heartbeat(this: { heartbeats: number }) {
      // State kept on `this` must land on the real broker, not on a wrapper.
      this.heartbeats++;
      if (!state.rebalancing) return Promise.resolve();
      state.rebalancing = false;
      return Promise.reject(Object.assign(new Error('The group is rebalancing'), { type: 'REBALANCE_IN_PROGRESS' }));
    },
  };
  const cluster = {
    ...fakeCluster({ orders: 6 }),
    findGroupCoordinator: () => Promise.resolve(broker),
    refreshMetadataIfNecessary: () => Promise.resolve(),
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
  };
  return { cluster: cluster as unknown as Cluster, state, broker };
}

type Coordinator = {
  joinGroup(r: object): Promise<unknown>;
  syncGroup(r: object): Promise<unknown>;
  heartbeat(): Promise<void>;
};

/**
 * One round as KafkaJS's consumer group runs it: a heartbeat (which tells of a rebalance when
 * one is under way), then FindCoordinator, JoinGroup with the assigner's metadata, SyncGroup.
 */
async function heartbeatThenRejoin(
  setup: ReturnType<typeof coordinatorCluster>,
  protocol: () => Buffer,
  rebalance: boolean,
): Promise<Buffer> {
  const { cluster, state } = setup;
  const coordinator = (await cluster.findGroupCoordinator({ groupId: 'g' })) as unknown as Coordinator;
  state.rebalancing = rebalance;
  await coordinator.heartbeat().catch(() => undefined);
  await Promise.resolve(); // let the wrapper see the rejection
  const rejoined = (await cluster.findGroupCoordinator({ groupId: 'g' })) as unknown as Coordinator;
  const metadata = protocol();
  await rejoined.joinGroup({ groupProtocols: [{ name: 'LoadAwareAssigner', metadata }] });
  await rejoined.syncGroup({ generationId: state.generation });
  return metadata;
}

function ownedIn(metadata: Buffer) {
  const decoded = decodeUserData(AssignerProtocol.MemberMetadata.decode(metadata)!.userData);
  return decoded.ok ? decoded.value.owned : 'unreadable';
}

function consumerOn(setup: ReturnType<typeof coordinatorCluster>) {
  const consumer = LoadAwareAssigner({ instanceId: 'pod-a' })({
    cluster: setup.cluster,
    groupId: 'g',
    logger: undefined as never,
  });
  return () => consumer.protocol({ topics: ['orders'] }).metadata;
}

describe('a consumer learning what it owns', () => {
  it('reports what its last SyncGroup gave it, keeping the generation while the set is unchanged', async () => {
    const setup = coordinatorCluster();
    const protocol = consumerOn(setup);
    const first = await heartbeatThenRejoin(setup, protocol, true);
    expect(ownedIn(first)).toBeUndefined(); // nothing known before the first assignment
    expect(setup.broker.heartbeats).toBe(1); // the heartbeat ran on the real broker object

    setup.state.assignment = { orders: [0, 2] };
    const second = await heartbeatThenRejoin(setup, protocol, true);
    expect(ownedIn(second)).toEqual({ generation: 1, partitions: [] });

    const third = await heartbeatThenRejoin(setup, protocol, true);
    expect(ownedIn(third)).toEqual({
      generation: 2,
      partitions: [
        { topic: 'orders', partition: 0 },
        { topic: 'orders', partition: 2 },
      ],
    });
    // Same assignment in generation 3: the record stays byte-identical.
    const fourth = await heartbeatThenRejoin(setup, protocol, true);
    expect(fourth.equals(third)).toBe(true);
  });

  it("re-sends the last JoinGroup's bytes on a rejoin no rebalance asked for (a coordinator move)", async () => {
    const setup = coordinatorCluster();
    const protocol = consumerOn(setup);
    setup.state.assignment = { orders: [0, 1, 2] };
    await heartbeatThenRejoin(setup, protocol, true);
    const sent = await heartbeatThenRejoin(setup, protocol, true); // reports [0,1,2]
    setup.state.assignment = { orders: [0] }; // this rebalance took two partitions away
    await heartbeatThenRejoin(setup, protocol, true);

    // KafkaJS rejoins a Stable group after NOT_COORDINATOR: no rebalance signal came first.
    const quiet = await heartbeatThenRejoin(setup, protocol, false);
    expect(quiet.equals(sent)).toBe(true);
    // The next rebalance carries the current set again.
    const next = await heartbeatThenRejoin(setup, protocol, true);
    expect(ownedIn(next)).toEqual({ generation: 3, partitions: [{ topic: 'orders', partition: 0 }] });
  });

  it("sends current bytes when it led the last generation (a leader's JoinGroup rebalances anyway)", async () => {
    const setup = coordinatorCluster();
    const protocol = consumerOn(setup);
    setup.state.leader = true;
    setup.state.assignment = { orders: [4] };
    const first = await heartbeatThenRejoin(setup, protocol, true);
    const quiet = await heartbeatThenRejoin(setup, protocol, false);
    expect(quiet.equals(first)).toBe(false);
    expect(ownedIn(quiet)).toEqual({ generation: 1, partitions: [{ topic: 'orders', partition: 4 }] });
  });

  it('forgets what it owned when the consumer disconnects', async () => {
    const setup = coordinatorCluster();
    const protocol = consumerOn(setup);
    setup.state.assignment = { orders: [1] };
    await heartbeatThenRejoin(setup, protocol, true);
    await setup.cluster.disconnect();
    expect(ownedIn(protocol())).toBeUndefined();
  });
});
