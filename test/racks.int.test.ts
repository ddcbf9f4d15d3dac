import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, PartitionAssigners, type Admin } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { markdownTable } from '@load-aware/test-support';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { uniqueName } from './support';
import { useDedicatedKafka } from './support/dedicated-kafka';
import { waitForStableGroup } from './support/group';
import { produceAtRates, type RateProducer } from './support/offset-rate-producer';
import { startRackGroup, type RackGroup } from './support/rack-group';
import { measureRackTraffic, type RackTraffic, type TopicLayout } from './support/rack-traffic';
import { placeReplicasByLoad, zipfRates } from './support/rack-workload';
import { createTopicsWithLeaders } from './support/reliability-topics';
import { eventually, waitForEveryWeight } from './support/wait';

/**
 * Issue 26, the real-broker target: three brokers in racks a, b and c with follower fetching on,
 * three instances (one consumer each, one per rack, KafkaJS `rackId` set), Zipf-skewed traffic on
 * a topic with replication factor 1 and one with 2. Load-aware (its `rack` set to the consumer's
 * `rackId`) and KafkaJS's round-robin consume the same topics at the same time in groups of their
 * own; every Fetch response each member receives is counted by the rack of the broker it came
 * from. The table goes to stdout and into BENCHMARKS.md ("Racks on a real cluster").
 */

const RACKS = ['a', 'b', 'c'] as const;
/**
 * Zipf with exponent 1 over 24 partitions: the busiest carries 26 % of the traffic, and placed by
 * load the racks' traffic is within 1 % of even, well inside the assigner's balance tolerance, so
 * a few percent of noise in the measured rates does not tip it into moving partitions off their racks.
 */
const PARTITIONS = 24;
const RATES = zipfRates(PARTITIONS, 96, 1, 26);
const VALUE_BYTES = 1024;
/** The offset-rate window the assigner weighs with; the producer runs this long before any join. */
const RATE_INTERVAL_MS = 8000;
/** After the groups settle: RF 2 members move to their preferred replica on their first fetch. */
const SETTLE_MS = 3000;
const MEASURE_MS = 15_000;
const TIMEOUT_MS = 180_000;

const cluster = useDedicatedKafka({ nodes: 3, racks: RACKS }, 150_000);

type AssignerKind = 'load-aware' | 'round-robin';

interface Run {
  readonly kind: AssignerKind;
  readonly replicationFactor: number;
  readonly group: RackGroup;
  readonly layout: TopicLayout;
}

async function createRackTopic(
  admin: Admin,
  replicationFactor: number,
  rackOfNode: ReadonlyMap<number, string>,
): Promise<{ topic: string; layout: TopicLayout }> {
  const topic = uniqueName(`racks-rf${String(replicationFactor)}`);
  const replicaAssignment = placeReplicasByLoad(RATES, [...rackOfNode.keys()], replicationFactor);
  await createTopicsWithLeaders(admin, [{ topic, replicaAssignment }]);
  const partitionRacks = replicaAssignment.map(({ replicas }) => replicas.map((node) => rackOfNode.get(node)!));
  return { topic, layout: { partitionRacks, rates: RATES } };
}

function formatRow(run: Run, traffic: RackTraffic): string[] {
  const percent = (share: number): string => `${(share * 100).toFixed(1)} %`;
  return [
    run.kind,
    String(run.replicationFactor),
    percent(traffic.crossRackShare),
    percent(traffic.expectedCrossRackShare),
    traffic.busiestOverIdeal.toFixed(3),
    (traffic.totalBytes / 1e6).toFixed(1),
    traffic.members.map((m) => `${m.rack}:[${m.partitions.join(',')}]`).join(' '),
  ];
}

describe('three racks with follower fetching, one instance per rack, Zipf traffic', () => {
  it(
    'load-aware keeps cross-rack fetch bytes at 10 % or less of the total with the busiest instance within 1.1 of the even share; round-robin is measured beside it',
    async () => {
      const kafkaCluster = cluster();
      const kafka = new Kafka({
        clientId: uniqueName('racks'),
        brokers: kafkaCluster.brokers,
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await admin.connect();
      const rackOfNode = new Map(kafkaCluster.nodes.map((node) => [node.nodeId, node.rack!]));
      const rackOfBroker = new Map(kafkaCluster.nodes.map((node) => [`127.0.0.1:${String(node.port)}`, node.rack!]));
      const topics: string[] = [];
      const runs: Run[] = [];
      let producer: RateProducer | undefined;
      let weights: OffsetRateWeightSource | undefined;
      try {
        const created = await Promise.all([1, 2].map((rf) => createRackTopic(admin, rf, rackOfNode)));
        topics.push(...created.map((c) => c.topic));
        const producedAt = Date.now();
        producer = produceAtRates(
          kafka,
          created.flatMap(({ topic }) => RATES.map((perSecond, partition) => ({ topic, partition, perSecond }))),
          120_000,
          100,
          VALUE_BYTES,
        );
        weights = createOffsetRateWeightSource({
          kafka,
          rateIntervalMs: RATE_INTERVAL_MS,
          sampleIntervalMs: 1000,
        }).start();
        const source = weights;
        for (const { topic } of created) {
          await waitForEveryWeight(source, topic, PARTITIONS, `offset rates of ${topic}`, 500);
        }
        // A full rate window, so the first assignment already weighs the Zipf rates.
        await sleep(Math.max(0, producedAt + RATE_INTERVAL_MS + 1000 - Date.now()));

        const started = await Promise.allSettled(
          created.flatMap(({ topic, layout }, index) =>
            (['load-aware', 'round-robin'] as const).map(async (kind): Promise<Run> => {
              const groupId = uniqueName(`racks-${kind}`);
              const group = await startRackGroup(kafka, {
                groupId,
                topic,
                racks: RACKS,
                assigners: (rack) =>
                  kind === 'round-robin'
                    ? [PartitionAssigners.roundRobin]
                    : [
                        LoadAwareAssigner({ instanceId: `${groupId}-${rack}`, weights: source, rack }),
                        PartitionAssigners.roundRobin,
                      ],
              });
              return { kind, replicationFactor: index + 1, group, layout };
            }),
          ),
        );
        // Every group that started is stopped in `finally`, even when another failed to start.
        for (const result of started) if (result.status === 'fulfilled') runs.push(result.value);
        const failed = started.find((result) => result.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
        for (const run of runs) {
          await waitForStableGroup(admin, run.group.groupId, RACKS.length, PARTITIONS);
          const held = (): number => run.group.members.reduce((n, m) => n + m.assigned().length, 0);
          // The GROUP_JOIN events that carry each member's assignment may trail the described group.
          await eventually(
            () => held() === PARTITIONS,
            `every member of ${run.group.groupId} to see its assignment`,
            10_000,
          );
        }
        const fingerprint = (): string => JSON.stringify(runs.map((r) => r.group.members.map((m) => m.assigned())));
        const before = fingerprint();

        await sleep(SETTLE_MS);
        for (const run of runs) for (const member of run.group.members) member.fetched.reset();
        await sleep(MEASURE_MS);
        const measured = runs.map((run) => ({ run, traffic: measureRackTraffic(run.group, rackOfBroker, run.layout) }));
        // A rebalance inside the window would mix two assignments into one figure.
        expect(fingerprint()).toBe(before);

        process.stdout.write(
          `\nKafka ${kafkaCluster.version}, racks ${RACKS.join('/')}, ${String(PARTITIONS)} partitions, ` +
            `Zipf rates ${RATES.join(',')} msg/s of ${String(VALUE_BYTES)} B, ${String(MEASURE_MS / 1000)} s window\n` +
            markdownTable(
              [
                'assigner',
                'RF',
                'cross-rack bytes',
                'expected by assignment',
                'busiest ÷ ideal',
                'MB fetched',
                'partitions',
              ],
              measured.map(({ run, traffic }) => formatRow(run, traffic)),
              new Set([1, 2, 3, 4, 5]),
            ) +
            '\n',
        );

        for (const { traffic } of measured) {
          // Members read where the assignment and follower fetching say they should: the bytes
          // counted on the wire match the share implied by the replicas' racks.
          expect(Math.abs(traffic.crossRackShare - traffic.expectedCrossRackShare)).toBeLessThanOrEqual(0.05);
          expect(traffic.totalBytes).toBeGreaterThan(0);
        }
        const find = (kind: AssignerKind, rf: number): RackTraffic =>
          measured.find(({ run }) => run.kind === kind && run.replicationFactor === rf)!.traffic;
        // The target is RF 1; with RF 2 every partition has a replica in two of the three
        // racks, so the same bounds hold with room to spare.
        for (const rf of [1, 2]) {
          const ours = find('load-aware', rf);
          expect(ours.crossRackShare).toBeLessThanOrEqual(0.1);
          expect(ours.busiestOverIdeal).toBeLessThanOrEqual(1.1);
          expect(ours.crossRackShare).toBeLessThan(find('round-robin', rf).crossRackShare);
        }
      } finally {
        await Promise.allSettled(runs.map((run) => run.group.stop()));
        await producer?.stop();
        await weights?.stop();
        await admin.deleteTopics({ topics, timeout: 10_000 }).catch(() => undefined);
        await admin.disconnect();
      }
    },
    TIMEOUT_MS,
  );
});
