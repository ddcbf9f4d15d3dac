import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { InstanceEvent, InstanceSpec } from './protocol.js';

/** The compiled instance programs, next to this module in examples/.build/demo. */
const PROGRAM = join(__dirname, 'instance-main.js');
const PLATFORMATIC_PROGRAM = join(__dirname, 'instance-platformatic-main.js');

/** One instance process of the demo, seen from the parent. */
export interface InstanceHandle {
  readonly spec: InstanceSpec;
  /** Resolves once every member of the instance runs; rejects if the process exits first. */
  readonly ready: Promise<void>;
  /** True once the process has exited. */
  readonly exited: boolean;
  /** The last lines it wrote to stderr (for error messages). */
  stderr(): string;
  /**
   * Asks it to stop and waits; SIGKILL after `graceMs`. `how`: `'stdin'` (default) closes its
   * stdin, the process is gone for good; `'SIGTERM'` is what a rolling deploy sends a pod that
   * comes back (instance-main.ts: static members then keep their places). Dynamic members
   * disconnect and leave either way.
   */
  stop(graceMs?: number, how?: 'stdin' | 'SIGTERM'): Promise<void>;
}

/**
 * Starts one instance process. Its stdin stays open as a lifeline: if the demo dies, the pipe
 * closes and the instance stops by itself, so no consumer outlives the demo. Every event it
 * prints goes to `onEvent`.
 */
export function startInstance(spec: InstanceSpec, onEvent: (event: InstanceEvent) => void): InstanceHandle {
  const program = spec.client === 'platformatic' ? PLATFORMATIC_PROGRAM : PROGRAM;
  const child = spawn(process.execPath, [program, JSON.stringify(spec)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  // A parent that stops first would otherwise get EPIPE on the lifeline.
  child.stdin.on('error', () => undefined);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.on('exit', () => {
      exited = true;
      resolve();
    });
  });
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    void exit.then(() => {
      reject(new Error(`instance ${spec.instanceId} exited before it was ready: ${stderr.trim()}`));
    });
  });
  ready.catch(() => undefined);
  createInterface({ input: child.stdout }).on('line', (line) => {
    let event: InstanceEvent;
    try {
      event = JSON.parse(line) as InstanceEvent;
    } catch {
      return;
    }
    if (event.event === 'ready') markReady();
    onEvent(event);
  });

  return {
    spec,
    ready,
    get exited() {
      return exited;
    },
    stderr: () => stderr,
    async stop(graceMs = 20_000, how = 'stdin') {
      if (exited) return;
      if (how === 'SIGTERM') child.kill('SIGTERM');
      else child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
    },
  };
}
