import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { findFreePorts } from './free-ports';
import { generateClusterId, layoutNodes } from './kafka-config';
import { resolveKafkaJars } from './kafka-jars';
import { KafkaNodeRunner, type KafkaNode } from './kafka-node';
import { killStaleProcesses } from './kafka-process';
import { waitForBrokerRegistered, waitForTopicRoundTrip } from './kafka-ready';
import { createEphemeralWorkDir, sweepAbandonedWorkDirs } from './work-dirs';

export type { KafkaNode } from './kafka-node';

/** Kafka release used when neither `options.version` nor `KAFKA_VERSION` names one. */
export const DEFAULT_KAFKA_VERSION = '4.4.0';

/** The 3.9.x release (old group coordinator) that CI also runs the integration suite against. */
export const KAFKA_39_VERSION = '3.9.2';

const READY_TIMEOUT_MS = 90_000;

/** Options of {@link startKafka}; every field has a default suited to a local test run. */
export interface StartKafkaOptions {
  /**
   * Kafka release to run (`org.apache.kafka:kafka_2.13:<version>` from Maven Central). Defaults to
   * `KAFKA_VERSION`, then {@link DEFAULT_KAFKA_VERSION}; 3.9.x and 4.x are supported.
   */
  readonly version?: string;
  /** One combined broker+controller, or three of them forming a quorum (for failover tests). */
  readonly nodes?: 1 | 3;
  /**
   * One rack per node, in `nodeId` order (e.g. `['a', 'b', 'c']`): each node gets its
   * `broker.rack`, and follower fetching (KIP-392) is on, so a consumer with a `rackId` reads from
   * the replica in its rack. Default: no racks.
   */
  readonly racks?: readonly string[];
  /** Where resolved jars are cached between runs. Defaults to `LOAD_AWARE_CACHE`, then `~/.cache/load-aware`. */
  readonly cacheDir?: string;
  /**
   * Directory for configs, data and logs. By default a fresh temp dir that `stop()` deletes (kept
   * when `KEEP_KAFKA_LOGS=1`). A dir given here is never deleted; JVMs and node dirs an earlier
   * run left in it are removed first.
   */
  readonly workDir?: string;
  /** Receives progress lines (jar resolution, readiness, restarts, stop); silent by default. */
  readonly logger?: (line: string) => void;
}

/** A running local Kafka cluster started by {@link startKafka}. */
export interface KafkaCluster {
  /** Kafka release the nodes run. */
  readonly version: string;
  /** KRaft cluster id all nodes were formatted with. */
  readonly clusterId: string;
  /** Bootstrap addresses, `127.0.0.1:<port>` per node. */
  readonly brokers: string[];
  /** The nodes, in `nodeId` order. */
  readonly nodes: ReadonlyArray<KafkaNode>;
  /** Directory holding every node's config, data and logs. */
  readonly workDir: string;
  /** Stops one node (SIGTERM, so it shuts down cleanly) and resolves once its JVM is gone. */
  stopNode(nodeId: number): Promise<void>;
  /** Restarts a stopped node on its old ports and data dir; resolves once it is back in the metadata. */
  startNode(nodeId: number): Promise<void>;
  /** Stops every node, waits for the JVMs to exit, and removes a temporary work dir. */
  stop(): Promise<void>;
}

/**
 * Starts a real KRaft Kafka cluster on loopback from jars resolved through Maven, and resolves
 * once it can create and delete a topic. Every JVM runs under a guard that kills it when this
 * process dies, so an interrupted test run leaves nothing behind.
 *
 * @example
 * const kafka = await startKafka({ nodes: 3 });
 * try {
 *   const client = new Kafka({ brokers: kafka.brokers });
 *   // ...
 * } finally {
 *   await kafka.stop();
 * }
 */
export async function startKafka(options: StartKafkaOptions = {}): Promise<KafkaCluster> {
  const startedAt = Date.now();
  const log = options.logger ?? ((): void => undefined);
  const version = options.version ?? process.env['KAFKA_VERSION'] ?? DEFAULT_KAFKA_VERSION;
  const cacheDir = options.cacheDir ?? process.env['LOAD_AWARE_CACHE'] ?? join(homedir(), '.cache', 'load-aware');
  const jars = await resolveKafkaJars(version, cacheDir, log);

  const ownsWorkDir = options.workDir === undefined;
  let workDir: string;
  if (options.workDir === undefined) {
    for (const dir of await sweepAbandonedWorkDirs()) {
      log(`removed ${dir}, abandoned by an interrupted run`);
    }
    workDir = await createEphemeralWorkDir();
  } else {
    workDir = options.workDir;
    const stale = await killStaleProcesses(workDir);
    if (stale.length > 0) {
      log(`killed stale Kafka processes ${stale.join(', ')} left in ${workDir} by an earlier run`);
    }
  }
  const count = options.nodes ?? 1;
  const layouts = layoutNodes(workDir, count, await findFreePorts(count * 2), options.racks);
  const clusterId = generateClusterId();
  const nodes = layouts.map((layout) => new KafkaNodeRunner(layout, jars));
  const brokers = layouts.map((layout) => `127.0.0.1:${String(layout.port)}`);

  const removeWorkDir = async (): Promise<void> => {
    if (ownsWorkDir && process.env['KEEP_KAFKA_LOGS'] !== '1') {
      await rm(workDir, { recursive: true, force: true });
    }
  };
  const stopAll = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.stop()));
  };

  try {
    await Promise.all(nodes.map((node) => node.prepare(layouts, clusterId)));
    log(`formatted KRaft storage after ${String(Date.now() - startedAt)} ms`);
    await Promise.all(nodes.map((node) => node.start()));
    await waitForTopicRoundTrip({ brokers, timeoutMs: READY_TIMEOUT_MS, failure: () => firstExit(nodes) }, count);
  } catch (error) {
    const tails = await Promise.all(nodes.map((node) => node.logTail()));
    await stopAll();
    await removeWorkDir();
    throw new Error(`Kafka ${version} failed to start in ${workDir}:\n${tails.join('\n')}`, {
      cause: error,
    });
  }
  const nodesText = count === 1 ? '1 node' : `${String(count)} nodes`;
  log(`Kafka ${version} (${nodesText}) ready at ${brokers.join(',')} in ${String(Date.now() - startedAt)} ms`);

  const nodeById = (nodeId: number): KafkaNodeRunner => {
    const node = nodes.find((candidate) => candidate.nodeId === nodeId);
    if (node === undefined) {
      throw new Error(`Unknown nodeId ${String(nodeId)}; this cluster has nodes 1..${String(count)}`);
    }
    return node;
  };
  let stopping: Promise<void> | undefined;
  return {
    version,
    clusterId,
    brokers,
    nodes,
    workDir,
    stopNode: async (nodeId) => {
      await nodeById(nodeId).stop();
      log(`Kafka node ${String(nodeId)} stopped`);
    },
    startNode: async (nodeId) => {
      const node = nodeById(nodeId);
      await node.start();
      try {
        await waitForBrokerRegistered(
          {
            brokers: [`127.0.0.1:${String(node.port)}`],
            timeoutMs: READY_TIMEOUT_MS,
            failure: () => firstExit([node]),
          },
          nodeId,
        );
      } catch (error) {
        throw new Error(`Kafka node ${String(nodeId)} did not rejoin:\n${await node.logTail()}`, { cause: error });
      }
      log(`Kafka node ${String(nodeId)} restarted`);
    },
    stop: () => {
      // Idempotent, so a test's `finally` and a global teardown can both call it.
      stopping ??= (async () => {
        await stopAll();
        await removeWorkDir();
        log(`Kafka ${version} stopped`);
      })();
      return stopping;
    },
  };
}

function firstExit(nodes: readonly KafkaNodeRunner[]): string | undefined {
  const exited = nodes.find((node) => node.hasExited());
  return exited === undefined ? undefined : `Kafka node ${String(exited.nodeId)} exited before it was ready`;
}
