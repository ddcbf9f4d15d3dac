import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import {
  JVM_FLAGS,
  renderLoggingConfig,
  renderServerProperties,
  type LoggingConfig,
  type NodeLayout,
} from './kafka-config';
import type { KafkaJars } from './kafka-jars';
import { spawnGuarded, stopGuarded, type GuardedProcess } from './kafka-process';

/** One broker+controller process of a Kafka test cluster; fields reflect its live state. */
export interface KafkaNode {
  /** KRaft `node.id` (1-based), as reported in KafkaJS metadata. */
  readonly nodeId: number;
  /** Client port on 127.0.0.1; kept across `stopNode`/`startNode`. */
  readonly port: number;
  /** KRaft controller port on 127.0.0.1; kept across restarts. */
  readonly controllerPort: number;
  /** The node's `log.dirs`; kept across restarts so the node rejoins with its data. */
  readonly dataDir: string;
  /** The node's `broker.rack`, as KafkaJS metadata reports it; undefined without racks. */
  readonly rack: string | undefined;
  /** Whether the node's JVM is currently running. */
  readonly running: boolean;
  /** Pid of the node's JVM while it runs. */
  readonly pid: number | undefined;
}

/** Owns one node's directory, configs and (re)started JVM; the cluster only orchestrates. */
export class KafkaNodeRunner implements KafkaNode {
  private process: GuardedProcess | undefined;
  private readonly serverLog: string;
  private readonly consoleLog: string;
  private readonly logging: LoggingConfig;

  /** Binds the node to its ports and directory; nothing touches the disk until `prepare`. */
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

  get rack(): string | undefined {
    return this.layout.rack;
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
    // The quorum is static (controller.quorum.voters), so the same command works on 3.9 and 4.x:
    // --standalone / --initial-controllers are only for dynamic quorums and are rejected here.
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

  /** Starts the broker JVM unless it runs; resolves once it is spawned, not once it is ready. */
  async start(): Promise<void> {
    if (this.running) {
      return;
    }
    this.process = await spawnGuarded({
      command: this.javaCommand('kafka.Kafka', this.file('server.properties')),
      pidFile: this.file('kafka.pid'),
      consoleFile: this.consoleLog,
      unref: true,
    });
  }

  /** Stops the JVM (clean shutdown first) and resolves once it is gone. */
  async stop(): Promise<void> {
    if (this.process !== undefined) {
      await stopGuarded(this.process);
    }
  }

  /** Whether the last JVM started has exited, for whatever reason. */
  hasExited(): boolean {
    return this.process?.hasExited() ?? false;
  }

  /** The end of the JVM's console output and of the broker log, for error messages. */
  async logTail(): Promise<string> {
    const sections = await Promise.all(
      [this.consoleLog, this.serverLog].map(
        async (file) => `--- node ${String(this.nodeId)} ${file}\n${await tail(file)}`,
      ),
    );
    return sections.join('\n');
  }

  private javaCommand(mainClass: string, ...args: string[]): string[] {
    const javaHome = process.env['JAVA_HOME'];
    const java = javaHome === undefined ? 'java' : join(javaHome, 'bin', 'java');
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
