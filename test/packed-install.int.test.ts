/**
 * The published packages as a user gets them: `pnpm pack` every package, install the tarballs with
 * npm into a fresh project outside the repository (plus kafkajs, prom-client, typescript and
 * @types/node from the registry), type-check the root README's usage against them in strict mode
 * and run it against the test broker until it has consumed what this test produced. Proves the
 * tarballs are installable and self-sufficient: nothing missing from `files`, no dependency
 * missing from `dependencies`, no devDependency needed at runtime, types that resolve.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaBrokersFromEnv, uniqueName } from './support';

const ROOT = join(__dirname, '..');
const MESSAGES = 30;
const NPM_TIMEOUT_MS = 300_000;

interface RunResult {
  readonly code: number | null;
  readonly output: string;
}

/**
 * The environment for npm and the packed consumer: this process's, minus what `pnpm exec` adds
 * (`npm_config_user_agent`, `pnpm_config_*`), which would make npm believe pnpm runs it. A
 * configured registry or cache is kept.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
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
function run(
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
async function runOk(command: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<string> {
  const { code, output } = await run(command, args, cwd, timeoutMs);
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${String(code)}:\n${output}`);
  return output;
}

/** Milliseconds `action` took, and its result. */
async function timed<T>(action: () => Promise<T>): Promise<[T, number]> {
  const start = Date.now();
  const result = await action();
  return [result, Date.now() - start];
}

interface Manifest {
  name: string;
  private?: boolean;
  devDependencies?: Record<string, string>;
}

async function readManifest(path: string): Promise<Manifest> {
  return JSON.parse(await readFile(path, 'utf8')) as Manifest;
}

describe('packed tarballs', () => {
  const brokers = kafkaBrokersFromEnv();
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'load-aware-packed-'));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('install with npm into a fresh project, type-check the README usage and consume from the broker', async () => {
    // A directory per attempt: jest retries integration tests once.
    const attempt = await mkdtemp(join(work, 'attempt-'));
    // 1. Pack every published package (tsc -b already built dist/).
    const tarballs = join(attempt, 'tarballs');
    await mkdir(tarballs);
    const published: string[] = [];
    const [, packMs] = await timed(async () => {
      for (const dir of (await readdir(join(ROOT, 'packages'))).sort()) {
        const manifest = await readManifest(join(ROOT, 'packages', dir, 'package.json'));
        if (manifest.private === true) continue;
        published.push(manifest.name);
        await runOk('pnpm', ['pack', '--pack-destination', tarballs], join(ROOT, 'packages', dir), 120_000);
      }
    });
    const files = (await readdir(tarballs)).filter((f) => f.endsWith('.tgz')).sort();
    expect(files).toHaveLength(published.length);
    expect(published).toEqual(
      expect.arrayContaining([
        '@load-aware/assignor',
        '@load-aware/weights-offset-rate',
        '@load-aware/weights-prometheus',
        '@load-aware/trigger',
        '@load-aware/busy-time',
      ]),
    );

    // 2. A fresh project: the tarballs plus what a user installs next to them, from the registry.
    // typescript and @types/node at the versions this repository builds with.
    const rootDev = (await readManifest(join(ROOT, 'package.json'))).devDependencies ?? {};
    const app = join(attempt, 'app');
    await mkdir(join(app, 'src'), { recursive: true });
    await writeFile(
      join(app, 'package.json'),
      `${JSON.stringify({ name: 'packed-consumer', version: '0.0.0', private: true, type: 'commonjs' }, null, 2)}\n`,
    );
    const [, installMs] = await timed(() =>
      runOk(
        'npm',
        [
          'install',
          '--no-audit',
          '--no-fund',
          '--prefer-offline',
          ...files.map((f) => join(tarballs, f)),
          'kafkajs@^2.2.4',
          'prom-client@^15.1.3',
          `typescript@${rootDev['typescript'] ?? 'latest'}`,
          `@types/node@${rootDev['@types/node'] ?? '^20'}`,
        ],
        app,
        NPM_TIMEOUT_MS,
      ),
    );

    // Every @load-aware package came from its tarball, once: none fetched from a registry.
    const lock = JSON.parse(await readFile(join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    const ours = Object.entries(lock.packages).filter(([path]) => path.includes('node_modules/@load-aware/'));
    expect(ours.map(([path]) => path).sort()).toEqual(published.map((name) => `node_modules/${name}`).sort());
    for (const [, entry] of ours) expect(entry.resolved).toMatch(/^file:/);
    // No missing or invalid dependency, peer dependencies included.
    await runOk('npm', ['ls', '--all'], app, 60_000);

    // 3. The README's usage, compiled in strict mode against the installed packages' types.
    await copyFile(join(ROOT, 'test', 'fixtures', 'packed-consumer.ts'), join(app, 'src', 'consumer.ts'));
    await writeFile(
      join(app, 'tsconfig.json'),
      `${JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: ['node'],
            strict: true,
            noEmitOnError: true,
            // Our .d.ts files are checked too: an import of something not shipped fails here.
            skipLibCheck: false,
            rootDir: 'src',
            outDir: 'dist',
          },
          include: ['src'],
        },
        null,
        2,
      )}\n`,
    );
    const [, tscMs] = await timed(() =>
      runOk(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], app, 180_000),
    );

    // 4. Run it against the test broker, on the Node running this test, until it has consumed
    // every message produced here.
    const topic = uniqueName('packed');
    const groupId = uniqueName('packed-group');
    const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({
        topic,
        messages: Array.from({ length: MESSAGES }, (_, i) => ({ key: `k${String(i)}`, value: `v${String(i)}` })),
      });
    } finally {
      await producer.disconnect();
    }
    const [{ code, output }, runMs] = await timed(() =>
      run(
        process.execPath,
        [join(app, 'dist', 'consumer.js')],
        app,
        90_000,
        cleanEnv({
          BROKERS: brokers.join(','),
          TOPIC: topic,
          GROUP_ID: groupId,
          EXPECTED: String(MESSAGES),
          DEADLINE_MS: '45000',
        }),
      ),
    );
    const resultLine = output.split('\n').find((l) => l.startsWith('RESULT '));
    if (code !== 0 || resultLine === undefined) {
      throw new Error(`packed consumer exited ${String(code)}:\n${output}`);
    }
    const result = JSON.parse(resultLine.slice('RESULT '.length)) as {
      consumed: number;
      protocol: string;
      node: string;
      metrics: string;
    };
    expect(result.consumed).toBeGreaterThanOrEqual(MESSAGES);
    expect(result.node).toBe(process.version);
    // The group ran the load-aware protocol, and this member (the only one, so the leader)
    // computed a load-aware assignment rather than the round-robin fallback.
    expect(result.protocol).toBe('LoadAwareAssigner');
    expect(output).toContain('load-aware assignment:');
    expect(result.metrics).toMatch(/load_aware_assignments_total\{[^}]*result="load_aware"[^}]*\} [1-9]/);
    expect(result.metrics).toContain('load_aware_offset_rate_tracked_partitions');
    expect(result.metrics).toContain('load_aware_trigger_coordinator');
    // The busy-time counters, on the registry of the prom-client the app installed.
    expect(result.metrics).toMatch(
      new RegExp(`load_aware_handler_messages_total\\{topic="${topic}",partition="\\d"\\} [1-9]`),
    );
    expect(result.metrics).toContain('load_aware_handler_busy_seconds_total');

    process.stdout.write(
      `packed install on ${process.version}: pack ${String(packMs)} ms, npm install ${String(installMs)} ms, ` +
        `tsc ${String(tscMs)} ms, consume ${String(runMs)} ms\n`,
    );
  }, 600_000);
});
