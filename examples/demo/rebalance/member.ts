/**
 * One member process of the rebalance benchmark, seen from the parent. Its stdin carries
 * commands and is the lifeline: if the benchmark dies, the pipe closes and the member
 * disconnects and exits by itself, so no consumer outlives the benchmark.
 */
import { join } from 'node:path';
import { startChildProgram } from '../instances.js';
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
  const child = startChildProgram(program, spec, (event) => {
    onEvent(event as MemberEvent);
  });
  const stdin = child.process.stdin;
  return {
    spec,
    get exited() {
      return child.exited;
    },
    exit: child.exit,
    stderr: () => child.stderr(),
    send(command) {
      if (!child.exited && stdin.writable) stdin.write(`${JSON.stringify(command)}\n`);
    },
    stop: (graceMs) => child.stop(graceMs),
    async kill() {
      if (child.exited) return;
      child.process.kill('SIGKILL');
      await child.exit;
    },
  };
}
