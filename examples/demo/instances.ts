import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
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
  let markReady: () => void = () => undefined;
  const child = startChildProgram(program, spec, (line) => {
    const event = line as InstanceEvent;
    if (event.event === 'ready') markReady();
    onEvent(event);
  });
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    void child.exit.then(() => {
      reject(new Error(`instance ${spec.instanceId} exited before it was ready: ${child.stderr().trim()}`));
    });
  });
  ready.catch(() => undefined);

  return {
    spec,
    ready,
    get exited() {
      return child.exited;
    },
    stderr: () => child.stderr(),
    stop: (graceMs = 20_000, how = 'stdin') => child.stop(graceMs, how),
  };
}

/**
 * A child Node program of a benchmark: it gets its spec as JSON in argv[2], prints one JSON event
 * per stdout line, and treats its stdin as the parent's lifeline. The demo's instances and the
 * rebalance benchmark's members are both run this way.
 */
export interface ChildProgram {
  readonly process: ChildProcessWithoutNullStreams;
  /** True once the process has exited. */
  readonly exited: boolean;
  /** Resolves when the process exits. */
  readonly exit: Promise<void>;
  /** The last 4,000 characters it wrote to stderr (for error messages). */
  stderr(): string;
  /** Closes its stdin (`'stdin'`) or sends SIGTERM, and waits; SIGKILL after `graceMs`. */
  stop(graceMs: number, how?: 'stdin' | 'SIGTERM'): Promise<void>;
}

/**
 * Starts `program` (a compiled .js) on this Node with `spec`; every JSON line it prints goes to
 * `onEvent`, parsed (the caller knows the program's event type); other lines are ignored.
 */
export function startChildProgram(program: string, spec: unknown, onEvent: (event: unknown) => void): ChildProgram {
  const child = spawn(process.execPath, [program, JSON.stringify(spec)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  // A parent that stops first, or a child that exits first, would otherwise get EPIPE on the lifeline.
  child.stdin.on('error', () => undefined);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.on('exit', () => {
      exited = true;
      resolve();
    });
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return;
    }
    onEvent(event);
  });
  return {
    process: child,
    get exited() {
      return exited;
    },
    exit,
    stderr: () => stderr,
    async stop(graceMs, how = 'stdin') {
      if (exited) return;
      if (how === 'SIGTERM') child.kill('SIGTERM');
      else child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
    },
  };
}
