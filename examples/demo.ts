/**
 * The quick-start demo: a local Kafka broker, a topic with skewed (Zipf-like) partition weights,
 * and two consumer instances in separate processes, one running 1 member and one running 3.
 * The same group layout is run first with KafkaJS's round-robin assigner, then with the
 * load-aware assigner, and the resulting per-instance load is printed side by side.
 *
 * Usage: node examples/.build/demo.js [--brokers host:port,...]
 * Without --brokers it fetches (first run only) and starts a local broker, and always stops it.
 */
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { startKafka, uniqueName, type KafkaCluster } from '@load-aware/integration-tests';
import { waitForStableGroup, type ObservedGroup } from '@load-aware/integration-tests/group';
import { startInstance, type InstanceProcess } from '@load-aware/integration-tests/instance-process';

const PARTITIONS = 12;
const INSTANCES = [
  { instanceId: 'instance-a', members: 1 },
  { instanceId: 'instance-b', members: 3 },
] as const;

/** Zipf-like traffic: partition p carries about 1/(p+1) of the hottest partition's events/s. */
function skewedWeights(topic: string): Record<string, number> {
  return Object.fromEntries(
    Array.from({ length: PARTITIONS }, (_, p) => [`${topic}:${String(p)}`, Math.round(1200 / (p + 1))]),
  );
}

interface Placement {
  assigner: string;
  rows: Array<{ instanceId: string; members: number; partitions: number; load: number }>;
  total: number;
}

function placementOf(assigner: string, group: ObservedGroup, weights: Record<string, number>): Placement {
  const rows = INSTANCES.map(({ instanceId, members }) => {
    // The fixture names its KafkaJS client after its instance, which works for both assigners.
    const assigned = group.members.filter((m) => m.clientId === instanceId).flatMap((m) => m.assigned);
    return {
      instanceId,
      members,
      partitions: assigned.length,
      load: assigned.reduce((s, p) => s + (weights[p] ?? 0), 0),
    };
  });
  return { assigner, rows, total: rows.reduce((s, r) => s + r.load, 0) };
}

function printPlacement(p: Placement): void {
  const ideal = p.total / p.rows.length;
  console.log(`\n${p.assigner}`);
  for (const r of p.rows) {
    const share = ((100 * r.load) / p.total).toFixed(1).padStart(5);
    console.log(
      `  ${r.instanceId}  ${String(r.members)} member(s)  ${String(r.partitions).padStart(2)} partitions  load ${String(r.load).padStart(5)} events/s  (${share}% of total)`,
    );
  }
  const max = Math.max(...p.rows.map((r) => r.load));
  console.log(`  busiest instance carries ${(max / ideal).toFixed(2)}x its fair share`);
}

async function runPhase(
  assigner: 'round-robin' | 'load-aware',
  brokers: string[],
  admin: Admin,
  topic: string,
  weights: Record<string, number>,
): Promise<Placement> {
  const groupId = uniqueName(`demo-${assigner}`);
  const instances: InstanceProcess[] = INSTANCES.map((i) =>
    startInstance({ ...i, brokers, groupId, topic, weights, lifetimeMs: 90_000, assigner }),
  );
  try {
    await Promise.all(instances.map((i) => i.ready));
    const group = await waitForStableGroup(admin, groupId, 4, PARTITIONS);
    return placementOf(assigner === 'round-robin' ? 'KafkaJS round-robin' : 'load-aware', group, weights);
  } finally {
    await Promise.all(instances.map((i) => i.stop()));
  }
}

async function main(): Promise<void> {
  const brokersFlag = process.argv.indexOf('--brokers');
  let cluster: KafkaCluster | undefined;
  let brokers: string[];
  if (brokersFlag >= 0 && process.argv[brokersFlag + 1] !== undefined) {
    brokers = process.argv[brokersFlag + 1]!.split(',');
  } else {
    console.log('Starting a local Kafka broker (the first run downloads it with Maven)...');
    cluster = await startKafka();
    brokers = cluster.brokers;
    console.log(`Kafka ${cluster.version} at ${brokers.join(',')}`);
  }
  const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    const topic = uniqueName('demo');
    await admin.createTopics({
      topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    const weights = skewedWeights(topic);
    console.log(`Topic ${topic}: ${String(PARTITIONS)} partitions, weights ${Object.values(weights).join(', ')}`);
    console.log('Two instances: instance-a runs 1 consumer, instance-b runs 3 (separate processes).');
    const results = [];
    for (const assigner of ['round-robin', 'load-aware'] as const) {
      const placement = await runPhase(assigner, brokers, admin, topic, weights);
      printPlacement(placement);
      results.push(placement);
    }
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    const [rr, ours] = results.map((p) => Math.max(...p.rows.map((r) => r.load)) / (p.total / p.rows.length));
    console.log(`\nBusiest instance vs fair share: round-robin ${rr!.toFixed(2)}x, load-aware ${ours!.toFixed(2)}x`);
  } finally {
    await admin.disconnect();
    await cluster?.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
