import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Cluster } from 'kafkajs';
import { KafkaJsInternalMissingError, LoadAwareAssigner } from '@load-aware/assignor';
import { errorThrownBy, fakeCluster } from '@load-aware/test-support';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A cluster of the supported KafkaJS that is never connected (none of its calls is made here). */
function clusterWithCoordinator(): Cluster {
  return fakeCluster({ t: 4 });
}

describe('static membership bookkeeping', () => {
  it('reports the group instance ids of live consumers after garbage collection', async () => {
    const assigner = LoadAwareAssigner({ instanceId: 'lifetime-pod', staticMembership: true });
    const clusters = [clusterWithCoordinator(), clusterWithCoordinator()];
    const consumers = clusters.map((cluster) => assigner({ cluster, groupId: 'g', logger: undefined as never }));
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(assigner.groupInstanceIds('g')).toEqual(['lifetime-pod.0', 'lifetime-pod.1']);
    expect(consumers).toHaveLength(2); // keeps both consumers' assigners alive up to here
  });

  it('refuses a cluster that has no group coordinator to wrap, when the consumer is created', () => {
    const assigner = LoadAwareAssigner({ instanceId: 'lifetime-pod-2', staticMembership: true });
    const cluster = Object.assign(fakeCluster({ t: 1 }), { findGroupCoordinator: undefined });
    const err = errorThrownBy(
      () => assigner({ cluster, groupId: 'g', logger: undefined as never }),
      KafkaJsInternalMissingError,
    );
    expect(err).toMatchObject({ internal: 'cluster.findGroupCoordinator', option: 'staticMembership' });
  });
});
