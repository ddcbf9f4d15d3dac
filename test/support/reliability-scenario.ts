import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Admin, Kafka } from 'kafkajs';
import type { ReliabilitySpec, ReliabilityWeights } from '../fixtures/reliability-instance';
import { uniqueName } from './index';
import { connectAdminClient } from './kafka-client';
import { startReliabilityInstance, type ReliabilityInstance } from './reliability-instances';
import { createTopicsWithLeaders } from './reliability-topics';
import { writeWeightsFile } from './trigger-instances';

/** One test's topic, group, weights file and consumer processes; `close()` removes them all. */
export interface ReliabilityScenario {
  readonly kafka: Kafka;
  readonly admin: Admin;
  readonly topic: string;
  readonly groupId: string;
  readonly weightsFile: string;
  readonly instances: ReliabilityInstance[];
  setWeights(content: ReliabilityWeights): Promise<void>;
  /** Starts a process with one instance of one member, named `clientId`, and waits for its first join. */
  start(clientId: string, overrides?: Partial<ReliabilitySpec>): Promise<ReliabilityInstance>;
  /** Starts such a process without waiting for anything. */
  launch(clientId: string, overrides?: Partial<ReliabilitySpec>): ReliabilityInstance;
  close(): Promise<void>;
}

/** Options of {@link createReliabilityScenario}. */
export interface ScenarioOptions {
  readonly brokers: string[];
  readonly partitions: number;
  readonly replicationFactor?: number;
  readonly weights: ReliabilityWeights;
  /** Defaults for every process's spec. */
  readonly spec: Partial<ReliabilitySpec>;
}

/** Creates a topic, a group name and a weights file on `brokers`. */
export async function createReliabilityScenario(options: ScenarioOptions): Promise<ReliabilityScenario> {
  const { kafka, admin } = await connectAdminClient('reliability-int', options.brokers, {
    retries: 8,
    initialRetryTime: 300,
    maxRetryTime: 2000,
  });
  const topic = uniqueName('reliability');
  await createTopicsWithLeaders(admin, [
    { topic, numPartitions: options.partitions, replicationFactor: options.replicationFactor ?? 1 },
  ]);
  const dir = await mkdtemp(join(tmpdir(), 'reliability-int-'));
  const weightsFile = join(dir, 'weights.json');
  await writeWeightsFile(weightsFile, options.weights as never);
  const groupId = uniqueName('reliability-group');
  const instances: ReliabilityInstance[] = [];
  const launch = (clientId: string, overrides: Partial<ReliabilitySpec> = {}): ReliabilityInstance => {
    const instance = startReliabilityInstance({
      brokers: options.brokers,
      groupId,
      topics: [topic],
      clientId,
      instances: [{ instanceId: `instance-${clientId}`, members: 1 }],
      weightsFile,
      consumer: { sessionTimeout: 6000, rebalanceTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 200 },
      lifetimeMs: 170_000,
      ...options.spec,
      ...overrides,
    });
    instances.push(instance);
    return instance;
  };
  return {
    kafka,
    admin,
    topic,
    groupId,
    weightsFile,
    instances,
    setWeights: (content) => writeWeightsFile(weightsFile, content as never),
    launch,
    async start(clientId, overrides = {}) {
      const instance = launch(clientId, overrides);
      await instance.waitFor((e) => e.some((x) => x.event === 'join'), 'first join');
      return instance;
    },
    async close() {
      await Promise.all(instances.splice(0).map((i) => i.stop()));
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Registers an `afterAll` in the calling describe block that closes every scenario the returned
 * function created there ({@link ReliabilityScenario.close}: processes, topic, admin, weights file).
 */
export function useReliabilityScenarios(): (options: ScenarioOptions) => Promise<ReliabilityScenario> {
  const scenarios: ReliabilityScenario[] = [];
  afterAll(async () => {
    for (const scenario of scenarios.splice(0)) await scenario.close();
  });
  return async (options) => {
    const scenario = await createReliabilityScenario(options);
    scenarios.push(scenario);
    return scenario;
  };
}

/** Log lines of every instance whose message starts with `prefix`. */
export function linesOf(
  instances: ReadonlyArray<ReliabilityInstance>,
  prefix: string,
): Array<{ at: number; message: string }> {
  return instances
    .flatMap((i) => i.logs())
    .filter((l) => l.message.startsWith(prefix))
    .sort((a, b) => a.at - b.at);
}
