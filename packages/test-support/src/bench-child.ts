import { fork } from 'node:child_process';

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
