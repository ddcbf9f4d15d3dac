import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { ThresholdTriggerOptions } from '@load-aware/trigger';
import type { WeightsFile } from '../fixtures/trigger-instance';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './index';
import { startTriggerInstance, writeWeightsFile, type TriggerInstance } from './trigger-instances';

/** Timing of the trigger integration tests: short enough for a fast suite, long enough to be calm. */
export interface TriggerTiming {
  checkIntervalMs: number;
  sessionTimeoutMs: number;
  trigger: ThresholdTriggerOptions;
  /** When the instances' triggers attach (see the fixture); default right away. */
  attach?: 'start' | 'command';
  /** The instances join as static members; default false. */
  staticMembership?: boolean;
}

/** One test's topic, group, weights file and instance processes; `close()` removes them all. */
export interface TriggerScenario {
  readonly admin: Admin;
  readonly topic: string;
  readonly groupId: string;
  readonly weightsFile: string;
  readonly instances: TriggerInstance[];
  setWeights(content: WeightsFile): Promise<void>;
  /**
   * Starts one instance per client id, each after the previous one joined: the first becomes the
   * group leader, and the smallest client id's member becomes the trigger coordinator. Each runs
   * as instance `instance-<clientId>` unless `instanceOf` names another (two processes given the
   * same one are two members of one instance).
   */
  start(clientIds: string[], instanceOf?: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

/** Creates a topic of `partitions` partitions, a group name and a weights file. */
export async function createTriggerScenario(
  partitions: number,
  weights: WeightsFile,
  timing: TriggerTiming,
): Promise<TriggerScenario> {
  const brokers = kafkaBrokersFromEnv();
  const admin = new Kafka({ clientId: 'trigger-int', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const topic = uniqueName('trigger');
  await createTopicsWithLeaders(admin, [{ topic, numPartitions: partitions, replicationFactor: 1 }]);
  const dir = await mkdtemp(join(tmpdir(), 'trigger-int-'));
  const weightsFile = join(dir, 'weights.json');
  await writeWeightsFile(weightsFile, weights);
  const groupId = uniqueName('trigger-group');
  const instances: TriggerInstance[] = [];
  return {
    admin,
    topic,
    groupId,
    weightsFile,
    instances,
    setWeights: (content) => writeWeightsFile(weightsFile, content),
    async start(clientIds, instanceOf = {}) {
      for (const clientId of clientIds) {
        const instance = startTriggerInstance({
          brokers,
          groupId,
          topic,
          clientId,
          instanceId: instanceOf[clientId] ?? `instance-${clientId}`,
          weightsFile,
          checkIntervalMs: timing.checkIntervalMs,
          trigger: timing.trigger,
          sessionTimeoutMs: timing.sessionTimeoutMs,
          lifetimeMs: 110_000,
          attach: timing.attach ?? 'start',
          staticMembership: timing.staticMembership ?? false,
        });
        instances.push(instance);
        await instance.waitFor((e) => e.some((x) => x.event === 'join'), 'first join');
      }
    },
    async close() {
      await Promise.all(instances.splice(0).map((i) => i.stop()));
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Sum of the coordinator gauges of the instances still running. */
export function coordinatorSum(instances: ReadonlyArray<TriggerInstance>): number {
  return instances.reduce((sum, i) => sum + i.coordinator(), 0);
}

/** Every log line of `instance` whose message starts with `prefix`, optionally after `since`. */
export function linesStarting(instance: TriggerInstance, prefix: string, since = 0): string[] {
  return instance
    .logs()
    .filter((l) => l.at >= since && l.message.startsWith(prefix))
    .map((l) => l.message);
}
