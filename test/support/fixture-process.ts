import { spawn } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The test root: `tsc -b` builds test/ into test/.build, and this module runs both from source
 * (under jest) and compiled (from the demo), hence the two possible locations.
 */
const TEST_ROOT = basename(dirname(__dirname)) === '.build' ? join(__dirname, '..', '..') : join(__dirname, '..');

/** What {@link startFixtureProcess} runs. */
export interface FixtureProcessOptions<E> {
  /** The fixture's file name without extension, e.g. `trigger-instance` (test/fixtures/<name>.ts, compiled). */
  readonly fixture: string;
  /** Passed to the fixture as JSON in argv[2]. */
  readonly spec: unknown;
  /** Names the process in error messages, e.g. its client id. */
  readonly name: string;
  /**
   * Sees every event line first; returning false keeps it out of `events` (e.g. bulky
   * `consumed` batches the caller collects elsewhere). Waiters are notified either way.
   */
  readonly onEvent?: (event: E) => boolean;
}

/** A fixture process that reports JSON lines on stdout, with stdin as its lifeline. */
export interface FixtureProcess<E> {
  /** Every event line kept so far, in order. */
  readonly events: E[];
  /** Waits until `predicate` holds over the events seen so far; rejects naming `what` after `timeoutMs` or when the process exits first. */
  waitFor(predicate: (events: E[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** The latest event for which `pick` gives a value, or `fallback` before any. */
  last<T>(pick: (event: E) => T | undefined, fallback: T): T;
  /** Writes one command line to its stdin (ignored once it has exited). */
  send(command: string): void;
  /** Whether the process has exited. */
  exited(): boolean;
  /** Closes stdin (the fixture disconnects cleanly and exits) and waits for the exit; SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** SIGKILL, as a crashed pod dies: no LeaveGroup, no commit. */
  kill(): Promise<void>;
}

/**
 * Starts the compiled fixture `options.fixture` with `node`, parses each stdout line as one JSON
 * event and keeps the last 4000 characters of stderr for error messages. Its stdin stays open as
 * a lifeline: when this test process dies the pipe closes and the fixture stops by itself, so no
 * consumer outlives its test. The one launcher behind every consumer-process helper of the tests.
 */
export function startFixtureProcess<E>(options: FixtureProcessOptions<E>): FixtureProcess<E> {
  const script = join(TEST_ROOT, '.build', 'fixtures', `${options.fixture}.js`);
  const child = spawn(process.execPath, [script, JSON.stringify(options.spec)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const { name } = options;
  const events: E[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let hasExited = false;
  const exited = new Promise<void>((resolve) => {
    child.on('exit', () => {
      hasExited = true;
      resolve();
    });
  });
  const listeners = new Set<() => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    let event: E;
    try {
      event = JSON.parse(line) as E;
    } catch {
      return;
    }
    if (options.onEvent?.(event) !== false) events.push(event);
    for (const l of listeners) l();
  });

  return {
    events,
    waitFor: (predicate, what, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!predicate(events)) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${name}: ${what} not seen in ${String(timeoutMs)} ms; stderr: ${stderr}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then(() => {
          if (!listeners.has(check)) return;
          done();
          reject(new Error(`${name} exited while waiting for ${what}; stderr: ${stderr}`));
        });
        check();
      }),
    last(pick, fallback) {
      for (let i = events.length - 1; i >= 0; i--) {
        const value = pick(events[i]!);
        if (value !== undefined) return value;
      }
      return fallback;
    },
    send(command) {
      if (!hasExited) child.stdin.write(`${command}\n`);
    },
    exited: () => hasExited,
    async stop() {
      if (hasExited) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (hasExited) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
