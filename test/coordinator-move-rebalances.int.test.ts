import { setTimeout as sleep } from 'node:timers/promises';
import { PartitionAssigners, type Admin, type Consumer } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { uniqueName } from './support';
import { useDedicatedKafka } from './support/dedicated-kafka';
import { describeGroup, waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { connectAdminClient, FAILOVER_RETRY } from './support/kafka-client';
import { waitForStableGroupThroughFailover } from './support/reliability-instances';
import { createTopicsWithLeaders } from './support/reliability-topics';
import { eventually } from './support/trigger-instances';

/**
 * How many rebalances a group coordinator move costs. KafkaJS answers NOT_COORDINATOR by
 * re-sending JoinGroup to the new coordinator, and the broker rebalances the whole group when a
 * follower rejoins a Stable group with metadata different from what it sent last, or when the
 * leader rejoins. Members report the partitions they own in their userData, and those change
 * between generations, so this test sets up the hard case on purpose: two members join, a third
 * joins, and the first two lose partitions in that rebalance (what they own is no longer what
 * their stored metadata says). Then the coordinator's broker stops.
 *
 * A rebalance is counted when every consumer of the group has joined again (a lone follower
 * whose rejoin changed nothing joins alone and is not a rebalance). The leader's own rejoin
 * always costs one rebalance (the broker treats a leader's JoinGroup as a request for one); the
 * target is that load-aware adds none on top, and that the partitions stay where they were.
 */

const TIMEOUT_MS = 240_000;
const PARTITIONS = 12;
/** How long after the loss rejoins are still counted: well past KafkaJS's retries settling. */
const OBSERVE_MS = 25_000;

const cluster = useDedicatedKafka({ nodes: 3 }, TIMEOUT_MS);

async function coordinatorNode(admin: Admin): Promise<number> {
  // offsets.topic.num.partitions=1 on the test brokers: that partition's leader coordinates every group.
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { topics } = await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] }).catch(() => ({ topics: [] }));
    const leader = topics[0]?.partitions.find((p) => p.partitionId === 0)?.leader;
    if (leader !== undefined && leader >= 0) return leader;
    await sleep(500);
  }
  throw new Error('no leader for __consumer_offsets-0');
}

interface Joined {
  readonly at: number;
  readonly assignment: string[];
}

describe('a group coordinator move', () => {
  // Static members (KIP-345) send their group instance id with every group request, and the new
  // coordinator loads the instance-id mapping from the log: the same bound holds.
  it.each([
    ['dynamic', false],
    ['static', true],
  ])(
    'costs no rebalance beyond the one the leader rejoin makes, and moves no partition (%s members)',
    async (mode, staticMembership) => {
      const kafkaCluster = cluster();
      const { kafka, admin } = await connectAdminClient('coordinator-move', kafkaCluster.brokers, FAILOVER_RETRY);
      const topic = uniqueName('coordinator-move');
      const groupId = uniqueName('coordinator-move-group');
      const consumers: Consumer[] = [];
      const joins = new Map<string, Joined[]>();
      try {
        await createTopicsWithLeaders(admin, [{ topic, numPartitions: PARTITIONS, replicationFactor: 3 }]);
        const startInstance = async (id: string): Promise<void> => {
          const history: Joined[] = [];
          joins.set(id, history);
          await startGroupConsumer(kafka, {
            groupId,
            topic,
            partitionAssigners: [
              LoadAwareAssigner({ instanceId: `instance-${id}`, staticMembership }),
              PartitionAssigners.roundRobin,
            ],
            created: (consumer) => {
              consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
                const assignment = Object.entries(payload.memberAssignment)
                  .flatMap(([t, ps]) => ps.map((p) => `${t}:${String(p)}`))
                  .sort();
                history.push({ at: Date.now(), assignment });
              });
              consumers.push(consumer);
            },
          });
        };
        await startInstance('a');
        await startInstance('b');
        await waitForStableGroup(admin, groupId, 2, PARTITIONS);
        await startInstance('c');
        await waitForStableGroup(admin, groupId, 3, PARTITIONS);
        await sleep(3000); // heartbeats settle; nothing else is pending
        const before = await describeGroup(admin, groupId);
        const ownerBefore = ownerMap(before.members);

        const victim = await coordinatorNode(admin);
        const lostAt = Date.now();
        await kafkaCluster.stopNode(victim);
        await sleep(OBSERVE_MS);
        const after = await waitForStableGroupThroughFailover(admin, groupId, 3, PARTITIONS, 90_000);
        await eventually(() => after.state === 'Stable', 'the group Stable after the move', 1000);
        const successor = await coordinatorNode(admin);
        expect(successor).not.toBe(victim);

        const joinsAfter = [...joins.values()].map((h) => h.filter((j) => j.at >= lostAt).length);
        const rebalances = Math.min(...joinsAfter);
        const ownerAfter = ownerMap(after.members);
        const moved = [...ownerBefore].filter(([p, instance]) => ownerAfter.get(p) !== instance).length;
        process.stdout.write(
          `coordinator move (${mode}) ${String(victim)} -> ${String(successor)}: rebalances ${String(rebalances)} ` +
            `(joins per consumer ${JSON.stringify(joinsAfter)}), partitions moved ${String(moved)} of ${String(PARTITIONS)}\n`,
        );
        expect(rebalances).toBeLessThanOrEqual(1);
        expect(moved).toBe(0);
        await kafkaCluster.startNode(victim);
      } finally {
        await Promise.allSettled(consumers.map((c) => c.disconnect()));
        await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
        await admin.disconnect();
      }
    },
    TIMEOUT_MS,
  );
});

/** Partition → the instance holding it, from a described group. */
function ownerMap(members: ReadonlyArray<{ instanceId: string | undefined; assigned: string[] }>): Map<string, string> {
  const owners = new Map<string, string>();
  for (const m of members) for (const p of m.assigned) owners.set(p, m.instanceId ?? '?');
  return owners;
}
