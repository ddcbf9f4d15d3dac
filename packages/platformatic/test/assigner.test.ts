import { Registry } from 'prom-client';
import { ASSIGNER_NAME, ConfigError, decodeAssignmentNote, decodeUserData } from '@load-aware/assignor/portable';
import { COOPERATIVE_PROTOCOL, LoadAwareAssigner, type LoadAwareGroupOptions } from '@load-aware/platformatic';
import { errorThrownBy, recordingLogger } from '@load-aware/test-support';
import { FakeConsumer, kOptions, labelsOf, staticWeights, subscription, topicsMetadata } from './fakes';

const metadata = topicsMetadata({ orders: 4 });

/** Runs the consumer's protocolsMetadata step as platformatic does before a JoinGroup. */
async function joinRecord(options: LoadAwareGroupOptions) {
  const bytes = await options.protocolsMetadata(options.protocols, ['orders'], metadata as never, () => undefined);
  const decoded = decodeUserData(bytes);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value;
}

describe('LoadAwareAssigner', () => {
  it('offers LoadAwareAssigner (version 0, as KafkaJS members do) in eager mode, cooperative-sticky v3 first in cooperative mode', () => {
    expect(LoadAwareAssigner().groupOptions().protocols).toEqual([{ name: ASSIGNER_NAME, version: 0 }]);
    expect(LoadAwareAssigner({ mode: 'cooperative' }).groupOptions().protocols).toEqual([
      { name: COOPERATIVE_PROTOCOL, version: 3 },
      { name: ASSIGNER_NAME, version: 0 },
    ]);
  });

  it("reports the consumer's instance, epoch and owned partitions in the record, byte-identical while nothing changed", async () => {
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a', capacity: 2, weights: staticWeights({}) });
    const options = assigner.groupOptions();
    const consumer = assigner.attach(new FakeConsumer('orders-group', options));
    expect((await joinRecord(options)).owned).toBeUndefined();
    consumer.joined('m1', 3, [0, 2]);
    const record = await joinRecord(options);
    expect(record).toMatchObject({ instanceId: 'pod-a', capacity: 2, epoch: 0 });
    expect(record.owned).toEqual({
      generation: 3,
      partitions: [0, 2].map((partition) => ({ topic: 'orders', partition })),
    });
    // Same set again in a later generation: the record keeps the generation of the change.
    consumer.joined('m1', 4, [2, 0]);
    const again = await options.protocolsMetadata(options.protocols, ['orders'], metadata as never, () => undefined);
    consumer.joined('m1', 5, [0, 2]);
    expect(await options.protocolsMetadata(options.protocols, ['orders'], metadata as never, () => undefined)).toEqual(
      again,
    );
  });

  it('refreshes weights in the background while an attached consumer is open, and stops when the last one closes', async () => {
    jest.useFakeTimers();
    try {
      let asked = 0;
      const assigner = LoadAwareAssigner({
        weightsRefreshMs: 1000,
        weights: {
          getWeights: () => {
            asked++;
            return Promise.resolve([]);
          },
        },
      });
      const [a, b] = [assigner.groupOptions(), assigner.groupOptions()];
      const first = assigner.attach(new FakeConsumer('orders-group', a));
      const second = assigner.attach(new FakeConsumer('orders-group', b));
      first.joined('m1', 1, [0, 1]);
      second.joined('m2', 1, [2, 3]);
      await joinRecord(a);
      await jest.advanceTimersByTimeAsync(3000);
      expect(asked).toBe(4); // the join, then every second
      first.close();
      await jest.advanceTimersByTimeAsync(2000);
      expect(asked).toBe(6); // one consumer is still open
      second.close();
      expect(jest.getTimerCount()).toBe(0);
      await jest.advanceTimersByTimeAsync(5000);
      expect(asked).toBe(6);
    } finally {
      jest.useRealTimers();
    }
  });

  it('refreshes the weights at the join, so the leader reads them in its synchronous assignment', async () => {
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({
      instanceId: 'pod-a',
      logger,
      weights: staticWeights({ 'orders:0': 9, 'orders:1': 1, 'orders:2': 1, 'orders:3': 1 }),
    });
    const options = assigner.groupOptions();
    const consumer = assigner.attach(new FakeConsumer('orders-group', options));
    await joinRecord(options);
    const out = options.partitionAssigner(
      'm1',
      new Map([
        ['m1', subscription('m1', 'pod-a')],
        ['m2', subscription('m2', 'pod-b')],
      ]) as never,
      new Set(['orders']),
      metadata as never,
    );
    expect(out.map((a) => labelsOf(a as never).length).sort()).toEqual([1, 3]);
    // Written where platformatic reads the assignment userData it sends to every member.
    expect(decodeAssignmentNote(consumer[kOptions].assignmentUserData as Buffer)).toBe('start');
    expect(logger.records.find((r) => r.message.startsWith('weights: snapshot'))?.fields).toMatchObject({
      component: 'assignor',
      groupId: 'orders-group',
      weighed: 4,
    });
  });

  it('leaves an assignment userData the user configured alone', () => {
    const assigner = LoadAwareAssigner({ weights: staticWeights({}) });
    const options = assigner.groupOptions();
    const mine = Buffer.from('mine');
    const consumer = assigner.attach(new FakeConsumer('g', { ...options, assignmentUserData: mine } as never));
    options.partitionAssigner(
      'm1',
      new Map([
        ['m1', subscription('m1', 'a')],
        ['m2', subscription('m2', 'b')],
      ]) as never,
      new Set(['orders']),
      metadata as never,
    );
    expect(consumer[kOptions].assignmentUserData).toBe(mine);
  });

  it('refuses to attach a consumer created without its groupOptions(), or a second consumer to the same options', () => {
    const assigner = LoadAwareAssigner();
    expect(errorThrownBy(() => assigner.attach(new FakeConsumer('g', {})), ConfigError).code).toBe('LOAD_AWARE_CONFIG');
    const options = assigner.groupOptions();
    assigner.attach(new FakeConsumer('g', options));
    expect(errorThrownBy(() => assigner.attach(new FakeConsumer('g', options)), ConfigError).message).toContain(
      'once per consumer',
    );
  });

  it('forces a rebalance through one joined consumer of the group, with a new epoch in its next record', async () => {
    const assigner = LoadAwareAssigner({ weights: staticWeights({}) });
    const a = assigner.groupOptions();
    const b = assigner.groupOptions();
    const first = assigner.attach(new FakeConsumer('orders-group', a));
    const second = assigner.attach(new FakeConsumer('orders-group', b));
    expect(assigner.requestRebalance('orders-group')).toBe(0); // nobody joined yet
    first.joined('m1', 1, [0]);
    second.joined('m2', 1, [1]);
    expect(assigner.requestRebalance('orders-group')).toBe(1);
    expect(first.joins + second.joins).toBe(1);
    expect(assigner.epochOf('orders-group')).toBe(1);
    expect((await joinRecord(b)).epoch).toBe(1);
    expect(assigner.requestRebalance('payments')).toBe(0);
  });

  it('warns once when a consumer joins with its options but was never attached', async () => {
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({ logger });
    const options = assigner.groupOptions();
    await joinRecord(options);
    await joinRecord(options);
    expect(logger.messages('warn').filter((m) => m.includes('never passed to assigner.attach'))).toHaveLength(1);
  });

  it("shares one registry with the KafkaJS assigner's metric names, a second assigner reusing them", () => {
    const registry = new Registry();
    LoadAwareAssigner({ registry });
    LoadAwareAssigner({ registry });
    const names = registry.getMetricsAsArray().map((m) => m.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'load_aware_assignments_total',
        'load_aware_max_instance_load_ratio',
        'load_aware_weights_age_seconds',
        'load_aware_cooperative_foreign_members_total',
      ]),
    );
  });
});
