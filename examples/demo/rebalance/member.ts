/**
 * One member process of the rebalance benchmark, seen from the parent. Its stdin carries
 * commands and is the lifeline: if the benchmark dies, the pipe closes and the member
 * disconnects and exits by itself, so no consumer outlives the benchmark.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isPlatformatic, type MemberCommand, type MemberEvent, type MemberSpec } from './protocol.js';

/** The compiled member programs, next to this module in examples/.build/demo/rebalance. */
const PROGRAM = join(__dirname, 'member-main.js');
const PLATFORMATIC_PROGRAM = join(__dirname, 'member-platformatic-main.js');

/** A running member process. */
export interface MemberHandle {
  readonly spec: MemberSpec;
  /** True once the process has exited. */
  readonly exited: boolean;
  /** Resolves when the process exits. */
  readonly exit: Promise<void>;
  /** The last lines it wrote to stderr (for error messages). */
  stderr(): string;
  /** Writes one command line to its stdin (ignored once it has exited). */
  send(command: MemberCommand): void;
  /** Closes its stdin (it disconnects and exits) and waits; SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<void>;
  /** SIGKILL: no LeaveGroup, for a run that is over (its group is never used again). */
  kill(): Promise<void>;
}

/** Starts one member process; every event it prints goes to `onEvent`. */
export function startMember(spec: MemberSpec, onEvent: (event: MemberEvent) => void): MemberHandle {
  const program = isPlatformatic(spec.assigner) ? PLATFORMATIC_PROGRAM : PROGRAM;
  const child = spawn(process.execPath, [program, JSON.stringify(spec)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  // A member that exits first would otherwise get the parent an EPIPE on the lifeline.
  child.stdin.on('error', () => undefined);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.on('exit', () => {
      exited = true;
      resolve();
    });
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    let event: MemberEvent;
    try {
      event = JSON.parse(line) as MemberEvent;
    } catch {
      return;
    }
    onEvent(event);
  });
  return {
    spec,
    get exited() {
      return exited;
    },
    exit,
    stderr: () => stderr,
    send(command) {
      if (!exited && child.stdin.writable) child.stdin.write(`${JSON.stringify(command)}\n`);
    },
    async stop(graceMs) {
      if (exited) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
    },
    async kill() {
      if (exited) return;
      child.kill('SIGKILL');
      await exit;
    },
  };
}
