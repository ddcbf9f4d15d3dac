import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { uniqueName } from './support';
import { useDedicatedKafka } from './support/dedicated-kafka';
import { waitForStableGroup } from './support/group';
import { startReliabilityInstance, type ReliabilityInstance } from './support/reliability-instances';
import { createTopicsWithLeaders } from './support/reliability-topics';

/**
 * Load: 52 consumers of 16 instances (4 processes, each hosting 4 instance ids with 4/3/3/3
 * members) over 10 topics of 1000 partitions (10 000 partitions) with a weight for every
 * partition, on a dedicated broker. The group must form, and one more member joining must be
 * absorbed, each well within KafkaJS's default rebalance timeout (60 s); the leader's assign()
 * time is read from its own log line.
 */

const TIMEOUT_MS = 300_000;
const TOPICS = 10;
const PARTITIONS_PER_TOPIC = 1000;
const PARTITIONS = TOPICS * PARTITIONS_PER_TOPIC;
const PROCESSES = 4;
const MEMBERS_PER_INSTANCE = [4, 3, 3, 3];
const DEFAULT_REBALANCE_TIMEOUT_MS = 60_000;

const cluster = useDedicatedKafka({ nodes: 1 }, TIMEOUT_MS);

describe('a large group over 10 000 partitions', () => {
  it(
    'forms, and absorbs one more member, within the default rebalance timeout',
    async () => {
      const brokers = cluster().brokers;
      const admin = new Kafka({ clientId: 'reliability-load', brokers, logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      const dir = await mkdtemp(join(tmpdir(), 'reliability-load-'));
      const processes: ReliabilityInstance[] = [];
      try {
        const topics = Array.from({ length: TOPICS }, (_, i) => uniqueName(`load-${String(i)}`));
        const createdAt = Date.now();
        await createTopicsWithLeaders(
          admin,
          topics.map((topic) => ({ topic, numPartitions: PARTITIONS_PER_TOPIC, replicationFactor: 1 })),
        );
        const topicsMs = Date.now() - createdAt;
        // A weight for every partition: 1..100 in a fixed pattern, so balance() has real work.
        const weights: Record<string, number> = {};
        for (const topic of topics) {
          for (let p = 0; p < PARTITIONS_PER_TOPIC; p++) weights[`${topic}:${String(p)}`] = 1 + ((p * 7919) % 100);
        }
        const weightsFile = join(dir, 'weights.json');
        await writeFile(weightsFile, JSON.stringify({ weights }));
        const groupId = uniqueName('load-group');

        const startedAt = Date.now();
        for (let k = 0; k < PROCESSES; k++) {
          processes.push(
            startReliabilityInstance({
              brokers,
              groupId,
              topics,
              clientId: `load${String(k)}`,
              instances: MEMBERS_PER_INSTANCE.map((members, i) => ({
                instanceId: `pod-${String(k)}-${String(i)}`,
                members,
              })),
              weightsFile,
              // KafkaJS defaults: sessionTimeout 30 s, rebalanceTimeout 60 s, heartbeat 3 s.
              consumer: { maxWaitTimeInMs: 1000 },
              parallelStart: true,
              forwardLogs: ['load-aware assignment:', 'load-aware assignment failed', 'round-robin fallback'],
              lifetimeMs: 280_000,
            }),
          );
        }
        const members = PROCESSES * MEMBERS_PER_INSTANCE.reduce((a, b) => a + b, 0);
        await Promise.all(processes.map((p) => p.waitFor((e) => e.some((x) => x.event === 'ready'), 'ready', 120_000)));
        const readyAt = Date.now();
        const formed = await waitForStableGroup(admin, groupId, members, PARTITIONS, 180_000);
        const formedAt = Date.now();
        expect(formed.protocol).toBe('LoadAwareAssigner');

        // One more member: a single rebalance of the whole group, timed from the join request.
        const assignsBefore = processes.flatMap((p) => p.logs()).length;
        const addedAt = Date.now();
        processes[0]!.send('add');
        const grown = await waitForStableGroup(admin, groupId, members + 1, PARTITIONS, 120_000);
        const rebalancedAt = Date.now();

        const logs = processes.flatMap((p) => p.logs());
        const assignments = logs.filter((l) => l.message.startsWith('load-aware assignment:'));
        const failures = logs.filter((l) => !l.message.startsWith('load-aware assignment:'));
        const durations = assignments.map((l) => l.fields['durationMs'] as number);
        const lastAssign = logs.slice(assignsBefore).filter((l) => l.message.startsWith('load-aware assignment:'));
        const perInstance = new Map<string, { partitions: number; load: number }>();
        for (const m of grown.members) {
          const entry = perInstance.get(m.instanceId ?? '?') ?? { partitions: 0, load: 0 };
          entry.partitions += m.assigned.length;
          entry.load += m.assigned.reduce((sum, p) => sum + (weights[p] ?? 0), 0);
          perInstance.set(m.instanceId ?? '?', entry);
        }
        const counts = [...perInstance.values()].map((e) => e.partitions);
        const loads = [...perInstance.values()].map((e) => e.load);
        process.stdout.write(
          `load: ${String(PARTITIONS)} partitions ready in ${String(topicsMs)} ms; ${String(members)} members of ` +
            `${String(perInstance.size)} instances in ${String(PROCESSES)} processes: all consumers running after ` +
            `${String(readyAt - startedAt)} ms, group Stable ${String(formedAt - startedAt)} ms after start; ` +
            `one more member: Stable again after ${String(rebalancedAt - addedAt)} ms; ${String(assignments.length)} ` +
            `load-aware assignments (assign() ${Math.min(...durations).toFixed(0)}-${Math.max(...durations).toFixed(0)} ms, ` +
            `last ${lastAssign.map((l) => (l.fields['durationMs'] as number).toFixed(0)).join('/')} ms), ` +
            `${String(failures.length)} fallbacks; per instance ${String(Math.min(...counts))}-${String(Math.max(...counts))} ` +
            `partitions, load ${String(Math.min(...loads))}-${String(Math.max(...loads))}\n`,
        );
        expect(failures).toEqual([]);
        expect(perInstance.size).toBeGreaterThanOrEqual(10);
        expect(grown.members).toHaveLength(members + 1);
        expect(Math.max(...durations)).toBeLessThan(DEFAULT_REBALANCE_TIMEOUT_MS);
        expect(rebalancedAt - addedAt).toBeLessThan(DEFAULT_REBALANCE_TIMEOUT_MS);
      } finally {
        await Promise.all(processes.map((p) => p.stop()));
        await admin.disconnect();
        await rm(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});
