/**
 * What the mains of the demo and its benchmarks share (demo.ts, bench-e2e.ts, bench-rebalance.ts,
 * bench-rolling.ts): reading the command line with its help and usage errors, stopping cleanly on
 * Ctrl-C, and the machine and commit their reports name.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';

/**
 * Runs `parse` on the command line: its options, or the exit code when there are none to run
 * with. `--help` prints the usage text (exit 0); a usage error goes to stderr (exit 2); anything
 * else is thrown.
 */
export function parseCommandLine<T>(
  parse: () => T,
  usageError: abstract new (...args: never[]) => Error,
  helpRequested: abstract new (...args: never[]) => Error,
): { options: T } | { exitCode: number } {
  try {
    return { options: parse() };
  } catch (err) {
    if (err instanceof helpRequested) {
      process.stdout.write(err.message);
      return { exitCode: 0 };
    }
    if (!(err instanceof usageError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return { exitCode: 2 };
  }
}

/**
 * Aborts on SIGTERM and on the first Ctrl-C, which `log`s that `stopping` (what a clean stop
 * stops) is being stopped; a second Ctrl-C leaves at once (exit 130): the children and the
 * broker's guard notice that this process is gone and stop by themselves.
 */
export function abortOnSignals(log: (line: string) => void, stopping: string): AbortController {
  const controller = new AbortController();
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(130);
    log(`Interrupted: stopping ${stopping} (Ctrl-C again to leave at once)...`);
    controller.abort();
  });
  process.on('SIGTERM', () => {
    controller.abort();
  });
  return controller;
}

/** The checkout's commit (`git describe`, with `-dirty` for local changes), or `unknown`. */
export function commit(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=12'], {
      cwd: __dirname,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

/** The load averages over 1, 5 and 15 minutes, as `a / b / c`. */
export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
}

/** `Node <version>, <n> CPUs (<model>)`, for a report's setup line. */
export function nodeAndCpus(): string {
  return `Node ${process.version}, ${String(cpus().length)} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'})`;
}

/** The machine a run's result.json names; `loadBefore` as {@link loadAverage} gave it at the start. */
export function machine(loadBefore: string) {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    node: process.version,
    loadBefore,
    loadAfter: loadAverage(),
  };
}
