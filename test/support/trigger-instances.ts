import { spawn } from 'node:child_process';
import { rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TriggerInstanceEvent, TriggerInstanceSpec, WeightsFile } from '../fixtures/trigger-instance';

/** A trigger instance running in its own process (see fixtures/trigger-instance.ts). */
export interface TriggerInstance {
  readonly spec: TriggerInstanceSpec;
  readonly events: TriggerInstanceEvent[];
  /** Waits until `predicate` holds over the events seen so far (bounded by `timeoutMs`). */
  waitFor(predicate: (events: TriggerInstanceEvent[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** The latest value of this process's `load_aware_trigger_coordinator` gauge (0 before any). */
  coordinator(): number;
  /** The latest generation id this instance's consumer heartbeated with (-1 before any). */
  generation(): number;
  /** Log lines of this instance at `level` or any level, in order. */
  logs(level?: 'debug' | 'info' | 'warn' | 'error'): Array<Extract<TriggerInstanceEvent, { event: 'log' }>>;
  /** Writes one command line to the instance (see the fixture: `attach`). */
  send(command: string): void;
  /** Disconnects cleanly (stdin closes) and waits for the exit; SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** Kills the process outright (SIGKILL), as a crashed pod would die: no LeaveGroup. */
  kill(): Promise<void>;
}

const TEST_ROOT = basename(dirname(__dirname)) === '.build' ? join(__dirname, '..', '..') : join(__dirname, '..');
const FIXTURE = join(TEST_ROOT, '.build', 'fixtures', 'trigger-instance.js');

/** Starts one trigger instance; its stdin is a lifeline, so it never outlives the test process. */
export function startTriggerInstance(spec: TriggerInstanceSpec): TriggerInstance {
  const child = spawn(process.execPath, [FIXTURE, JSON.stringify(spec)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const events: TriggerInstanceEvent[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => {
    child.on('exit', () => {
      resolve();
    });
  });
  const listeners = new Set<() => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      events.push(JSON.parse(line) as TriggerInstanceEvent);
    } catch {
      return;
    }
    for (const l of listeners) l();
  });

  const last = <T>(pick: (e: TriggerInstanceEvent) => T | undefined, fallback: T): T => {
    for (let i = events.length - 1; i >= 0; i--) {
      const value = pick(events[i]!);
      if (value !== undefined) return value;
    }
    return fallback;
  };
  const waitFor = (
    predicate: (e: TriggerInstanceEvent[]) => boolean,
    what: string,
    timeoutMs = 60_000,
  ): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate(events)) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${spec.instanceId}: ${what} not seen in ${String(timeoutMs)} ms; stderr: ${stderr}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      void exited.then(() => {
        if (!listeners.has(check)) return;
        done();
        reject(new Error(`${spec.instanceId} exited while waiting for ${what}; stderr: ${stderr}`));
      });
      check();
    });

  return {
    spec,
    events,
    waitFor,
    coordinator: () => last((e) => (e.event === 'coordinator' ? e.value : undefined), 0),
    generation: () => last((e) => (e.event === 'generation' ? e.generationId : undefined), -1),
    logs: (level) =>
      events.flatMap((e) => (e.event === 'log' && (level === undefined || e.level === level) ? [e] : [])),
    send(command) {
      child.stdin.write(`${command}\n`);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Replaces the weights file atomically, so an instance never reads half a file. */
export async function writeWeightsFile(path: string, content: WeightsFile): Promise<void> {
  const staging = `${path}.${String(process.pid)}.tmp`;
  await writeFile(staging, JSON.stringify(content));
  await rename(staging, path);
}

/** Polls `condition` every 100 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function eventually(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} not reached in ${String(timeoutMs)} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
