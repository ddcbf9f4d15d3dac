import type { Server } from 'node:http';
import type { Consumer, EachMessageHandler, Kafka } from 'kafkajs';
import { Registry } from 'prom-client';
import { LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import { createBusyTimeRecorder, type BusyTimeRecorder } from '@load-aware/busy-time';
import {
  createTriggerController,
  type MeasuredCapacityOptions,
  type SizingOptions,
  type TriggerController,
} from '@load-aware/trigger';
import { recordingLogger, type RecordingLogger } from '@load-aware/test-support';
import { startGroupConsumer } from './group-consumer';
import { serveMetrics } from './metrics-endpoint';
import { waitUntil } from './wait';

/**
 * A real consumer group whose trigger controllers size it (the `sizing` option), run in this
 * process as "pods": each pod is one instance id with its own consumers, prom-client registry and
 * recording logger, as one process of a deployment would be. Weights are an input here (a
 * {@link SettableWeights} the test sets); the broker, the group and the trigger are real.
 */

/** A weight source that answers what the test last set, keyed `topic:partition`. */
export interface SettableWeights extends WeightSource {
  set(weights: Readonly<Record<string, number>>): void;
}

/** A {@link SettableWeights} starting at `initial`; partitions it has no weight for are left out. */
export function settableWeights(initial: Readonly<Record<string, number>>): SettableWeights {
  let current = initial;
  return {
    set(weights) {
      current = weights;
    },
    getWeights: (partitions) =>
      Promise.resolve(
        partitions.flatMap((p) => {
          const weight = current[`${p.topic}:${String(p.partition)}`];
          return weight === undefined ? [] : [{ ...p, weight }];
        }),
      ),
  };
}

/** One pod of a {@link SizedGroup}. */
export interface SizedPod {
  readonly instanceId: string;
  readonly registry: Registry;
  readonly logger: RecordingLogger;
  /** One controller per consumer of this pod. */
  readonly triggers: ReadonlyArray<TriggerController>;
  /** `127.0.0.1:<port>` serving `registry` on `/metrics`, when started with `serveMetrics`. */
  readonly target: string | undefined;
  /** The pod's busy-time recorder on `registry`, when started with `busyTime`. */
  readonly busyTime: BusyTimeRecorder | undefined;
}

/** Options of {@link startSizedGroup}. */
export interface SizedGroupOptions {
  readonly kafka: Kafka;
  readonly groupId: string;
  readonly topic: string;
  readonly weights: WeightSource;
  readonly sizing: SizingOptions;
  /**
   * Measure each pod's handler with its own busy-time recorder (on the pod's registry, as one
   * process would) and give the controllers `sizing.measured` with it and these settings.
   */
  readonly busyTime?: Omit<MeasuredCapacityOptions, 'busyTime'>;
  /** Consumers of each pod, e.g. `[2, 2]`: two pods of two members. */
  readonly membersPerPod: ReadonlyArray<number>;
  /** Serve each pod's registry over HTTP on a free loopback port, for a real Prometheus to scrape. */
  readonly serveMetrics: boolean;
  /** Every consumer's handler; default: messages are ignored. */
  readonly eachMessage?: EachMessageHandler;
  /** Every consumer's commit interval (ms); default: KafkaJS's, once per batch. */
  readonly autoCommitInterval?: number;
}

/** A started {@link startSizedGroup} group. */
export interface SizedGroup {
  readonly pods: ReadonlyArray<SizedPod>;
  /** The pod and controller of the trigger coordinator, once exactly one controller holds the role. */
  coordinator(timeoutMs?: number): Promise<{ pod: SizedPod; trigger: TriggerController }>;
  /** Stops the controllers, disconnects the consumers and closes the metrics servers. Idempotent. */
  close(): Promise<void>;
}

/** Checks every second, so a test sees a new answer within seconds. */
const CHECK_INTERVAL_MS = 1000;

/**
 * Starts the pods one consumer at a time (joins run in the background: wait for the group with
 * waitForStableGroup). The controllers run in advise mode: sizing is judged at every check
 * either way, and a fire would only add rebalances the tests do not look at.
 */
export async function startSizedGroup(options: SizedGroupOptions): Promise<SizedGroup> {
  const pods: SizedPod[] = [];
  const consumers: Consumer[] = [];
  const servers: Server[] = [];
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      await Promise.allSettled(pods.flatMap((p) => p.triggers.map((t) => t.stop())));
      await Promise.allSettled(consumers.map((c) => c.disconnect()));
      await Promise.allSettled(servers.map(closeServer));
    })());
  try {
    for (const [index, members] of options.membersPerPod.entries()) {
      const instanceId = `pod-${String(index)}`;
      const registry = new Registry();
      const logger = recordingLogger();
      const triggers: TriggerController[] = [];
      const endpoint = options.serveMetrics ? await serveMetrics(registry) : undefined;
      if (endpoint !== undefined) servers.push(endpoint.server);
      const busyTime = options.busyTime === undefined ? undefined : createBusyTimeRecorder({ registry });
      pods.push({ instanceId, registry, logger, triggers, target: endpoint?.target, busyTime });
      const sizing: SizingOptions =
        busyTime === undefined ? options.sizing : { ...options.sizing, measured: { ...options.busyTime!, busyTime } };
      const handler = options.eachMessage ?? (() => Promise.resolve());
      const assigner = LoadAwareAssigner({ instanceId, weights: options.weights });
      for (let m = 0; m < members; m++) {
        await startGroupConsumer(options.kafka, {
          groupId: options.groupId,
          topic: options.topic,
          partitionAssigners: [assigner],
          eachMessage: busyTime === undefined ? handler : busyTime.eachMessage(handler),
          ...(options.autoCommitInterval === undefined ? {} : { autoCommitInterval: options.autoCommitInterval }),
          created: (consumer) => {
            consumers.push(consumer);
            triggers.push(
              createTriggerController(
                { target: assigner.triggerTarget(consumer) },
                { checkIntervalMs: CHECK_INTERVAL_MS, advise: true, sizing, registry, logger },
              ),
            );
          },
        });
      }
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    pods,
    async coordinator(timeoutMs = 30_000) {
      return waitUntil(
        () => {
          const held = pods.flatMap((pod) =>
            pod.triggers.filter((t) => t.isCoordinator).map((trigger) => ({ pod, trigger })),
          );
          return Promise.resolve(held.length === 1 ? held[0] : undefined);
        },
        `one trigger coordinator in group ${options.groupId}`,
        timeoutMs,
      );
    },
    close,
  };
}

/** The value of gauge `name` for `group` in `registry`, undefined while it has no such series. */
export async function gaugeValue(registry: Registry, name: string, group: string): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return undefined;
  return (await metric.get()).values.find((v) => v.labels['group'] === group)?.value;
}

async function closeServer(server: Server): Promise<void> {
  // Prometheus keeps its scrape connections open; close them, or close() waits for them.
  server.closeAllConnections();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
}
