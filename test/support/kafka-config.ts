import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import type { KafkaLoggingBackend } from './kafka-jars';

/** Where one node listens and keeps its files; the same values are reused when it restarts. */
export interface NodeLayout {
  /** KRaft `node.id`, 1-based. */
  readonly nodeId: number;
  /** PLAINTEXT listener for clients and replication, on 127.0.0.1. */
  readonly port: number;
  /** CONTROLLER listener for the KRaft quorum, on 127.0.0.1. */
  readonly controllerPort: number;
  /** Per-node directory holding the config, pid file, logs and the data dir. */
  readonly nodeDir: string;
  /** The node's `log.dirs` (partition data and metadata log). */
  readonly dataDir: string;
  /** The node's `broker.rack`; undefined for a cluster without racks. */
  readonly rack: string | undefined;
}

/**
 * The broker-side half of follower fetching (KIP-392): the leader answers a consumer that sends a
 * `rackId` with the replica in that rack as its preferred read replica. Without it a broker always
 * serves from the leader and `rackId` does nothing.
 */
export const RACK_AWARE_REPLICA_SELECTOR = 'org.apache.kafka.common.replica.RackAwareReplicaSelector';

/**
 * Heap and JIT settings for a test broker: a small heap and C1-only compilation start a broker in a
 * few seconds and keep three of them affordable; throughput is irrelevant here.
 */
export const JVM_FLAGS: readonly string[] = [
  '-Xmx512m',
  '-Xms256m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Xshare:auto',
  // No hsperfdata files in /tmp: nothing should outlive the test run, not even a stale mmap.
  '-XX:-UsePerfData',
  '-Djava.awt.headless=true',
  '-Djava.net.preferIPv4Stack=true',
];

/**
 * A random KRaft cluster id in Kafka's own `Uuid` text form: 16 random bytes as unpadded base64url
 * (22 characters). Like `Uuid.randomUuid()` it rejects ids starting with `-`, which the storage
 * tool's argument parser would read as an option.
 */
export function generateClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) {
      return id;
    }
  }
}

/**
 * Lays out `count` nodes under `workDir` with the given free ports (two per node); node `i` gets
 * `racks[i - 1]` as its rack when `racks` is given, which must then name one rack per node.
 */
export function layoutNodes(
  workDir: string,
  count: number,
  ports: readonly number[],
  racks?: readonly string[],
): NodeLayout[] {
  if (racks !== undefined && racks.length !== count) {
    throw new Error(`racks must name one rack per node: got ${JSON.stringify(racks)} for ${String(count)} nodes`);
  }
  return Array.from({ length: count }, (_, index) => {
    const nodeId = index + 1;
    const nodeDir = join(workDir, `node-${String(nodeId)}`);
    const port = ports[index * 2];
    const controllerPort = ports[index * 2 + 1];
    if (port === undefined || controllerPort === undefined) {
      throw new Error(`Need ${String(count * 2)} free ports for ${String(count)} nodes, got ${String(ports.length)}`);
    }
    return { nodeId, port, controllerPort, nodeDir, dataDir: join(nodeDir, 'data'), rack: racks?.[index] };
  });
}

/**
 * Renders `server.properties` for one combined broker+controller node of a cluster on loopback.
 *
 * The same file works for 3.9 and 4.x: every key exists in both except the share-group ones, which
 * 3.9 ignores. The quorum is static (`controller.quorum.voters`), so the storage tool needs no
 * `--standalone`/`--initial-controllers` on either line.
 */
export function renderServerProperties(node: NodeLayout, cluster: readonly NodeLayout[]): string {
  const replicas = cluster.length;
  // With three nodes, min ISR 2 keeps internal topics writable while one node is down.
  const minIsr = replicas >= 3 ? 2 : 1;
  const voters = cluster.map((n) => `${String(n.nodeId)}@127.0.0.1:${String(n.controllerPort)}`).join(',');
  const settings: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': node.nodeId,
    'controller.quorum.voters': voters,
    listeners: `PLAINTEXT://127.0.0.1:${String(node.port)},CONTROLLER://127.0.0.1:${String(node.controllerPort)}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${String(node.port)}`,
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': node.dataDir,

    'offsets.topic.replication.factor': replicas,
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.replication.factor': replicas,
    'transaction.state.log.min.isr': minIsr,
    'transaction.state.log.num.partitions': 1,
    // Share groups (4.x) keep their state in an internal topic as well; 3.9 ignores these keys.
    'share.coordinator.state.topic.replication.factor': replicas,
    'share.coordinator.state.topic.min.isr': minIsr,
    'share.coordinator.state.topic.num.partitions': 1,
    'default.replication.factor': replicas,
    'min.insync.replicas': minIsr,
    'num.partitions': 1,
    'auto.create.topics.enable': false,

    // Fast groups: no initial rebalance delay, and short sessions allowed so tests can fail fast.
    'group.initial.rebalance.delay.ms': 0,
    'group.min.session.timeout.ms': 1000,

    // A test broker needs few threads and little memory, and starts its log tasks right away.
    'num.network.threads': 2,
    'num.io.threads': 2,
    'num.recovery.threads.per.data.dir': 1,
    'background.threads': 2,
    'log.segment.bytes': 16 * 1024 * 1024,
    'log.retention.check.interval.ms': 60_000,
    'log.cleaner.dedupe.buffer.size': 2 * 1024 * 1024,
    'log.cleaner.threads': 1,
    'log.initial.task.delay.ms': 0,
    // Delete files of deleted topics after 1 s instead of 60 s, so repeated runs stay small.
    'file.delete.delay.ms': 1000,

    // A stopped node of a three-node cluster is noticed and fenced within seconds.
    'broker.session.timeout.ms': 6000,
    'broker.heartbeat.interval.ms': 1000,

    // Racks (both keys exist in 3.9 and 4.x): replica placement spreads over them, and consumers
    // that send a rackId are pointed at the replica in their own rack.
    ...(node.rack === undefined
      ? {}
      : { 'broker.rack': node.rack, 'replica.selector.class': RACK_AWARE_REPLICA_SELECTOR }),
  };
  return `${Object.entries(settings)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join('\n')}\n`;
}

/** A logging configuration file and the JVM flag that points the backend at it. */
export interface LoggingConfig {
  /** File name (inside the node dir) the config is written to. */
  readonly fileName: string;
  /** Contents of the config file. */
  readonly contents: string;
  /** `-D...` flag that makes the backend read it. */
  readonly jvmFlag: (configPath: string) => string;
}

/**
 * Broker logging at WARN into `logFile` only: stdout stays quiet, and the file is what a failed
 * start reports. reload4j (3.9) reads a log4j 1 properties file named by `log4j.configuration` (a
 * URL); log4j2 (4.x) reads its own properties format named by `log4j2.configurationFile`.
 */
export function renderLoggingConfig(backend: KafkaLoggingBackend, logFile: string): LoggingConfig {
  const pattern = '[%d] %p %m (%c)%n';
  if (backend === 'reload4j') {
    return {
      fileName: 'log4j.properties',
      contents: [
        'log4j.rootLogger=WARN, file',
        'log4j.appender.file=org.apache.log4j.FileAppender',
        `log4j.appender.file.File=${logFile}`,
        'log4j.appender.file.Append=true',
        'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
        `log4j.appender.file.layout.ConversionPattern=${pattern}`,
        '',
      ].join('\n'),
      jvmFlag: (configPath) => `-Dlog4j.configuration=file:${configPath}`,
    };
  }
  return {
    fileName: 'log4j2.properties',
    contents: [
      'status = warn',
      'appender.file.type = File',
      'appender.file.name = file',
      `appender.file.fileName = ${logFile}`,
      'appender.file.append = true',
      'appender.file.layout.type = PatternLayout',
      `appender.file.layout.pattern = ${pattern}`,
      'rootLogger.level = warn',
      'rootLogger.appenderRef.file.ref = file',
      '',
    ].join('\n'),
    jvmFlag: (configPath) => `-Dlog4j2.configurationFile=${configPath}`,
  };
}
