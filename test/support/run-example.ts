import { spawn } from 'node:child_process';
import { join } from 'node:path';

const EXAMPLES = join(__dirname, '..', '..', 'examples', '.build');

/**
 * Runs a compiled example (`examples/.build/<file>`) for `EXAMPLE_DURATION_MS` (default 8 s) and
 * returns its exit code and output; killed after a minute. `env` overrides the defaults
 * (`LOG_LEVEL=info`), so a test can ask for debug lines or a longer run.
 */
export function runExample(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(EXAMPLES, file)], {
      env: { ...process.env, EXAMPLE_DURATION_MS: '8000', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    });
  });
}
