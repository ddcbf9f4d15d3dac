import { LoadAwareAssigner } from '@load-aware/assignor/internal';
import { decodeAssignments, fakeCluster, member, recordingLogger, type FakeCluster } from '@load-aware/test-support';

/** A cluster whose metadata for topics the leader does not read itself answers after `delayMs`. */
function slowMetadata(delayMs: number): FakeCluster {
  const cluster = fakeCluster({ orders: 2, audit: 2 }, { hidden: ['audit'] });
  const load = cluster.addMultipleTargetTopics.bind(cluster);
  cluster.addMultipleTargetTopics = (topics) =>
    new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => load(topics));
  return cluster;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const group = { members: [member('a', ['orders'], 'A'), member('b', ['orders', 'audit'], 'B')], topics: ['orders'] };

describe('metadata that answers after the budget', () => {
  it('is remembered, asks for a rebalance once, and the next assignment includes its topic', async () => {
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({ weightsTimeoutMs: 30, logger });
    const leader = assigner({ cluster: slowMetadata(150), groupId: 'g', logger: undefined as never });

    const first = decodeAssignments(await leader.assign(group));
    expect([...first.values()].flat().filter((p) => p.startsWith('audit'))).toEqual([]);
    expect(assigner.epochOf('g')).toBe(0);

    await sleep(400);
    expect(assigner.epochOf('g')).toBe(1);
    expect(logger.messages('info').filter((m) => m.includes('arrived after the budget'))).toHaveLength(1);

    // The metadata is slow again: the remembered list stands in, and nothing more is asked for.
    const second = decodeAssignments(await leader.assign(group));
    expect(second.get('b')).toEqual(expect.arrayContaining(['audit:0', 'audit:1']));
    await sleep(400);
    expect(assigner.epochOf('g')).toBe(1);
  });

  it('never stands in for an answer that came in time: a topic listed as empty is not assigned from memory', async () => {
    const assigner = LoadAwareAssigner({ weightsTimeoutMs: 30 });
    const cluster = slowMetadata(150);
    const leader = assigner({ cluster, groupId: 'g', logger: undefined as never });
    await leader.assign(group);
    await sleep(400);
    // The topic is deleted and the metadata now answers in time, without it.
    const inTime = fakeCluster({ orders: 2 });
    const next = assigner({ cluster: inTime, groupId: 'g', logger: undefined as never });
    const result = decodeAssignments(await next.assign(group));
    expect([...result.values()].flat().filter((p) => p.startsWith('audit'))).toEqual([]);
  });
});
