import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { open, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A JVM started through `kafka-guard.sh`, which kills it if this Node process goes away. */
export interface GuardedProcess {
  /** Pid of the bash guard (a direct child of this process). */
  readonly guardPid: number;
  /** Pid of the JVM (a child of the guard). */
  readonly javaPid: number;
  /** Resolves with the guard's exit code (the JVM's, when it exits on its own) once it is gone. */
  readonly exited: Promise<number | null>;
  /** Whether the guard has exited; the JVM is then gone or being killed. */
  hasExited(): boolean;
  /** Whether the JVM still runs; checks its start time too, since pids are recycled. */
  jvmAlive(): boolean;
}

/** What to run and where its pid file and console output go. */
export interface GuardedCommand {
  /** Executable and arguments, e.g. `java -cp ... kafka.Kafka server.properties`. */
  readonly command: readonly string[];
  /** The guard writes the JVM's pid here; stale-process cleanup looks for `*.pid` files. */
  readonly pidFile: string;
  /** Receives the JVM's stdout and stderr (startup failures land here, not in the broker log). */
  readonly consoleFile: string;
  /**
   * Let this process exit while the JVM still runs (the guard then kills it), so a cluster a test
   * forgot to stop cannot keep jest alive forever. Off by default: while a caller awaits `exited`
   * with no other handle open, an unref'd child would let Node quit in the middle of the wait.
   */
  readonly unref?: boolean;
}

const live = new Set<GuardedProcess>();
let handlersInstalled = false;

/** Starts `command` under the guard and waits until the guard has reported the JVM's pid. */
export async function spawnGuarded(spec: GuardedCommand): Promise<GuardedProcess> {
  installExitHandlers();
  await rm(spec.pidFile, { force: true });
  const output = await open(spec.consoleFile, 'a');
  try {
    const child = spawn('bash', [guardScript(), String(process.pid), spec.pidFile, ...spec.command], {
      stdio: ['ignore', output.fd, output.fd],
    });
    let exited = false;
    const exitedPromise = new Promise<number | null>((resolve) => {
      child.once('error', () => {
        exited = true;
        resolve(null);
      });
      child.once('exit', (code) => {
        exited = true;
        resolve(code);
      });
    });
    if (spec.unref === true) {
      child.unref();
    }
    const guardPid = child.pid;
    if (guardPid === undefined) {
      throw new Error(`Could not spawn bash to run ${spec.command.join(' ')}`);
    }
    const javaPid = await readPidFile(spec.pidFile, () => exited).catch((error: unknown) => {
      // The guard never reported a JVM; do not leave it (or whatever it started) behind.
      if (!exited) {
        signal(guardPid, 'SIGKILL');
      }
      throw error;
    });
    const javaStartTime = startTimeOf(javaPid);
    const handle: GuardedProcess = {
      guardPid,
      javaPid,
      exited: exitedPromise,
      hasExited: () => exited,
      jvmAlive: () => javaStartTime !== undefined && isProcessAlive(javaPid) && startTimeOf(javaPid) === javaStartTime,
    };
    live.add(handle);
    void exitedPromise.then(() => live.delete(handle));
    return handle;
  } finally {
    // The child holds its own copy of the descriptor.
    await output.close();
  }
}

/**
 * Stops a guarded JVM: SIGTERM to the guard (which forwards it, so Kafka shuts down cleanly), then
 * SIGKILL to both after `graceMs`. Resolves only when neither process exists any more. Pids are
 * only signalled while they are known to be ours: pid_max can be as low as 32768, so a pid freed
 * by an exited process may soon belong to something else.
 */
export async function stopGuarded(handle: GuardedProcess, graceMs = 15_000): Promise<void> {
  if (!handle.hasExited()) {
    signal(handle.guardPid, 'SIGTERM');
  }
  if (await waitUntilGone(handle, graceMs)) {
    return;
  }
  if (handle.jvmAlive()) {
    signal(handle.javaPid, 'SIGKILL');
  }
  if (!handle.hasExited()) {
    signal(handle.guardPid, 'SIGKILL');
  }
  if (!(await waitUntilGone(handle, 5_000))) {
    throw new Error(`JVM ${String(handle.javaPid)} (guard ${String(handle.guardPid)}) survived SIGKILL`);
  }
}

/** Whether `pid` is a running process; zombies count as gone because they hold no resources. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false; // Exited between the two checks.
  }
}

/**
 * Pids recorded in `*.pid` files under `workDir/node-*` whose processes are still alive. A pid
 * only counts if its command line still mentions `workDir`, so a recycled pid of an unrelated
 * process is never mistaken for one of ours.
 */
export async function recordedLiveProcesses(workDir: string): Promise<number[]> {
  const pids: number[] = [];
  const entries = await readdir(workDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.filter((e) => e.isDirectory() && e.name.startsWith('node-'))) {
    const nodeDir = join(workDir, entry.name);
    const pidFiles = (await readdir(nodeDir).catch(() => [])).filter((name) => name.endsWith('.pid'));
    for (const name of pidFiles) {
      const pid = Number((await readFile(join(nodeDir, name), 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && commandLineOf(pid).includes(workDir)) {
        pids.push(pid);
      }
    }
  }
  return pids;
}

/**
 * SIGKILLs the JVMs an earlier run left in `workDir` and waits up to 5 s for them to go; returns
 * their pids. Guards normally see to this within seconds; this covers guards that were SIGKILLed
 * along with their parent.
 */
export async function killStaleProcesses(workDir: string): Promise<number[]> {
  const stale = await recordedLiveProcesses(workDir);
  for (const pid of stale) {
    signal(pid, 'SIGKILL');
  }
  const deadline = Date.now() + 5_000;
  while (stale.some(isProcessAlive) && Date.now() < deadline) {
    await sleep(100);
  }
  return stale;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks): a pid plus this names one process. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // Fields after the parenthesised command name start at field 3 (the state).
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3];
  } catch {
    return undefined;
  }
}

/** The command line of `pid`, arguments joined by spaces ('' once it is gone). */
export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

async function waitUntilGone(handle: GuardedProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (handle.hasExited() && !handle.jvmAlive()) {
      return true;
    }
    if (Date.now() >= deadline) {
      return false;
    }
    await sleep(100);
  }
}

async function readPidFile(pidFile: string, guardExited: () => boolean): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0) {
      return pid;
    }
    if (guardExited()) {
      break;
    }
    await sleep(20);
  }
  throw new Error(`The guard did not write a JVM pid to ${pidFile}`);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone: that is the state we want.
  }
}

/** The guard ships as a .sh next to the sources; compiled code runs from `.build/support`. */
function guardScript(): string {
  const candidates = [join(__dirname, 'kafka-guard.sh'), join(__dirname, '..', '..', 'support', 'kafka-guard.sh')];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new Error(`kafka-guard.sh not found; looked in ${candidates.join(', ')}`);
  }
  return found;
}

/** SIGKILLs every live JVM and guard now; the only cleanup possible inside an 'exit' handler. */
function killAllSync(): void {
  // `live` only holds handles whose guard has not exited, so both pids are still ours.
  for (const handle of live) {
    signal(handle.javaPid, 'SIGKILL');
    signal(handle.guardPid, 'SIGKILL');
  }
  live.clear();
}

/**
 * Installs, once per process, handlers that kill the JVMs when this process exits or is told to.
 * A signal listener disables Node's default "exit on SIGINT/SIGTERM", so when ours is the only
 * one it removes itself and re-raises the signal to keep that default behaviour.
 *
 * These fire in jest's global setup, which sees the real `process`; inside a test file jest hands
 * out a copy whose listeners never hear real signals, and the guard script is the safety net.
 */
function installExitHandlers(): void {
  if (handlersInstalled) {
    return;
  }
  handlersInstalled = true;
  process.on('exit', killAllSync);
  const onSignal = (name: NodeJS.Signals): void => {
    killAllSync();
    if (process.listenerCount(name) === 1) {
      process.removeAllListeners(name);
      process.kill(process.pid, name);
    }
  };
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(name, onSignal);
  }
}
