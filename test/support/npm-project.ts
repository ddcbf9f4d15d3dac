/**
 * Running npm, pnpm and node in a fresh project outside the repository, for the packed-install
 * tests (KafkaJS and platformatic): a clean environment, a process-group timeout, timings.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What a finished command printed (stdout and stderr together) and its exit code. */
export interface RunResult {
  readonly code: number | null;
  readonly output: string;
}

/**
 * The environment for npm and the packed consumer: this process's, minus what `pnpm exec` adds
 * (`npm_config_user_agent`, `pnpm_config_*`), which would make npm believe pnpm runs it. A
 * configured registry or cache is kept.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    const dropped =
      lower.startsWith('pnpm_') || (lower.startsWith('npm_') && !/^npm_config_(registry|cache)$/.test(lower));
    if (!dropped) env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command in its own process group and kills the whole group when `timeoutMs` passes. */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
  env = cleanEnv(),
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let timedOut = false;
    const killer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(killer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(killer);
      if (timedOut) output += `\n[killed after ${String(timeoutMs)} ms]`;
      resolve({ code, output });
    });
  });
}

/** `run`, failing with the command's output unless it exits 0. */
export async function runOk(command: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<string> {
  const { code, output } = await run(command, args, cwd, timeoutMs);
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${String(code)}:\n${output}`);
  return output;
}

/** Milliseconds `action` took, and its result. */
export async function timed<T>(action: () => Promise<T>): Promise<[T, number]> {
  const start = Date.now();
  const result = await action();
  return [result, Date.now() - start];
}

export interface Manifest {
  name: string;
  private?: boolean;
  devDependencies?: Record<string, string>;
}

export async function readManifest(path: string): Promise<Manifest> {
  return JSON.parse(await readFile(path, 'utf8')) as Manifest;
}

/**
 * Writes the strict tsconfig a user's project would have (NodeNext, `strict`, no emit on error).
 * `skipLibCheck: false` also checks the installed packages' declarations, so an import of
 * something a tarball does not ship fails.
 */
export async function writeStrictTsconfig(app: string, skipLibCheck: boolean): Promise<void> {
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    noEmitOnError: true,
    skipLibCheck,
    rootDir: 'src',
    outDir: 'dist',
  };
  await writeFile(join(app, 'tsconfig.json'), `${JSON.stringify({ compilerOptions, include: ['src'] }, null, 2)}\n`);
}

/** The `RESULT` line of a packed consumer: what it consumed, the group's protocol, its Node, its metrics. */
export interface PackedResult {
  readonly consumed: number;
  readonly protocol: string;
  readonly node: string;
  readonly metrics: string;
}

/**
 * Runs the project's compiled `dist/consumer.js` on this Node with `env` added, and returns the
 * JSON of its `RESULT {...}` line with everything it printed; fails with the output when it exits
 * non-zero or prints no result.
 */
export async function runPackedConsumer(
  app: string,
  env: Record<string, string>,
): Promise<{ readonly result: PackedResult; readonly output: string; readonly runMs: number }> {
  const [{ code, output }, runMs] = await timed(() =>
    run(process.execPath, [join(app, 'dist', 'consumer.js')], app, 90_000, cleanEnv(env)),
  );
  const resultLine = output.split('\n').find((l) => l.startsWith('RESULT '));
  if (code !== 0 || resultLine === undefined) throw new Error(`packed consumer exited ${String(code)}:\n${output}`);
  return { result: JSON.parse(resultLine.slice('RESULT '.length)) as PackedResult, output, runMs };
}
