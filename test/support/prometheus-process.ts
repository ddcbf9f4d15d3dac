import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
export { waitUntil } from './wait';
import { waitUntil } from './wait';
import { findFreePorts } from './free-ports';
import { commandLineOf, isProcessAlive, spawnGuarded, stopGuarded, type GuardedProcess } from './kafka-process';

/**
 * Shared plumbing for the metrics servers the Prometheus weight-source tests run for real
 * (Prometheus, VictoriaMetrics): finding the binary, a per-run directory that a later run can
 * clean up, and a guarded child process (kafka-guard.sh kills it when this process dies, however
 * it dies) that is ready before it is handed out.
 */

/** A server binary the tests need, and where it was found (undefined: not installed). */
export interface ServerBinary {
  /** Executable name, e.g. `prometheus`. */
  readonly name: string;
  /** Debian package that ships it. */
  readonly debianPackage: string;
  /** Absolute path, or undefined when neither the override variable nor PATH has it. */
  readonly path: string | undefined;
}

/** Looks `name` up in `envVar` (an explicit path), then PATH, then /usr/bin and /usr/sbin. */
export function findBinary(name: string, debianPackage: string, envVar: string): ServerBinary {
  const override = process.env[envVar];
  if (override !== undefined && override !== '') {
    return { name, debianPackage, path: existsSync(override) ? override : undefined };
  }
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/bin', '/usr/sbin'].filter((d) => d !== '');
  const found = dirs.map((dir) => join(dir, name)).find((candidate) => existsSync(candidate));
  return { name, debianPackage, path: found };
}

/** Why a binary is needed and how to get it, for skip and failure messages. */
export function missingBinaryMessage(binary: ServerBinary): string {
  return (
    `${binary.name} not found (Debian package ${binary.debianPackage}); run scripts/lib/prometheus.sh's ` +
    `ensure_prometheus_servers as root, or apt-get install -y ${binary.debianPackage}`
  );
}

/**
 * `describe` for tests that need real servers. They are skipped, with the reason in the suite
 * title and on stderr, only when a binary is missing **and** `CI` is not `true`; under CI they
 * always run, so a missing install fails loudly instead of passing by skipping.
 */
export function describeWithServers(binaries: ReadonlyArray<ServerBinary>, title: string, body: () => void): void {
  const missing = binaries.filter((b) => b.path === undefined);
  if (missing.length === 0 || process.env['CI'] === 'true') {
    describe(title, body);
    return;
  }
  const reason = missing.map(missingBinaryMessage).join('; ');
  process.stderr.write(`\nSKIPPED "${title}": ${reason}\n`);
  describe.skip(`${title} (skipped: ${reason})`, body);
}

const RUNS_DIR = join(tmpdir(), 'load-aware-metrics-servers');

/**
 * A fresh directory `run-<pid>-<random>` for one server. First removes directories of earlier
 * runs whose owning process is gone, killing any server they recorded that is still running (its
 * guard was SIGKILLed too): a pid is trusted only if its command line mentions that directory,
 * so a recycled pid is never touched. Directories of live processes (parallel workers) are left
 * alone.
 */
export async function createRunDir(kind: string): Promise<string> {
  await mkdir(RUNS_DIR, { recursive: true });
  for (const entry of await readdir(RUNS_DIR, { withFileTypes: true })) {
    const owner = /^run-(\d+)-/.exec(entry.name)?.[1];
    if (!entry.isDirectory() || owner === undefined || isProcessAlive(Number(owner))) continue;
    const dir = join(RUNS_DIR, entry.name);
    for (const name of (await readdir(dir).catch(() => [])).filter((n) => n.endsWith('.pid'))) {
      const pid = Number((await readFile(join(dir, name), 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && commandLineOf(pid).includes(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    }
    await rm(dir, { recursive: true, force: true });
  }
  const dir = join(RUNS_DIR, `run-${String(process.pid)}-${kind}-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** A metrics server the tests started (Prometheus, VictoriaMetrics). */
export interface MetricsServer {
  /** Base URL of its HTTP API, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

/** A metrics server run laid out by {@link prepareServerRun}, ready for {@link startServerProcess}. */
export interface ServerRun {
  /** Absolute path of the installed binary. */
  readonly binary: string;
  /** The run directory from {@link createRunDir}. */
  readonly dir: string;
  /** A free loopback port for it to listen on. */
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Path of the config file written into `dir`. */
  readonly config: string;
}

/**
 * Lays out one run of `server`: throws when it is not installed, creates a run directory named
 * after `kind`, picks a free port and writes `configText` to `configName` in the directory.
 */
export async function prepareServerRun(
  server: ServerBinary,
  kind: string,
  configName: string,
  configText: string,
): Promise<ServerRun> {
  const binary = server.path;
  if (binary === undefined) throw new Error(missingBinaryMessage(server));
  const dir = await createRunDir(kind);
  const [port] = await findFreePorts(1);
  const config = join(dir, configName);
  await writeFile(config, configText);
  return { binary, dir, port: port!, url: `http://127.0.0.1:${String(port)}`, config };
}

/** A server process started by {@link startServerProcess}. */
export interface ServerProcess {
  /** Pid of the server itself. */
  readonly pid: number;
  /** The run directory (config, data, console log); removed by `stop()`. */
  readonly dir: string;
  /** Whether the server has exited. */
  hasExited(): boolean;
  /** Stops the server (SIGTERM, then SIGKILL), waits until it is gone and removes its directory. */
  stop(): Promise<void>;
}

/** What {@link startServerProcess} runs and how it knows the server is up. */
export interface ServerSpec {
  /** Label for messages, e.g. `Prometheus`. */
  readonly label: string;
  /** Run directory from {@link createRunDir}. */
  readonly dir: string;
  /** Executable and arguments. */
  readonly command: readonly string[];
  /** A URL that answers 2xx once the server serves queries. */
  readonly readyUrl: string;
  /** Headers for the readiness probe (e.g. basic auth). */
  readonly readyHeaders?: Record<string, string>;
  /** Bound on the wait. Default 30 s. */
  readonly readyTimeoutMs?: number;
}

/** Starts a server under the guard and resolves once `readyUrl` answers 2xx (bounded). */
export async function startServerProcess(spec: ServerSpec): Promise<ServerProcess> {
  const consoleFile = join(spec.dir, 'console.log');
  const guarded: GuardedProcess = await spawnGuarded({
    command: spec.command,
    pidFile: join(spec.dir, 'server.pid'),
    consoleFile,
  });
  let stopped = false;
  const server: ServerProcess = {
    pid: guarded.javaPid,
    dir: spec.dir,
    hasExited: () => guarded.hasExited(),
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopGuarded(guarded, 10_000);
      if (process.env['KEEP_METRICS_SERVER_LOGS'] !== '1') await rm(spec.dir, { recursive: true, force: true });
    },
  };
  try {
    await waitUntil(
      async () => {
        if (guarded.hasExited()) {
          throw new Error(`${spec.label} exited during startup:\n${await tail(consoleFile)}`);
        }
        const response = await fetch(spec.readyUrl, { headers: spec.readyHeaders ?? {} }).catch(() => undefined);
        return response?.ok === true ? true : undefined;
      },
      `${spec.label} ready at ${spec.readyUrl}`,
      spec.readyTimeoutMs ?? 30_000,
    );
  } catch (err) {
    const log = await tail(consoleFile);
    await server.stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n--- ${spec.label} console ---\n${log}`, {
      cause: err,
    });
  }
  return server;
}

async function tail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').slice(-30).join('\n');
}
