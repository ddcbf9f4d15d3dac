import { fork } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';

/**
 * Runs `script` in a fresh child process started with `--expose-gc` (plus `extraExecArgv`) and
 * resolves with the one message it sends back. A benchmark times each case in a child of its own,
 * so the JIT state, heap and resident-set high-water mark of one case never leak into the next.
 */
export function runBenchChild<T>(script: string, args: string[], extraExecArgv: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(script, args, {
      execArgv: [...new Set([...process.execArgv, '--expose-gc', ...extraExecArgv])],
    });
    let result: T | undefined;
    child.on('message', (message) => {
      result = message as T;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`Benchmark child ${args.join(' ')} exited with code ${String(code)} and no result`));
    });
  });
}

/**
 * Child side of {@link runBenchChild}: sends `result` to the parent, then closes the IPC channel,
 * which would otherwise keep the forked child alive.
 */
export function replyToBenchParent(result: unknown): void {
  process.send?.(result, undefined, {}, () => {
    process.disconnect();
  });
}

/**
 * The `<scenario>:<path>` a parent gave a child after `flag` (`--case`, `--allocation`), or
 * undefined when this process was not started with it. A path not in `paths` is an error.
 */
export function benchCaseArg<P extends string>(
  flag: string,
  paths: ReadonlyArray<P>,
): { readonly scenarioId: string; readonly path: P } | undefined {
  const index = process.argv.indexOf(flag);
  if (index < 0) return undefined;
  const [scenarioId = '', path = ''] = (process.argv[index + 1] ?? '').split(':');
  if (!(paths as ReadonlyArray<string>).includes(path)) {
    throw new Error(`Unknown path: ${path} (expected one of ${paths.join(', ')})`);
  }
  return { scenarioId, path: path as P };
}

/**
 * The first line of a benchmark's output: the Node version, the CPUs and the load average at
 * start, since other work on the machine skews every number and the load says how much to trust
 * them.
 */
export function benchHeading(title: string): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const load = loadavg()[0] ?? 0;
  return `${title} — node ${process.version}, ${String(availableParallelism())} × ${cpu}, load average ${load.toFixed(2)} at start\n`;
}
