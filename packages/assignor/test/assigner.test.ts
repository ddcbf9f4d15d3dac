import { assignerInternals } from '@load-aware/assignor/internal';
import { AssignerProtocol, logLevel, type PartitionAssigner } from 'kafkajs';
import { Registry } from 'prom-client';
import {
  ASSIGNER_NAME,
  LoadAwareAssigner,
  decodeUserData,
  kafkaJsLogCreator,
  type LoadAwareAssignerOptions,
  type WeightSource,
} from '@load-aware/assignor/internal';
import {
  allPartitions,
  decodeAssignments,
  fakeCluster,
  member,
  memberWithUserData,
  recordingLogger,
} from '@load-aware/test-support';

const skewed: Record<string, number> = {
  'orders:0': 100,
  'orders:1': 10,
  'orders:2': 10,
  'orders:3': 10,
  'orders:4': 10,
  'orders:5': 10,
};

function staticWeights(weights: Record<string, number>): WeightSource {
  return {
    getWeights: (partitions) =>
      Promise.resolve(
        partitions.flatMap((p) => {
          const weight = weights[`${p.topic}:${String(p.partition)}`];
          return weight === undefined ? [] : [{ ...p, weight }];
        }),
      ),
  };
}

function assignerFor(
  options: LoadAwareAssignerOptions,
  partitionsPerTopic: Record<string, number>,
  hidden: string[] = [],
) {
  const cluster = fakeCluster(partitionsPerTopic, { hidden });
  const factory: PartitionAssigner = LoadAwareAssigner(options);
  const assigner = factory({ cluster, groupId: 'g1', logger: undefined as never });
  return { assigner, cluster };
}

function loadOf(partitions: string[], weights: Record<string, number>): number {
  return partitions.reduce((sum, p) => sum + (weights[p] ?? 0), 0);
}

describe('LoadAwareAssigner with KafkaJS', () => {
  it('advertises version-0 metadata whose userData carries instance id, capacity and epoch', () => {
    const factory = LoadAwareAssigner({ instanceId: 'pod-a', capacity: 2 });
    const { assigner } = { assigner: factory({ cluster: fakeCluster({}), groupId: 'g', logger: undefined as never }) };
    const state = assigner.protocol({ topics: ['orders'] });
    expect(state.name).toBe(ASSIGNER_NAME);
    const metadata = AssignerProtocol.MemberMetadata.decode(state.metadata)!;
    expect(metadata.version).toBe(0);
    expect(metadata.topics).toEqual(['orders']);
    expect(decodeUserData(metadata.userData)).toEqual({
      ok: true,
      // The process token (version 3): one random id per process.
      value: {
        instanceId: 'pod-a',
        capacity: 2,
        epoch: 0,
        processToken: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown,
      },
    });
  });

  it('keeps userData identical across rejoins until the epoch is bumped', () => {
    const factory = LoadAwareAssigner({ instanceId: 'pod-a' });
    const assigner = factory({ cluster: fakeCluster({}), groupId: 'g', logger: undefined as never });
    const first = assigner.protocol({ topics: ['t'] }).metadata;
    expect(assigner.protocol({ topics: ['t'] }).metadata.equals(first)).toBe(true);
    expect(assignerInternals(factory).bumpEpoch('g')).toBe(1);
    const bumped = AssignerProtocol.MemberMetadata.decode(assigner.protocol({ topics: ['t'] }).metadata)!;
    expect(decodeUserData(bumped.userData)).toMatchObject({ ok: true, value: { epoch: 1 } });
  });

  it('bumps the epoch of one group only: members of other groups keep their metadata', () => {
    const factory = LoadAwareAssigner({ instanceId: 'pod-a' });
    const orders = factory({ cluster: fakeCluster({}), groupId: 'orders', logger: undefined as never });
    const payments = factory({ cluster: fakeCluster({}), groupId: 'payments', logger: undefined as never });
    const paymentsBefore = payments.protocol({ topics: ['t'] }).metadata;
    assignerInternals(factory).bumpEpoch('orders');
    expect(factory.epochOf('orders')).toBe(1);
    expect(factory.epochOf('payments')).toBe(0);
    expect(payments.protocol({ topics: ['t'] }).metadata.equals(paymentsBefore)).toBe(true);
    const ordersNow = AssignerProtocol.MemberMetadata.decode(orders.protocol({ topics: ['t'] }).metadata)!;
    expect(decodeUserData(ordersNow.userData)).toMatchObject({ ok: true, value: { epoch: 1 } });
  });

  it('places the hot partition alone on one instance and the rest on the other, whatever the member counts', async () => {
    const { assigner } = assignerFor({ weights: staticWeights(skewed) }, { orders: 6 });
    const result = decodeAssignments(
      await assigner.assign({
        members: [
          member('a1', ['orders'], 'A'),
          member('b1', ['orders'], 'B'),
          member('b2', ['orders'], 'B'),
          member('b3', ['orders'], 'B'),
        ],
        topics: ['orders'],
      }),
    );
    expect([...result.values()].flat().sort()).toEqual(allPartitions({ orders: 6 }));
    const loadA = loadOf(result.get('a1')!, skewed);
    const loadB = ['b1', 'b2', 'b3'].reduce((sum, id) => sum + loadOf(result.get(id)!, skewed), 0);
    expect([loadA, loadB].sort((x, y) => x - y)).toEqual([50, 100]);
    expect(result.get('a1')!.includes('orders:0') ? loadA : loadB).toBe(100);
  });

  it("assigns the union of all members' topics, loading metadata for topics the leader does not subscribe to", async () => {
    const { assigner, cluster } = assignerFor({}, { a: 2, b: 3 }, ['b']);
    const result = decodeAssignments(
      await assigner.assign({ members: [member('m1', ['a'], 'X'), member('m2', ['b'], 'Y')], topics: ['a'] }),
    );
    expect(cluster.targetTopicCalls).toEqual([['b']]);
    expect(result.get('m1')).toEqual(['a:0', 'a:1']);
    expect(result.get('m2')).toEqual(['b:0', 'b:1', 'b:2']);
  });

  it('treats a member with garbage userData as its own instance and warns once per member', async () => {
    const logger = recordingLogger();
    const { assigner } = assignerFor({ logger }, { t: 4 });
    const members = [
      member('a1', ['t'], 'A'),
      member('a2', ['t'], 'A'),
      memberWithUserData('x1', ['t'], Buffer.from([1, 2, 3])),
    ];
    const first = decodeAssignments(await assigner.assign({ members, topics: ['t'] }));
    await assigner.assign({ members, topics: ['t'] });
    expect(first.get('x1')).toHaveLength(2);
    expect(logger.messages('warn').filter((m) => m.includes('no usable load-aware userData'))).toHaveLength(1);
  });

  it("assumes the leader's topics for a member whose metadata cannot be decoded", async () => {
    const { assigner } = assignerFor({}, { t: 4 });
    const result = decodeAssignments(
      await assigner.assign({
        members: [member('a1', ['t'], 'A'), { memberId: 'z1', memberMetadata: Buffer.from([0xff]) }],
        topics: ['t'],
      }),
    );
    expect(result.get('z1')).toHaveLength(2);
    expect([...result.values()].flat().sort()).toEqual(allPartitions({ t: 4 }));
  });

  it.each([
    ['rejects', { getWeights: () => Promise.reject(new Error('prometheus down')) }, 'prometheus down'],
    [
      'throws synchronously',
      {
        getWeights: () => {
          throw new Error('boom');
        },
      },
      'boom',
    ],
    [
      'answers with something that is not a list',
      { getWeights: () => Promise.resolve({ nope: 1 }) },
      'expected an array',
    ],
    ['never answers', { getWeights: () => new Promise(() => undefined) }, 'weightsTimeoutMs=50'],
  ])(
    "falls back to round-robin over each member's subscription when the weight source %s",
    async (_name, source, cause) => {
      const logger = recordingLogger();
      const registry = new Registry();
      const { assigner } = assignerFor(
        { weights: source as unknown as WeightSource, logger, registry, weightsTimeoutMs: 50 },
        { a: 3, b: 3 },
      );
      const result = decodeAssignments(
        await assigner.assign({
          members: [member('m1', ['a', 'b'], 'X'), member('m2', ['b'], 'Y')],
          topics: ['a', 'b'],
        }),
      );
      expect([...result.values()].flat().sort()).toEqual(allPartitions({ a: 3, b: 3 }));
      expect(result.get('m2')!.every((p) => p.startsWith('b:'))).toBe(true);
      expect(logger.messages('warn').some((m) => m.includes(cause) && m.includes('falling back to round-robin'))).toBe(
        true,
      );
      expect(
        logger
          .messages('info')
          .some((m) => m.startsWith('round-robin fallback assignment: partitions per instance X=')),
      ).toBe(true);
      expect(await registry.getSingleMetricAsString('load_aware_assignments_total')).toContain('result="fallback"} 1');
    },
  );

  it('drops malformed weight entries and defaults those partitions instead of failing the group', async () => {
    const logger = recordingLogger();
    const source = {
      getWeights: () =>
        Promise.resolve([
          null,
          { topic: 't', partition: 0, weight: 'x' },
          { topic: 't', partition: 1, weight: Number.NaN },
          { topic: 't', partition: 2, weight: 5 },
        ]),
    };
    const { assigner } = assignerFor({ weights: source as unknown as WeightSource, logger }, { t: 4 });
    const result = decodeAssignments(await assigner.assign({ members: [member('m1', ['t'], 'X')], topics: ['t'] }));
    expect(result.get('m1')).toEqual(allPartitions({ t: 4 }));
    const summary = logger.records.find((r) => r.message.startsWith('load-aware assignment'));
    expect(summary?.fields).toMatchObject({ defaulted: 3, partitions: 4, result: 'load_aware' });
  });

  it('explains every assignment at INFO and lists members at DEBUG', async () => {
    const logger = recordingLogger();
    const { assigner } = assignerFor({ weights: staticWeights(skewed), logger }, { orders: 6 });
    await assigner.assign({
      members: [member('a1', ['orders'], 'A'), member('b1', ['orders'], 'B'), member('b2', ['orders'], 'B')],
      topics: ['orders'],
    });
    const info = logger.messages('info');
    expect(info[0]).toBe('load-aware assignment: 2 instances, 3 members, 6 partitions, total weight 150, 0 defaulted');
    expect(info).toContain('instance A: load 100 (66.7%), 1 partition, 1 member');
    expect(info).toContain('instance B: load 50 (33.3%), 5 partitions, 2 members');
    expect(info).toContain('skew: max instance load 100 vs ideal 75 (1.33x)');
    expect(info.find((m) => m.startsWith('unevenness factors:'))).toContain(
      'one partition alone (100) is heavier than the ideal share 75',
    );
    expect(logger.messages('debug')).toHaveLength(3);
  });

  it('records assignment metrics, and two assigners can share one registry', async () => {
    const registry = new Registry();
    const one = assignerFor({ registry }, { t: 2 }).assigner;
    const two = assignerFor({ registry }, { t: 2 }).assigner;
    await one.assign({ members: [member('m1', ['t'], 'X')], topics: ['t'] });
    await two.assign({ members: [member('m1', ['t'], 'X')], topics: ['t'] });
    const text = await registry.metrics();
    expect(text).toContain('load_aware_assignments_total{group="g1",result="load_aware"} 2');
    expect(text).toContain('load_aware_assignment_duration_seconds_count{group="g1"} 2');
    expect(text).toContain('load_aware_defaulted_weights{group="g1"} 0');
    expect(text).toContain('load_aware_max_instance_load_ratio{group="g1"} 1');
  });

  it('gives every member an entry, even one that gets no partitions', async () => {
    const { assigner } = assignerFor({}, { t: 1 });
    const result = decodeAssignments(
      await assigner.assign({ members: [member('m1', ['t'], 'X'), member('m2', ['t'], 'Y')], topics: ['t'] }),
    );
    expect([...result.keys()].sort()).toEqual(['m1', 'm2']);
  });
});

describe('kafkaJsLogCreator', () => {
  it('routes KafkaJS log entries to the matching pino level with their fields', () => {
    const logger = recordingLogger();
    const log = kafkaJsLogCreator(logger)(logLevel.DEBUG);
    log({
      namespace: 'Consumer',
      level: logLevel.WARN,
      label: 'WARN',
      log: { message: 'slow', timestamp: 'x', logger: 'kafkajs', groupId: 'g' },
    });
    log({ namespace: 'Runner', level: logLevel.DEBUG, label: 'DEBUG', log: { message: 'tick', timestamp: 'x' } });
    expect(logger.records).toEqual([
      { level: 'warn', fields: { namespace: 'Consumer', groupId: 'g' }, message: 'slow' },
      { level: 'debug', fields: { namespace: 'Runner' }, message: 'tick' },
    ]);
  });
});
