import { assignerInternals } from '@load-aware/assignor/internal';
import type { BrokerMetadata, Cluster } from 'kafkajs';
import { LoadAwareAssigner, createUniformWeightSource } from '@load-aware/assignor';
import { topicPartitionsThrough } from '@load-aware/assignor/internal';
import { metadataAnswer, rejectionOf } from '@load-aware/test-support';

/**
 * A stand-in for KafkaJS's Broker: like the real one, `metadata()` reads `allowAutoTopicCreation`
 * from the object it is called on when it builds the request.
 */
class FakeBroker {
  readonly allowAutoTopicCreation = true;
  readonly requests: Array<{ topics: string[]; allowAutoTopicCreation: boolean }> = [];
  constructor(readonly sizes: Record<string, number>) {}
  metadata(topics: string[]): Promise<BrokerMetadata> {
    // A view of this broker reaches the same list through its prototype, as it reaches the real one's connection.
    this.requests.push({ topics, allowAutoTopicCreation: this.allowAutoTopicCreation });
    return metadataAnswer(this.sizes, topics);
  }
}

/** A consumer's cluster whose group coordinator is `broker`, or whose lookup fails with `broker`. */
function clusterOf(broker: FakeBroker | Error): Cluster & { lookups: string[] } {
  const lookups: string[] = [];
  const cluster = {
    lookups,
    findGroupCoordinator: ({ groupId }: { groupId: string }) => {
      lookups.push(groupId);
      return broker instanceof FakeBroker ? Promise.resolve(broker) : Promise.reject(broker);
    },
  };
  return cluster as unknown as Cluster & { lookups: string[] };
}

describe('topicPartitionsThrough', () => {
  it("reads every topic at once from the group's coordinator, partitions ascending", async () => {
    const broker = new FakeBroker({ orders: 3, payments: 1 });
    const cluster = clusterOf(broker);
    const reading = await topicPartitionsThrough(cluster, 'g')(['payments', 'orders', 'orders']);
    expect(reading).toEqual({
      listed: [
        { topic: 'orders', partitions: [0, 1, 2] },
        { topic: 'payments', partitions: [0] },
      ],
      unlisted: [],
    });
    expect(cluster.lookups).toEqual(['g']);
    expect(broker.requests).toEqual([{ topics: ['orders', 'payments'], allowAutoTopicCreation: false }]);
  });

  it('never asks the broker to create a topic, whatever the client allows', async () => {
    const broker = new FakeBroker({ orders: 1 });
    await topicPartitionsThrough(clusterOf(broker), 'g')(['orders']);
    expect(broker.requests.map((r) => r.allowAutoTopicCreation)).toEqual([false]);
    // The broker object itself is untouched: the consumer's own requests keep its setting.
    expect(broker.allowAutoTopicCreation).toBe(true);
  });

  it('reads each topic alone when one makes the combined answer fail, naming the one not listed', async () => {
    const broker = new FakeBroker({ orders: 2 });
    const reading = await topicPartitionsThrough(clusterOf(broker), 'g')(['gone', 'orders']);
    expect(reading.listed).toEqual([{ topic: 'orders', partitions: [0, 1] }]);
    expect(reading.unlisted).toEqual([
      { topic: 'gone', reason: 'This server does not host this topic-partition: gone' },
    ]);
    expect(broker.requests.map((r) => r.topics)).toEqual([['gone', 'orders'], ['gone'], ['orders']]);
  });

  it('asks nothing for no topics, and rejects when the coordinator cannot be found', async () => {
    const cluster = clusterOf(new FakeBroker({}));
    expect(await topicPartitionsThrough(cluster, 'g')([])).toEqual({ listed: [], unlisted: [] });
    expect(cluster.lookups).toEqual([]);
    const failing = clusterOf(new Error('no coordinator'));
    expect((await rejectionOf(topicPartitionsThrough(failing, 'g')(['orders']), Error)).message).toBe('no coordinator');
  });
});

describe('LoadAwareAssigner().readTopicPartitions', () => {
  it('reads through the consumer of that group, and is undefined for a group it does not serve', async () => {
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a', weights: createUniformWeightSource() });
    assigner({ cluster: clusterOf(new FakeBroker({ orders: 2 })), groupId: 'g', logger: undefined as never });
    await expect(assignerInternals(assigner).readTopicPartitions('g', ['orders'], 1000)).resolves.toEqual({
      listed: [{ topic: 'orders', partitions: [0, 1] }],
      unlisted: [],
    });
    expect(assignerInternals(assigner).readTopicPartitions('other', ['orders'], 1000)).toBeUndefined();
  });

  it('rejects when the broker does not answer within the budget', async () => {
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a', weights: createUniformWeightSource() });
    const silent = { metadata: () => new Promise<never>(() => undefined) };
    const cluster = { findGroupCoordinator: () => Promise.resolve(silent) } as unknown as Cluster;
    assigner({ cluster, groupId: 'g', logger: undefined as never });
    const err = await rejectionOf(assignerInternals(assigner).readTopicPartitions('g', ['orders'], 20)!, Error);
    expect(err.message).toBe('topic metadata not read within 20 ms');
  });
});
