import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

import { findFreePorts } from './free-ports';
import {
  generateClusterId,
  JVM_FLAGS,
  layoutNodes,
  renderLoggingConfig,
  renderServerProperties,
  type LoggingConfig,
  type NodeLayout,
} from './kafka-config';
import { resolveKafkaJars, type KafkaJars } from './kafka-jars';
import { killStaleProcesses, spawnGuarded, stopGuarded, type GuardedProcess } from './kafka-process';
import { waitForBrokerRegistered, waitForTopicRoundTrip } from './kafka-ready';

/** Kafka release used when neither `options.version` nor `KAFKA_VERSION` names one. */
export const DEFAULT_KAFKA_VERSION = '4.4.0';

const READY_TIMEOUT_MS = 90_000;

/** Options of {@link startKafka}; every field has a default suited to a local test run. */
export interface StartKafkaOptions {
  /** Kafka release to run (`org.apache.kafka:kafka_2.13:<version>`); defaults to `KAFKA_VERSION`, then {@link DEFAULT_KAFKA_VERSION}. */
  readonly version?: string;
  /** One combined broker+controller, or three of them forming a quorum (for failover tests). */
  readonly nodes?: 1 | 3;
  /** Where resolved jars are cached between runs; defaults to `LOAD_AWARE_CACHE`, then `~/.cache/load-aware`. */
  readonly cacheDir?: string;
  /** Directory for configs, data and logs. Default: a fresh temp dir, deleted by `stop()` unless `KEEP_KAFKA_LOGS=1`. A given dir is kept, and stale JVMs and node dirs from an earlier run in it are removed first. */
  readonly workDir?: string;
  /** Receives progress lines (resolution, start, stop); silent by default. */
  readonly logger?: (line: string) => void;
}

/** One broker+controller process of a {@link KafkaCluster}; fields reflect its live state. */
export interface KafkaNode {
  /** KRaft `node.id` (1-based), as reported in KafkaJS metadata. */
  readonly nodeId: number;
  /** Client port on 127.0.0.1; kept across `stopNode`/`startNode`. */
  readonly port: number;
  /** KRaft controller port on 127.0.0.1; kept across restarts. */
  readonly controllerPort: number;
  /** The node's `log.dirs`; kept across restarts so it rejoins with its data. */
  readonly dataDir: string;
  /** Whether the node's JVM is currently running. */
  readonly running: boolean;
  /** Pid of the node's JVM while it runs. */
  readonly pid: number | undefined;
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
  /** Restarts a stopped node on the same ports and data dir; resolves once it is back in the metadata. */
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
  const workDir = options.workDir ?? (await mkdtemp(join(tmpdir(), 'load-aware-kafka-')));
  if (!ownsWorkDir) {
    const stale = await killStaleProcesses(workDir);
    if (stale.length > 0) {
      log(`killed stale Kafka processes ${stale.join(', ')} from an earlier run in ${workDir}`);
    }
  }
  const count = options.nodes ?? 1;
  const layouts = layoutNodes(workDir, count, await findFreePorts(count * 2));
  const clusterId = generateClusterId();
  const nodes = layouts.map((layout) => new NodeRunner(layout, jars));
  const brokers = layouts.map((layout) => `127.0.0.1:${layout.port}`);

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
    log(`formatted KRaft storage of ${String(count)} node(s) in ${String(Date.now() - startedAt)} ms`);
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
  log(
    `Kafka ${version} (${count} node${count === 1 ? '' : 's'}) ready at ${brokers.join(',')} in ${Date.now() - startedAt} ms`,
  );

  const nodeById = (nodeId: number): NodeRunner => {
    const node = nodes.find((candidate) => candidate.nodeId === nodeId);
    if (node === undefined) {
      throw new Error(`Unknown nodeId ${nodeId}; this cluster has nodes 1..${count}`);
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
      log(`Kafka node ${nodeId} stopped`);
    },
    startNode: async (nodeId) => {
      const node = nodeById(nodeId);
      await node.start();
      try {
        await waitForBrokerRegistered(
          { brokers: [`127.0.0.1:${node.port}`], timeoutMs: READY_TIMEOUT_MS, failure: () => firstExit([node]) },
          nodeId,
        );
      } catch (error) {
        throw new Error(`Kafka node ${nodeId} did not rejoin:\n${await node.logTail()}`, { cause: error });
      }
      log(`Kafka node ${nodeId} restarted`);
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

function firstExit(nodes: readonly NodeRunner[]): string | undefined {
  const exited = nodes.find((node) => node.exitedUnexpectedly());
  return exited === undefined ? undefined : `Kafka node ${exited.nodeId} exited before it was ready`;
}

/** Owns one node's files and its (re)started JVM. */
class NodeRunner implements KafkaNode {
  private process: GuardedProcess | undefined;
  private readonly serverLog: string;
  private readonly consoleLog: string;
  private readonly logging: LoggingConfig;

  constructor(
    private readonly layout: NodeLayout,
    private readonly jars: KafkaJars,
  ) {
    this.serverLog = join(layout.nodeDir, 'logs', 'server.log');
    this.consoleLog = join(layout.nodeDir, 'console.log');
    this.logging = renderLoggingConfig(jars.loggingBackend, this.serverLog);
  }

  get nodeId(): number {
    return this.layout.nodeId;
  }
  get port(): number {
    return this.layout.port;
  }
  get controllerPort(): number {
    return this.layout.controllerPort;
  }
  get dataDir(): string {
    return this.layout.dataDir;
  }
  get running(): boolean {
    return this.process !== undefined && !this.process.hasExited();
  }
  get pid(): number | undefined {
    return this.running ? this.process?.javaPid : undefined;
  }

  /** Writes the configs and formats the storage; a fresh node dir replaces any earlier one. */
  async prepare(cluster: readonly NodeLayout[], clusterId: string): Promise<void> {
    await rm(this.layout.nodeDir, { recursive: true, force: true });
    await mkdir(join(this.layout.nodeDir, 'logs'), { recursive: true });
    await writeFile(this.file('server.properties'), renderServerProperties(this.layout, cluster));
    await writeFile(this.file(this.logging.fileName), this.logging.contents);
    // Static voters mean no --standalone/--initial-controllers, on 3.9 and 4.x alike.
    const format = await spawnGuarded({
      command: this.javaCommand(
        'kafka.tools.StorageTool',
        'format',
        '-t',
        clusterId,
        '-c',
        this.file('server.properties'),
      ),
      pidFile: this.file('format.pid'),
      consoleFile: this.file('format.log'),
    });
    const code = await format.exited;
    if (code !== 0) {
      throw new Error(`StorageTool format failed (exit ${String(code)}):\n${await tail(this.file('format.log'))}`);
    }
  }

  async start(): Promise<void> {
    if (this.running) {
      return;
    }
    this.process = await spawnGuarded({
      command: this.javaCommand('kafka.Kafka', this.file('server.properties')),
      pidFile: this.file('kafka.pid'),
      consoleFile: this.consoleLog,
    });
  }

  async stop(): Promise<void> {
    if (this.process !== undefined) {
      await stopGuarded(this.process);
    }
  }

  /** True when the JVM exited without `stop()` having been called. */
  exitedUnexpectedly(): boolean {
    return this.process !== undefined && this.process.hasExited();
  }

  async logTail(): Promise<string> {
    return `--- node ${this.nodeId} ${this.consoleLog}\n${await tail(this.consoleLog)}\n--- node ${this.nodeId} ${this.serverLog}\n${await tail(this.serverLog)}`;
  }

  private javaCommand(mainClass: string, ...args: string[]): string[] {
    const java = process.env['JAVA_HOME'] === undefined ? 'java' : join(process.env['JAVA_HOME'], 'bin', 'java');
    const logConfig = this.logging.jvmFlag(this.file(this.logging.fileName));
    return [java, ...JVM_FLAGS, logConfig, '-cp', join(this.jars.libDir, '*'), mainClass, ...args];
  }

  private file(name: string): string {
    return join(this.layout.nodeDir, name);
  }
}

async function tail(file: string, lines = 40): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '(missing)');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
