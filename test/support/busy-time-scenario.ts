/**
 * Issue 16's measurement, shared by its integration test and `npm run demo -- --busy-time`: on a
 * real broker and a real Prometheus, per-message cost differs 10× between partitions (awaited
 * work from a seeded cost map) while produce rates, drawn separately, do not follow it. Three
 * consumer instances (each its own registry and /metrics endpoint, scraped by Prometheus like
 * three processes) run three groups in turn on the same traffic: KafkaJS round-robin, load-aware
 * with offset-rate weights, load-aware with busy-time weights (the blend of Prometheus busy time
 * and offset rates). Each phase is judged by *busy time*: the busiest instance's handler seconds
 * over a window ÷ the fair share (total ÷ instances).
 */
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, PartitionAssigners, type Admin, type Consumer, type PartitionAssigner } from 'kafkajs';
import { Registry } from 'prom-client';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { createBlendWeightSource, createBusyTimeRecorder } from '@load-aware/busy-time';
import { BUSY_SECONDS_METRIC, MESSAGES_METRIC } from '@load-aware/busy-time/internal';
import { createOffsetRateWeightSource, type OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { createPrometheusWeightSource } from '@load-aware/weights-prometheus';
import { createRandom } from '@load-aware/test-support';
import { createTopicsWithLeaders, uniqueName } from './index';
import { waitForStableGroup } from './group';
import { startGroupConsumer } from './group-consumer';
import { produceAtRates, type RateProducer } from './offset-rate-producer';
import { startPrometheus, type PrometheusServer } from './prometheus-server';
import { serveMetrics } from './metrics-endpoint';
import { waitForEveryWeight } from './wait';

export const BUSY_TIME_PARTITIONS = 12;
const INSTANCES = ['instance-a', 'instance-b', 'instance-c'] as const;
// 23 ms and 2 ms of timer sleep measure about 23.3 and 2.3 ms per message: 10× apart.
const EXPENSIVE_MS = 23;
const CHEAP_MS = 2;
/** The documented query: each partition's busy seconds per second, summed over processes. */
export const BUSY_QUERY = 'sum by (topic, partition) (rate(load_aware_handler_busy_seconds_total{topic=~"%s"}[20s]))';

/** The traffic and the cost of each partition. */
export interface BusyTimeScenario {
  readonly seed: number;
  /** Awaited work per message, ms, per partition. */
  readonly costMs: number[];
  /** Produced messages per second, per partition: drawn independently of the cost. */
  readonly perSecond: number[];
}

/** Half the partitions expensive, half cheap, shuffled; rates uniform in 4..12/s, drawn apart from the costs. */
export function busyTimeScenario(seed: number): BusyTimeScenario {
  const random = createRandom(seed);
  const costMs: number[] = Array.from({ length: BUSY_TIME_PARTITIONS }, (_, i) =>
    i < BUSY_TIME_PARTITIONS / 2 ? EXPENSIVE_MS : CHEAP_MS,
  );
  for (let i = BUSY_TIME_PARTITIONS - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [costMs[i], costMs[j]] = [costMs[j]!, costMs[i]!];
  }
  const perSecond = Array.from({ length: BUSY_TIME_PARTITIONS }, () => 4 + Math.floor(random.next() * 9));
  return { seed, costMs, perSecond };
}

/** One phase's outcome. */
export interface BusyTimePhase {
  readonly name: 'round-robin' | 'offset-rate' | 'busy-time';
  /** Busy seconds per second of each instance over the window. */
  readonly busyPerSecond: number[];
  /** Busiest instance ÷ fair share, by busy time. */
  readonly busiestRatio: number;
  readonly partitionsPerInstance: number[];
  /** Committed lag of the group at the end of the window, messages. */
  readonly lag: number;
}

/** What {@link runBusyTimeComparison} measured. */
export interface BusyTimeComparison {
  readonly scenario: BusyTimeScenario;
  readonly phases: BusyTimePhase[];
  /** Busy seconds ÷ messages handled over the whole run, ms, per partition. */
  readonly measuredMs: number[];
}

/** Options of {@link runBusyTimeComparison}. */
export interface BusyTimeComparisonOptions {
  readonly brokers: string[];
  readonly seed: number;
  /** Measurement window of each phase, after the group is stable and settled. Default 20000. */
  readonly windowMs?: number;
  /** After the group is stable: let the first fetches and the autocommit settle. Default 5000. */
  readonly settleMs?: number;
  /** Progress lines. Default: none. */
  readonly log?: (line: string) => void;
}

interface Instance {
  readonly id: string;
  readonly registry: Registry;
  readonly server: Server;
  readonly target: string;
}

/**
 * Runs the three phases on a fresh topic and returns their busy-time balance. Starts (and always
 * stops) its own Prometheus, producer, weight sources and consumers; deletes its topic.
 */
export async function runBusyTimeComparison(options: BusyTimeComparisonOptions): Promise<BusyTimeComparison> {
  const { brokers, seed } = options;
  const windowMs = options.windowMs ?? 20_000;
  const settleMs = options.settleMs ?? 5_000;
  const log = options.log ?? (() => undefined);
  const scenario = busyTimeScenario(seed);
  const { costMs, perSecond } = scenario;
  const kafka = new Kafka({ clientId: 'busy-time', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const consumers: Consumer[] = [];
  const instances: Instance[] = [];
  let producer: RateProducer | undefined;
  let prometheus: PrometheusServer | undefined;
  let offsetRate: OffsetRateWeightSource | undefined;
  const topic = uniqueName('busy-time');
  await admin.connect();
  try {
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: BUSY_TIME_PARTITIONS, replicationFactor: 1 }]);
    producer = produceAtRates(
      kafka,
      perSecond.map((rate, partition) => ({ topic, partition, perSecond: rate })),
      3_600_000,
    );
    for (const id of INSTANCES) instances.push(await startInstance(id));
    prometheus = await startPrometheus({ targets: instances.map((i) => i.target) });
    offsetRate = createOffsetRateWeightSource({ kafka, rateIntervalMs: 10_000, sampleIntervalMs: 1_000 }).start();
    const busyTime = createPrometheusWeightSource({ url: prometheus.url, query: BUSY_QUERY, timeoutMs: 3_000 });
    const blend = createBlendWeightSource({ primary: busyTime, fallback: offsetRate, timeoutMs: 3_000 });
    const all = Array.from({ length: BUSY_TIME_PARTITIONS }, (_, partition) => ({ topic, partition }));
    // Ask now, so the sampler has the partitions' rates by the offset-rate phase.
    await offsetRate.getWeights(all);
    const recorders = instances.map((i) => createBusyTimeRecorder({ registry: i.registry }));

    const runPhase = async (
      name: BusyTimePhase['name'],
      assigners: (instanceId: string) => PartitionAssigner[],
    ): Promise<BusyTimePhase> => {
      const groupId = uniqueName(`busy-time-${name}`);
      const phaseConsumers: Consumer[] = [];
      log(`${name}: starting ${String(instances.length)} instances in group ${groupId}`);
      // All three join at once, so the first generation already has every member: joining one by
      // one makes each newcomer wait for the others to finish a batch of slow messages first.
      await Promise.all(
        instances.map((instance, index) =>
          // One client id per instance: how round-robin members are told apart in the group.
          startGroupConsumer(new Kafka({ clientId: instance.id, brokers, logLevel: logLevel.NOTHING }), {
            groupId,
            topic,
            fromBeginning: false,
            partitionAssigners: assigners(instance.id),
            eachMessage: recorders[index]!.eachMessage(({ partition }) =>
              sleep(costMs[partition]).then(() => undefined),
            ),
            created: (consumer) => {
              consumers.push(consumer);
              phaseConsumers.push(consumer);
            },
          }),
        ),
      );
      const group = await waitForStableGroup(admin, groupId, INSTANCES.length, BUSY_TIME_PARTITIONS, 120_000);
      await sleep(settleMs);
      const before = await Promise.all(instances.map((i) => busySeconds(i.registry, topic)));
      const started = Date.now();
      await sleep(windowMs);
      const after = await Promise.all(instances.map((i) => busySeconds(i.registry, topic)));
      const seconds = (Date.now() - started) / 1000;
      const busyPerSecond = after.map((a, i) => (a - before[i]!) / seconds);
      const lag = await groupLag(admin, groupId, topic);
      const partitionsPerInstance = instances.map(() => 0);
      for (const member of group.members) {
        const index = INSTANCES.indexOf(member.clientId as (typeof INSTANCES)[number]);
        if (index >= 0) partitionsPerInstance[index] = member.assigned.length;
      }
      await Promise.allSettled(phaseConsumers.map((c) => c.disconnect()));
      const total = busyPerSecond.reduce((a, b) => a + b, 0);
      const phase = {
        name,
        busyPerSecond,
        busiestRatio: Math.max(...busyPerSecond) / (total / instances.length),
        partitionsPerInstance,
        lag,
      };
      log(`${name}: busiest ÷ fair share by busy time ${phase.busiestRatio.toFixed(3)}`);
      return phase;
    };

    const phases: BusyTimePhase[] = [];
    phases.push(await runPhase('round-robin', () => [PartitionAssigners.roundRobin]));
    await waitForEveryWeight(offsetRate, topic, BUSY_TIME_PARTITIONS, 'offset rates of every partition', 500);
    const byRate = offsetRate;
    phases.push(
      await runPhase('offset-rate', (instanceId) => [
        LoadAwareAssigner({ weights: byRate, instanceId }),
        PartitionAssigners.roundRobin,
      ]),
    );
    // The first two phases handled every partition: Prometheus has their busy time.
    await waitForEveryWeight(busyTime, topic, BUSY_TIME_PARTITIONS, 'busy time of every partition in Prometheus', 500);
    phases.push(
      await runPhase('busy-time', (instanceId) => [
        LoadAwareAssigner({ weights: blend, instanceId }),
        PartitionAssigners.roundRobin,
      ]),
    );
    return { scenario, phases, measuredMs: await measuredCosts(instances, topic) };
  } finally {
    await Promise.allSettled(consumers.map((c) => c.disconnect()));
    await producer?.stop();
    await offsetRate?.stop();
    await prometheus?.stop();
    for (const instance of instances) {
      instance.server.closeAllConnections();
      await new Promise((resolve) => instance.server.close(resolve));
    }
    await admin.deleteTopics({ topics: [topic], timeout: 10_000 }).catch(() => undefined);
    await admin.disconnect();
  }
}

/** The cost map, the measured costs and one table row per phase, as Markdown. */
export function formatBusyTimeComparison(result: BusyTimeComparison): string {
  const { scenario, phases, measuredMs } = result;
  const expected = scenario.costMs.map((c, p) => (c * scenario.perSecond[p]!) / 1000);
  return [
    `Seed ${String(scenario.seed)}: partition → cost per message × produce rate = expected busy s/s (measured ms per message)`,
    ...scenario.costMs.map(
      (c, p) =>
        `  ${String(p).padStart(2)}: ${String(c).padStart(2)} ms × ${String(scenario.perSecond[p]).padStart(2)}/s = ` +
        `${expected[p]!.toFixed(3)}  (${(measuredMs[p] ?? 0).toFixed(2)} ms)`,
    ),
    '',
    '| weights     | busy s/s per instance | partitions per instance | busiest ÷ fair share (busy time) | lag at end |',
    '| ----------- | --------------------- | ----------------------- | -------------------------------: | ---------: |',
    ...phases.map(
      (r) =>
        `| ${r.name.padEnd(11)} | ${r.busyPerSecond.map((b) => b.toFixed(3)).join(' / ')} | ` +
        `${r.partitionsPerInstance.join(' / ')} | ${r.busiestRatio.toFixed(3)} | ${String(r.lag)} |`,
    ),
  ].join('\n');
}

async function startInstance(id: string): Promise<Instance> {
  const registry = new Registry();
  const { server, target } = await serveMetrics(registry);
  return { id, registry, server, target };
}

/** A counter's values for `topic`, by partition. */
async function counterByPartition(registry: Registry, name: string, topic: string): Promise<Map<number, number>> {
  const metric = registry.getSingleMetric(name);
  const values = metric === undefined ? [] : (await metric.get()).values;
  const out = new Map<number, number>();
  for (const v of values) if (v.labels['topic'] === topic) out.set(Number(v.labels['partition']), v.value);
  return out;
}

async function busySeconds(registry: Registry, topic: string): Promise<number> {
  let sum = 0;
  for (const v of (await counterByPartition(registry, BUSY_SECONDS_METRIC.wall, topic)).values()) sum += v;
  return sum;
}

async function measuredCosts(instances: ReadonlyArray<Instance>, topic: string): Promise<number[]> {
  const busy = new Map<number, number>();
  const handled = new Map<number, number>();
  for (const instance of instances) {
    for (const [p, v] of await counterByPartition(instance.registry, BUSY_SECONDS_METRIC.wall, topic)) {
      busy.set(p, (busy.get(p) ?? 0) + v);
    }
    for (const [p, v] of await counterByPartition(instance.registry, MESSAGES_METRIC, topic)) {
      handled.set(p, (handled.get(p) ?? 0) + v);
    }
  }
  return Array.from(
    { length: BUSY_TIME_PARTITIONS },
    (_, p) => ((busy.get(p) ?? 0) / Math.max(1, handled.get(p) ?? 0)) * 1000,
  );
}

/** Sum over partitions of (end offset − committed offset); a partition never committed counts from 0. */
async function groupLag(admin: Admin, groupId: string, topic: string): Promise<number> {
  const [committed, ends] = await Promise.all([
    admin.fetchOffsets({ groupId, topics: [topic] }),
    admin.fetchTopicOffsets(topic),
  ]);
  const committedOf = new Map(
    (committed[0]?.partitions ?? []).map((p) => [p.partition, Math.max(0, Number(p.offset))]),
  );
  return ends.reduce((sum, e) => sum + Math.max(0, Number(e.high) - (committedOf.get(e.partition) ?? 0)), 0);
}
