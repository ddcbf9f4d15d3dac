import { AssignerProtocol, type Cluster, type PartitionAssigner } from 'kafkajs';
import {
  ConfigError,
  ErrorCodes,
  LoadAwareAssigner,
  brokerRacksOf,
  decodeMember,
  decodeUserData,
  encodeUserData,
  listPartitions,
  mergeWeights,
  noopLogger,
  partitionRacks,
  resolveOptions,
  USER_DATA_VERSION,
} from '@load-aware/assignor/internal';
import { Registry } from 'prom-client';
import {
  decodeAssignedPartitions,
  errorThrownBy,
  fakeCluster,
  memberWithUserData,
  recordingLogger,
} from '@load-aware/test-support';

/** A cluster whose brokers 1-3 sit in racks a-c and whose topic's partitions have replicas on them. */
function rackedCluster(replicas: number[][]): Cluster {
  const cluster = fakeCluster({}) as unknown as Record<string, unknown>;
  return Object.assign(cluster, {
    brokerPool: {
      metadata: {
        brokers: [
          { nodeId: 1, host: 'h', port: 1, rack: 'a' },
          { nodeId: 2, host: 'h', port: 2, rack: 'b' },
          { nodeId: 3, host: 'h', port: 3, rack: 'c' },
          { nodeId: 4, host: 'h', port: 4, rack: null },
        ],
      },
    },
    findTopicPartitionMetadata: (topic: string) =>
      topic === 't'
        ? replicas.map((r, partitionId) => ({ partitionId, leader: r[0], replicas: r, isr: r, partitionErrorCode: 0 }))
        : [],
  }) as unknown as Cluster;
}

describe('the rack option', () => {
  it('is validated with the rules of instanceId', () => {
    expect(resolveOptions({ rack: 'eu-west-1a' }).rack).toBe('eu-west-1a');
    expect(resolveOptions({}).rack).toBeUndefined();
    for (const rack of ['', 'é'.repeat(200), 'a\nb', 42]) {
      const err = errorThrownBy(() => resolveOptions({ rack }), ConfigError);
      expect(err.code).toBe(ErrorCodes.config);
      expect(err.message).toContain('rack');
    }
  });

  it('chooses all replicas by default and accepts the leader only', () => {
    expect(resolveOptions({}).replicaRacks).toBe('all');
    expect(resolveOptions({ replicaRacks: 'leader' }).replicaRacks).toBe('leader');
    expect(errorThrownBy(() => resolveOptions({ replicaRacks: 'nearest' }), ConfigError).message).toContain(
      'replicaRacks',
    );
  });

  it('travels in userData to the leader', () => {
    const factory: PartitionAssigner = LoadAwareAssigner({ instanceId: 'pod-a', rack: 'zone-1' });
    const assigner = factory({ cluster: fakeCluster({}), groupId: 'g', logger: undefined as never });
    const { metadata } = assigner.protocol({ topics: ['t'] });
    const decoded = decodeMember({ memberId: 'm1', memberMetadata: metadata });
    expect(decoded.rack).toBe('zone-1');
    expect(decoded.instanceId).toBe('pod-a');
    const userData = AssignerProtocol.MemberMetadata.decode(metadata)?.userData;
    const record = decodeUserData(userData);
    expect(record.ok && record.value.rack).toBe('zone-1');
  });
});

describe('userData version 5', () => {
  const base = { instanceId: 'pod-a', capacity: 2, epoch: 7, processToken: 'ab12' };

  it('round-trips the rack and leaves it out when there is none', () => {
    expect(decodeUserData(encodeUserData({ ...base, rack: 'us-east-1b' }))).toEqual({
      ok: true,
      value: { ...base, rack: 'us-east-1b' },
    });
    expect(decodeUserData(encodeUserData(base))).toEqual({ ok: true, value: base });
  });

  it('only appends: the version-4 prefix of a version-5 record is the version-4 record', () => {
    const withRack = encodeUserData({ ...base, rack: 'r1' });
    const without = encodeUserData(base);
    expect(USER_DATA_VERSION).toBe(5);
    expect(withRack.subarray(0, without.length - 1).equals(without.subarray(0, without.length - 1))).toBe(true);
    // An older reader stops after the pause: the record read as version 4 is the same minus the rack.
    const asV4 = Buffer.from(withRack);
    asV4[2] = 4;
    expect(decodeUserData(asV4)).toEqual({ ok: true, value: base });
  });

  it('reads a truncated or invalid rack as none instead of rejecting the member', () => {
    const bytes = encodeUserData({ ...base, rack: 'abc' });
    expect(decodeUserData(bytes.subarray(0, bytes.length - 1))).toEqual({ ok: true, value: base });
    const bad = Buffer.from(bytes);
    bad[bad.length - 1] = 0xff;
    expect(decodeUserData(bad)).toEqual({ ok: true, value: base });
  });

  it('refuses to encode a rack the format cannot carry', () => {
    expect(() => encodeUserData({ ...base, rack: '' })).toThrow(RangeError);
    expect(() => encodeUserData({ ...base, rack: 'x'.repeat(256) })).toThrow(RangeError);
  });
});

describe('partition racks from metadata', () => {
  const brokers = new Map([
    [1, 'a'],
    [2, 'b'],
    [3, 'a'],
  ]);

  it('lists the racks of all replicas, sorted and once each, or of the leader only', () => {
    expect(partitionRacks({ leader: 2, replicas: [2, 3, 1] }, brokers, 'all')).toEqual(['a', 'b']);
    expect(partitionRacks({ leader: 2, replicas: [2, 3, 1] }, brokers, 'leader')).toEqual(['b']);
  });

  it('hands out one array per distinct rack list when given a shared map', () => {
    const shared = new Map<string, ReadonlyArray<string>>();
    const first = partitionRacks({ leader: 1, replicas: [1, 2] }, brokers, 'all', shared);
    const same = partitionRacks({ leader: 2, replicas: [2, 3] }, brokers, 'all', shared);
    const other = partitionRacks({ leader: 2, replicas: [2] }, brokers, 'all', shared);
    expect(first).toEqual(['a', 'b']);
    expect(same).toBe(first);
    expect(other).toEqual(['b']);
    expect(other).not.toBe(first);
    // Without the map every call builds its own array.
    expect(partitionRacks({ leader: 1, replicas: [1, 2] }, brokers, 'all')).not.toBe(first);
  });

  it('knows no racks when no broker reports one', () => {
    expect(partitionRacks({ leader: 1, replicas: [1] }, new Map(), 'all')).toBeUndefined();
    expect(partitionRacks({ leader: 9, replicas: [9] }, brokers, 'all')).toBeUndefined();
  });

  it("reads the brokers' racks from KafkaJS's cluster metadata, skipping brokers without one", () => {
    expect([...brokerRacksOf(rackedCluster([]))]).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
    expect(brokerRacksOf(fakeCluster({ t: 1 })).size).toBe(0);
  });

  it('gives the leader each partition with its replica racks, and keeps them through the weights', async () => {
    const cluster = rackedCluster([[1], [2, 3], [4]]);
    const all = await listPartitions(cluster, ['t'], ['t'], 1000, noopLogger);
    expect(all).toEqual([
      { topic: 't', partition: 0, racks: ['a'] },
      { topic: 't', partition: 1, racks: ['b', 'c'] },
      { topic: 't', partition: 2 },
    ]);
    const leader = await listPartitions(cluster, ['t'], ['t'], 1000, noopLogger, undefined, 'leader');
    expect(leader[1]).toEqual({ topic: 't', partition: 1, racks: ['b'] });
    const weighed = mergeWeights(all, [
      { topic: 't', partition: 0, weight: 3 },
      { topic: 't', partition: 1, weight: 4 },
      { topic: 't', partition: 2, weight: 5 },
    ]);
    expect(weighed.map((p) => p.racks)).toEqual([['a'], ['b', 'c'], undefined]);
  });
});

describe('the leader with racks', () => {
  /** Partition p of t has its only replica on broker (p % 3) + 1, so in rack a, b or c. */
  const replicas = Array.from({ length: 9 }, (_, p) => [(p % 3) + 1]);
  const rackMember = (memberId: string, instanceId: string, rack: string) =>
    memberWithUserData(memberId, ['t'], encodeUserData({ instanceId, capacity: 1, epoch: 0, rack }));

  it('places every partition in-rack, logs how much crosses racks and sets the metric', async () => {
    const logger = recordingLogger();
    const registry = new Registry();
    const factory: PartitionAssigner = LoadAwareAssigner({ instanceId: 'pod-a', rack: 'a', logger, registry });
    const assigner = factory({ cluster: rackedCluster(replicas), groupId: 'g', logger: undefined as never });
    const members = [rackMember('ma', 'pod-a', 'a'), rackMember('mb', 'pod-b', 'b'), rackMember('mc', 'pod-c', 'c')];
    const assigned = decodeAssignedPartitions(await assigner.assign({ members, topics: ['t'] }));
    const rackOf = { ma: 0, mb: 1, mc: 2 } as Record<string, number>;
    for (const [memberId, partitions] of assigned) {
      expect(partitions).toHaveLength(3);
      for (const p of partitions) expect(p.partition % 3).toBe(rackOf[memberId]);
    }
    const line = logger.messages('info').find((m) => m.startsWith('racks:'));
    expect(line).toBe('racks: every partition is fetched in-rack (0.0% of the load crosses racks)');
    expect(logger.messages('info').some((m) => m.includes('instance pod-b (rack b)'))).toBe(true);
    const metric = await registry.getSingleMetric('load_aware_cross_rack_load_ratio')?.get();
    expect(metric?.values).toEqual([{ labels: { group: 'g' }, value: 0 }]);
  });

  it('says why load crosses racks: no in-rack subscriber', async () => {
    const logger = recordingLogger();
    const factory: PartitionAssigner = LoadAwareAssigner({ instanceId: 'pod-a', rack: 'a', logger });
    const assigner = factory({ cluster: rackedCluster(replicas), groupId: 'g', logger: undefined as never });
    // Nobody in rack c: its three partitions must be fetched from elsewhere.
    const members = [rackMember('ma', 'pod-a', 'a'), rackMember('mb', 'pod-b', 'b')];
    await assigner.assign({ members, topics: ['t'] });
    const line = logger.messages('info').find((m) => m.startsWith('racks:'));
    expect(line).toBe(
      'racks: 33.3% of the load (3 partitions) is fetched across racks (33.3% has no in-rack subscriber); ' +
        'at least 33.3% must at this balance',
    );
  });
});
