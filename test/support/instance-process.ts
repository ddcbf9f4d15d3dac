import { spawn, type ChildProcess } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { InstanceEvent, InstanceSpec } from '../fixtures/consumer-instance';

/** A consumer instance running in its own process (see fixtures/consumer-instance.ts). */
export interface InstanceProcess {
  readonly events: InstanceEvent[];
  /** Resolves once every consumer of the instance runs. */
  readonly ready: Promise<void>;
  /** Waits until `predicate` holds over the events seen so far (bounded by `timeoutMs`). */
  waitFor(predicate: (events: InstanceEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Asks the process to disconnect its consumers and exit; kills it if it does not. */
  stop(): Promise<void>;
}

/**
 * The compiled fixture: `tsc -b` builds test/ into test/.build. This module runs both from
 * source (under jest) and compiled (from the demo), hence the two possible locations.
 */
const TEST_ROOT = basename(dirname(__dirname)) === '.build' ? join(__dirname, '..', '..') : join(__dirname, '..');
const FIXTURE = join(TEST_ROOT, '.build', 'fixtures', 'consumer-instance.js');

/**
 * Starts one instance process. Its stdin stays open as a lifeline: when this test process dies
 * the pipe closes and the instance stops by itself, so no consumer outlives its test.
 */
export function startInstance(spec: InstanceSpec): InstanceProcess {
  const child: ChildProcess = spawn(process.execPath, [FIXTURE, JSON.stringify(spec)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: InstanceEvent[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      resolve(code);
    });
  });
  const lines = createInterface({ input: child.stdout! });
  const listeners = new Set<() => void>();
  lines.on('line', (line) => {
    try {
      events.push(JSON.parse(line) as InstanceEvent);
    } catch {
      return;
    }
    for (const l of listeners) l();
  });

  const waitFor = (predicate: (events: InstanceEvent[]) => boolean, timeoutMs = 60_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate(events)) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`instance ${spec.instanceId}: condition not met in ${String(timeoutMs)} ms; stderr: ${stderr}`),
        );
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      void exited.then((code) => {
        if (!listeners.has(check)) return;
        cleanup();
        reject(new Error(`instance ${spec.instanceId} exited with ${String(code)}; stderr: ${stderr}`));
      });
      check();
    });

  return {
    events,
    ready: waitFor((e) => e.some((x) => x.event === 'ready')),
    waitFor,
    async stop() {
      if (child.exitCode !== null) return;
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
