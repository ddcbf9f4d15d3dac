import type { Group } from '@platformatic/kafka';
import { encodeUserData } from '@load-aware/assignor/portable';
import { LoadAwareAssigner } from '@load-aware/platformatic';
import { readProgress, readTopicPartitions } from '@load-aware/platformatic/internal';
import { FakeConsumer, labelsOf, staticWeights, subscription, topicsMetadata } from './fakes';

/**
 * The readers the platformatic trigger target builds from the `Admin` it is given: fresh partition
 * lists, group progress (the lag, and static members away) and cross-group sibling readings. Fakes stand in
 * for the Admin here; the real-broker runs are in test/platformatic-trigger-parity.int.test.ts.
 */

type MetadataCall = { topics: string[]; autocreateTopics?: boolean; forceUpdate?: boolean; retries?: number };

/** An Admin whose Metadata lists `counts`; a topic not in it fails the whole answer, as platformatic does. */
function metadataAdmin(counts: Record<string, number>) {
  const calls: MetadataCall[] = [];
  return {
    calls,
    metadata(options: MetadataCall) {
      calls.push({ ...options, topics: [...options.topics] });
      const unknown = options.topics.find((t) => counts[t] === undefined);
      if (unknown !== undefined) return Promise.reject(new Error(`Unknown topic ${unknown}.`));
      return Promise.resolve({
        topics: new Map(options.topics.map((t) => [t, { partitionsCount: counts[t]! }])),
      });
    },
  };
}

function group(id: string, members: Array<{ id: string; instance: string; assigned: number[] }>): Group {
  return {
    id,
    state: 'Stable',
    protocolType: 'consumer',
    protocol: 'LoadAwareAssigner',
    authorizedOperations: 0,
    members: new Map(
      members.map((m) => [
        m.id,
        {
          id: m.id,
          groupInstanceId: null,
          clientId: m.id,
          clientHost: '/127.0.0.1',
          metadata: {
            version: 0,
            topics: ['t'],
            metadata: encodeUserData({ instanceId: m.instance, capacity: 1, epoch: 0 }),
          },
          assignments: new Map([['t', { topic: 't', partitions: m.assigned }]]),
        },
      ]),
    ),
  };
}

describe('readTopicPartitions(admin, topics, timeoutMs)', () => {
  it('reads every topic in one Metadata request that never creates a topic and is asked once', async () => {
    const admin = metadataAdmin({ a: 2, b: 3 });
    const reading = await readTopicPartitions(admin, ['b', 'a', 'b'], 1000);
    expect(reading).toEqual({
      listed: [
        { topic: 'a', partitions: [0, 1] },
        { topic: 'b', partitions: [0, 1, 2] },
      ],
      unlisted: [],
    });
    expect(admin.calls).toEqual([{ topics: ['a', 'b'], autocreateTopics: false, forceUpdate: true, retries: 0 }]);
  });

  it('reads each topic alone when one fails the combined answer, so the others still count', async () => {
    const admin = metadataAdmin({ a: 2 });
    const reading = await readTopicPartitions(admin, ['a', 'gone'], 1000);
    expect(reading.listed).toEqual([{ topic: 'a', partitions: [0, 1] }]);
    expect(reading.unlisted).toEqual([{ topic: 'gone', reason: 'Unknown topic gone.' }]);
  });

  it('rejects once timeoutMs has passed', async () => {
    const admin = { metadata: () => new Promise<never>(() => undefined) };
    await expect(readTopicPartitions(admin, ['a'], 20)).rejects.toThrow('topic metadata not read within 20 ms');
  });
});

describe('readProgress(admin, groupId, partitions, timeoutMs)', () => {
  it("pairs the group's committed offsets with the end offsets; a partition without a commit reads -1", async () => {
    const asked: unknown[] = [];
    const admin = {
      listConsumerGroupOffsets(options: unknown) {
        asked.push(options);
        return Promise.resolve([
          {
            groupId: 'g',
            topics: [
              {
                name: 't',
                partitions: [
                  { partitionIndex: 0, committedOffset: 5n },
                  { partitionIndex: 1, committedOffset: -1n },
                ],
              },
            ],
          },
        ]);
      },
      listOffsets(options: unknown) {
        asked.push(options);
        return Promise.resolve([
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, offset: 9n },
              { partitionIndex: 1, offset: 3n },
              { partitionIndex: 2, offset: 4n },
            ],
          },
        ]);
      },
    };
    const partitions = [0, 1, 2].map((partition) => ({ topic: 't', partition }));
    expect(await readProgress(admin, 'g', partitions, 1000)).toEqual([
      { topic: 't', partition: 0, committed: 5, end: 9 },
      { topic: 't', partition: 1, committed: -1, end: 3 },
    ]);
    expect(asked).toEqual([
      { groups: [{ groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1, 2] }] }] },
      { topics: [{ name: 't', partitions: [0, 1, 2].map((partitionIndex) => ({ partitionIndex, timestamp: -1n })) }] },
    ]);
  });
});

describe('the readers assigner.triggerTarget(consumer, admin) turns on', () => {
  const fullAdmin = (groups: Group[]) => ({
    ...metadataAdmin({ t: 4 }),
    describeGroups: ({ groups: ids }: { groups: string[] }) =>
      Promise.resolve(new Map(groups.filter((g) => ids.includes(g.id)).map((g) => [g.id, g]))),
    listConsumerGroupOffsets: () => Promise.resolve([]),
    listOffsets: () => Promise.resolve([]),
  });

  it('reads unheld partitions and progress through the admin; static only with a groupInstanceId', async () => {
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a', weights: staticWeights({}) });
    const dynamic = assigner.attach(new FakeConsumer('g', assigner.groupOptions()));
    const target = assigner.triggerTarget(dynamic, fullAdmin([]));
    expect(await target.assigner.readTopicPartitions?.('g', ['t'], 1000)).toEqual({
      listed: [{ topic: 't', partitions: [0, 1, 2, 3] }],
      unlisted: [],
    });
    expect(target.assigner.staticMembership).toBe(false);

    const staticConsumer = Object.assign(new FakeConsumer('g', assigner.groupOptions()), {
      groupInstanceId: 'pod-a-0',
    });
    assigner.attach(staticConsumer);
    const staticTarget = assigner.triggerTarget(staticConsumer, fullAdmin([]));
    expect(staticTarget.assigner.staticMembership).toBe(true);
    expect(await staticTarget.assigner.readProgress?.('g', [{ topic: 't', partition: 0 }], 1000)).toEqual([]);

    // An admin with DescribeGroups only: the extra checks stay off.
    const bare = assigner.triggerTarget(staticConsumer, { describeGroups: () => Promise.resolve(new Map()) });
    expect(bare.assigner).not.toHaveProperty('readTopicPartitions');
    expect(bare.assigner).not.toHaveProperty('readProgress');
  });

  it("reads a dynamic group's progress too, which the trigger's lag check measures the lag from", async () => {
    // Before, only a consumer with a groupInstanceId got readProgress: the lag check of a dynamic
    // platformatic group warned "group lag is not measured" and published no gauges.
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a', weights: staticWeights({}) });
    const dynamic = assigner.attach(new FakeConsumer('g', assigner.groupOptions()));
    const asked: string[] = [];
    const admin = {
      ...fullAdmin([]),
      listConsumerGroupOffsets(options: { groups: Array<{ groupId: string }> }) {
        asked.push(`offsets of ${options.groups.map((g) => g.groupId).join()}`);
        return Promise.resolve([
          {
            groupId: 'g',
            topics: [
              {
                name: 't',
                partitions: [
                  { partitionIndex: 0, committedOffset: 120n },
                  { partitionIndex: 1, committedOffset: -1n },
                ],
              },
            ],
          },
        ]);
      },
      listOffsets() {
        asked.push('ends');
        return Promise.resolve([
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, offset: 300n },
              { partitionIndex: 1, offset: 40n },
            ],
          },
        ]);
      },
    };
    const target = assigner.triggerTarget(dynamic, admin);
    expect(target.assigner.staticMembership).toBe(false);
    const held = [0, 1].map((partition) => ({ topic: 't', partition }));
    expect(await target.assigner.readProgress?.('g', held, 1000)).toEqual([
      { topic: 't', partition: 0, committed: 120, end: 300 },
      { topic: 't', partition: 1, committed: -1, end: 40 },
    ]);
    expect(asked.sort()).toEqual(['ends', 'offsets of g']);
  });

  it('with crossGroup, reads the sibling groups through the admin, decoded by the leader’s rule', async () => {
    const assigner = LoadAwareAssigner({
      instanceId: 'pod-a',
      weights: staticWeights({}),
      crossGroup: { groups: ['g', 'h'] },
    });
    const consumer = assigner.attach(new FakeConsumer('g', assigner.groupOptions()));
    const target = assigner.triggerTarget(
      consumer,
      fullAdmin([group('h', [{ id: 'h1', instance: 'pod-b', assigned: [0, 1] }])]),
    );
    expect(target.assigner.crossGroup).toEqual({ groups: ['g', 'h'], maxStaleMs: 120_000, turnMs: 60_000 });
    const siblings = await target.assigner.readSiblings?.('g', 1000);
    expect(siblings).toMatchObject([
      {
        groupId: 'h',
        status: 'stable',
        members: [
          { memberId: 'h1', instanceId: 'pod-b', assigned: [0, 1].map((partition) => ({ topic: 't', partition })) },
        ],
      },
    ]);
  });
});

describe('a crossGroup leader', () => {
  it('places its group on top of the siblings read at its join, through the admin given to attach()', async () => {
    const weights = staticWeights({
      ...Object.fromEntries([0, 1, 2, 3].map((p) => [`orders:${String(p)}`, 1])),
      ...Object.fromEntries([0, 1, 2, 3].map((p) => [`t:${String(p)}`, 1])),
    });
    const logs: string[] = [];
    const line = (_fields: object, msg?: string) => {
      logs.push(msg ?? '');
    };
    const assigner = LoadAwareAssigner({
      instanceId: 'pod-a',
      weights,
      crossGroup: { groups: ['g', 'h'] },
      logger: { debug: line, info: line, warn: line, error: line },
    });
    const admin = {
      describeGroups: ({ groups: ids }: { groups: string[] }) =>
        Promise.resolve(
          new Map(
            [group('h', [{ id: 'h1', instance: 'pod-b', assigned: [0, 1, 2, 3] }])]
              .filter((g) => ids.includes(g.id))
              .map((g) => [g.id, g]),
          ),
        ),
    };
    const options = assigner.groupOptions();
    assigner.attach(new FakeConsumer('g', options), { admin });
    await options.protocolsMetadata(
      options.protocols,
      ['orders'],
      topicsMetadata({ orders: 4 }) as never,
      () => undefined,
    );
    const members = new Map([
      ['m1', subscription('m1', 'pod-a')],
      ['m2', subscription('m2', 'pod-b')],
    ]);
    const out = options.partitionAssigner(
      'm1',
      members as never,
      new Set(['orders']),
      topicsMetadata({ orders: 4 }) as never,
    );
    const byMember = new Map(out.map((a) => [a.memberId, labelsOf(a)]));
    // pod-b already carries 4 from group h: all four of g's partitions go to pod-a.
    expect(byMember.get('m1')).toEqual(['orders:0', 'orders:1', 'orders:2', 'orders:3']);
    expect(byMember.get('m2')).toEqual([]);
    expect(logs.filter((l) => l.startsWith('cross-group'))).toEqual([]);
  });

  it('warns once and balances without the siblings when it has no Admin', async () => {
    const warnings: string[] = [];
    const assigner = LoadAwareAssigner({
      instanceId: 'pod-a',
      weights: staticWeights({}),
      crossGroup: { groups: ['g', 'h'] },
      logger: {
        debug: () => undefined,
        info: () => undefined,
        warn: (_f, msg) => warnings.push(msg ?? ''),
        error: () => undefined,
      },
    });
    const options = assigner.groupOptions();
    assigner.attach(new FakeConsumer('g', options));
    for (let i = 0; i < 2; i++) {
      await options.protocolsMetadata(
        options.protocols,
        ['orders'],
        topicsMetadata({ orders: 4 }) as never,
        () => undefined,
      );
    }
    expect(warnings.filter((w) => w.startsWith('cross-group: no Admin'))).toHaveLength(1);
  });
});
