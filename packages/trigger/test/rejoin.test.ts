import { assignerInternals } from '@load-aware/assignor/internal';
import { KafkaJSError, KafkaJSProtocolError, type Cluster } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';

/** The three cluster calls the rejoin hook wraps, counting how often KafkaJS got through. */
function hookableCluster(): Cluster & { calls: { refresh: number; connect: number; disconnect: number } } {
  const calls = { refresh: 0, connect: 0, disconnect: 0 };
  const cluster = {
    calls,
    refreshMetadataIfNecessary: () => {
      calls.refresh++;
      return Promise.resolve();
    },
    connect: () => {
      calls.connect++;
      return Promise.resolve();
    },
    disconnect: () => {
      calls.disconnect++;
      return Promise.resolve();
    },
  };
  return cluster as unknown as Cluster & { calls: typeof calls };
}

/** What KafkaJS does for one consumer: create its assigner, connect, join (protocol()). */
function joinedConsumer(assigner: ReturnType<typeof LoadAwareAssigner>, groupId = 'g') {
  const cluster = hookableCluster();
  const instance = assigner({ cluster, groupId, logger: undefined as never });
  return {
    cluster,
    async connectAndJoin() {
      await cluster.connect();
      await cluster.refreshMetadataIfNecessary();
      instance.protocol({ topics: ['t'] });
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('LoadAwareAssigner.requestRejoin', () => {
  it("makes the consumer's next fetch-loop metadata refresh reject once with a rebalance error", async () => {
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a' });
    const consumer = joinedConsumer(assigner);
    await consumer.connectAndJoin();
    expect(assignerInternals(assigner).requestRejoin('g')).toBe(1);

    const err = await rejection(consumer.cluster.refreshMetadataIfNecessary());
    // What KafkaJS's runner checks (isRebalancing) before it re-sends JoinGroup.
    expect(err).toBeInstanceOf(KafkaJSProtocolError);
    expect(err).toBeInstanceOf(KafkaJSError);
    expect(err).toMatchObject({ type: 'REBALANCE_IN_PROGRESS', code: 27, retriable: true });
    await expect(consumer.cluster.refreshMetadataIfNecessary()).resolves.toBeUndefined();
    expect(consumer.cluster.calls.refresh).toBe(2);
  });

  it('asks only joined consumers of the requested group', async () => {
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a' });
    const inGroup = joinedConsumer(assigner, 'g');
    const otherGroup = joinedConsumer(assigner, 'other');
    const notJoined = joinedConsumer(assigner, 'g');
    await inGroup.connectAndJoin();
    await otherGroup.connectAndJoin();
    expect(assignerInternals(assigner).requestRejoin('g')).toBe(1);
    await expect(otherGroup.cluster.refreshMetadataIfNecessary()).resolves.toBeUndefined();
    await expect(notJoined.cluster.refreshMetadataIfNecessary()).resolves.toBeUndefined();
    expect(await rejection(inGroup.cluster.refreshMetadataIfNecessary())).toBeDefined();
  });

  it('never rejects the refresh that opens consumer.run(), so a restart cannot crash the consumer', async () => {
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a' });
    const consumer = joinedConsumer(assigner);
    await consumer.connectAndJoin();
    assignerInternals(assigner).requestRejoin('g');
    // stop() + run(): the runner connects the cluster, then refreshes before joining.
    await consumer.cluster.connect();
    await expect(consumer.cluster.refreshMetadataIfNecessary()).resolves.toBeUndefined();
  });

  it('forgets the request when the consumer disconnects or joins anyway', async () => {
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a' });
    const consumer = joinedConsumer(assigner);
    await consumer.connectAndJoin();
    assignerInternals(assigner).requestRejoin('g');
    await consumer.cluster.disconnect();
    await consumer.connectAndJoin();
    await expect(consumer.cluster.refreshMetadataIfNecessary()).resolves.toBeUndefined();

    assignerInternals(assigner).requestRejoin('g');
    // Another member's rebalance made this one rejoin first: its JoinGroup carried the new epoch.
    await consumer.connectAndJoin();
    await expect(consumer.cluster.refreshMetadataIfNecessary()).resolves.toBeUndefined();
  });

  it('exposes the weight source and default weight the assignments use', () => {
    const weights = { getWeights: () => Promise.resolve([]) };
    const assigner = LoadAwareAssigner({ weights, defaultWeight: 3 });
    expect(assignerInternals(assigner).weights).toBe(weights);
    expect(assignerInternals(assigner).defaultWeight).toBe(3);
  });

  it('leaves clusters without the hooked methods alone', () => {
    const assigner = LoadAwareAssigner({ instanceId: 'pod-a' });
    const instance = assigner({ cluster: {} as Cluster, groupId: 'g', logger: undefined as never });
    instance.protocol({ topics: ['t'] });
    expect(assignerInternals(assigner).requestRejoin('g')).toBe(0);
  });
});
