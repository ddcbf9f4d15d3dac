import { setTimeout as sleep } from 'node:timers/promises';
import { PartitionAssigners, type Admin, type Cluster, type Consumer, type PartitionAssigner } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import { uniqueName } from './support';
import { useDedicatedKafka } from './support/dedicated-kafka';
import { waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { connectAdminClient, FAILOVER_RETRY } from './support/kafka-client';
import { accountFor, waitForStableGroupThroughFailover } from './support/reliability-instances';
import { produceSequences, readWholeTopic } from './support/reliability-producer';
import { createTopicsWithLeaders } from './support/reliability-topics';
import { eventually } from './support/trigger-instances';

/**
 * A three-node cluster loses the broker that hosts the group coordinator, twice: once cleanly
 * (SIGTERM, controlled shutdown), once by SIGKILL of its JVM. Each time another broker must take
 * the coordinator over, the load-aware group must become Stable again with every member and
 * partition, the trigger must elect exactly one coordinator member again, and no acknowledged
 * message (acks=-1, replication 3, min ISR 2) may go unconsumed.
 */

const TIMEOUT_MS = 240_000;
const PARTITIONS = 6;

const cluster = useDedicatedKafka({ nodes: 3 }, TIMEOUT_MS);

/**
 * The group coordinator, read two ways: the leader of __consumer_offsets-0 and FindCoordinator.
 * Retried for a while: right after a broker loss either answer may still name the lost broker,
 * or a request may hit its closed port (ECONNREFUSED) before the client's metadata catches up.
 */
async function coordinatorOf(admin: Admin, consumerCluster: Cluster, groupId: string): Promise<number> {
  const internals = consumerCluster as unknown as {
    findGroupCoordinatorMetadata(o: { groupId: string }): Promise<{ coordinator: { nodeId: number } }>;
  };
  const deadline = Date.now() + 30_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      // offsets.topic.num.partitions=1 on the test brokers: that partition's leader coordinates every group.
      const { topics } = await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] });
      const leader = topics[0]?.partitions.find((p) => p.partitionId === 0)?.leader;
      const { coordinator } = await internals.findGroupCoordinatorMetadata({ groupId });
      if (coordinator.nodeId === leader) return coordinator.nodeId;
      last = new Error(
        `FindCoordinator says ${String(coordinator.nodeId)}, __consumer_offsets-0 leader is ${String(leader)}`,
      );
    } catch (err) {
      last = err;
    }
    await sleep(500);
  }
  throw last instanceof Error ? last : new Error(String(last));
}

describe('a three-node cluster losing the group coordinator', () => {
  it(
    'moves the coordinator to another broker, the group recovers and nothing is lost (clean stop, then SIGKILL)',
    async () => {
      const kafkaCluster = cluster();
      const { kafka, admin } = await connectAdminClient('reliability-failover', kafkaCluster.brokers, FAILOVER_RETRY);
      const topic = uniqueName('failover');
      const groupId = uniqueName('failover-group');
      const consumers: Consumer[] = [];
      const triggers: TriggerController[] = [];
      const consumed: string[] = [];
      let consumerCluster: Cluster | undefined;
      let producer: ReturnType<typeof produceSequences> | undefined;
      try {
        await createTopicsWithLeaders(admin, [
          {
            topic,
            numPartitions: PARTITIONS,
            replicationFactor: 3,
            configEntries: [{ name: 'min.insync.replicas', value: '2' }],
          },
        ]);
        for (const id of ['a', 'b', 'c']) {
          const assigner = LoadAwareAssigner({ instanceId: `instance-${id}` });
          // Keeps the consumer's own cluster, to ask it who the coordinator is (FindCoordinator).
          const spy: PartitionAssigner = (config) => {
            consumerCluster ??= config.cluster;
            return assigner(config);
          };
          await startGroupConsumer(kafka, {
            groupId,
            topic,
            partitionAssigners: [spy, PartitionAssigners.roundRobin],
            eachMessage: ({ partition, message }) => {
              consumed.push(`${String(partition)}:${message.value?.toString() ?? ''}@${message.offset}`);
              return Promise.resolve();
            },
            created: (consumer) => {
              consumers.push(consumer);
              triggers.push(
                createTriggerController(
                  { target: assigner.triggerTarget(consumer) },
                  { checkIntervalMs: 1000, advise: true },
                ),
              );
            },
          });
        }
        await waitForStableGroup(admin, groupId, 3, PARTITIONS);
        await eventually(() => triggers.filter((t) => t.isCoordinator).length === 1, 'one trigger coordinator', 30_000);
        // Production runs until both losses are over (finish() below), so that "consumption goes
        // on" after a loss always has fresh messages to consume, however long the first loss took;
        // the duration only bounds it.
        producer = produceSequences(kafka, topic, PARTITIONS, 30, 150_000);

        const lines: string[] = [];
        const loseCoordinator = async (how: 'stop' | 'kill'): Promise<void> => {
          await sleep(5000);
          const victim = await coordinatorOf(admin, consumerCluster!, groupId);
          const lostAt = Date.now();
          const countAtLoss = consumed.length;
          if (how === 'stop') {
            await kafkaCluster.stopNode(victim);
          } else {
            const pid = kafkaCluster.nodes[victim - 1]!.pid!;
            process.kill(pid, 'SIGKILL');
            await eventually(() => !kafkaCluster.nodes[victim - 1]!.running, 'the killed JVM to be gone', 30_000);
          }
          const downAt = Date.now();
          await eventually(() => consumed.length > countAtLoss + 30, 'consumption to go on', 90_000);
          const resumedAt = Date.now();
          await waitForStableGroupThroughFailover(admin, groupId, 3, PARTITIONS, 90_000);
          const stableAt = Date.now();
          const successor = await coordinatorOf(admin, consumerCluster!, groupId);
          expect(successor).not.toBe(victim);
          await eventually(
            () => triggers.filter((t) => t.isCoordinator).length === 1,
            'one trigger coordinator again',
            30_000,
          );
          lines.push(
            `${how === 'stop' ? 'clean stop' : 'SIGKILL'} of coordinator broker ${String(victim)} -> ` +
              `broker ${String(successor)} took over; consumption went on ${String(resumedAt - lostAt)} ms and the group ` +
              `was Stable ${String(stableAt - lostAt)} ms after the loss (broker gone after ${String(downAt - lostAt)} ms)`,
          );
          await kafkaCluster.startNode(victim);
        };
        await loseCoordinator('stop');
        await loseCoordinator('kill');

        await sleep(5000);
        const { sent, failedSends } = await producer.finish();
        await eventually(() => accountFor(sent, consumed).missing.length === 0, 'every message consumed', 60_000).catch(
          () => undefined,
        );
        const report = accountFor(sent, consumed);
        // Where did a missing message go: never in the log (the cluster lost it) or skipped?
        const inLog = new Set(
          (await readWholeTopic(kafka, topic, uniqueName('failover-audit'))).map((v) => v.split('@')[0]!),
        );
        const lostByCluster = report.missing.filter((v) => !inLog.has(v));
        process.stdout.write(
          `coordinator failover: ${lines.join('; ')}; ${String(report.produced)} acknowledged, ` +
            `${String(report.missing.length)} missing, ${String(report.redelivered)} redelivered, ` +
            `${String(report.producerDuplicates)} producer duplicates, ${String(failedSends)} failed sends; ` +
            `missing and not in the log: ${JSON.stringify(lostByCluster)}; missing but in the log (skipped by ` +
            `consumers): ${JSON.stringify(report.missing.filter((v) => inLog.has(v)))}\n`,
        );
        expect(report.missing).toEqual([]);
        const group = await waitForStableGroupThroughFailover(admin, groupId, 3, PARTITIONS, 60_000);
        expect(group.protocol).toBe('LoadAwareAssigner');
      } finally {
        await producer?.stop();
        await Promise.allSettled(triggers.map((t) => t.stop()));
        await Promise.allSettled(consumers.map((c) => c.disconnect()));
        await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
        await admin.disconnect();
        // A failed run may leave a node down; jest's retry needs the whole cluster back.
        for (const node of kafkaCluster.nodes) {
          if (!node.running) await kafkaCluster.startNode(node.nodeId);
        }
      }
    },
    TIMEOUT_MS,
  );
});
