import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** The built `load-aware` binary. */
export const CLI_BIN = join(__dirname, '..', '..', 'packages', 'cli', 'dist', 'bin.js');

/** What the binary printed and returned, and how long it took. */
export interface BinRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/**
 * Runs the CLI as a user would, in a child process on this Node, with `env` added to this
 * process's environment; killed after `timeoutMs`. Never rejects: a failure is its exit code.
 */
export function runCliBin(
  args: ReadonlyArray<string>,
  options: { readonly env?: Readonly<Record<string, string>>; readonly timeoutMs?: number } = {},
): Promise<BinRun> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_BIN, ...args],
      { timeout: options.timeoutMs ?? 30_000, env: { ...process.env, ...options.env } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr, ms: performance.now() - startedAt });
      },
    );
  });
}
