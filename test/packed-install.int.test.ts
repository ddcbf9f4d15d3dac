/**
 * The published packages as a user gets them: `pnpm pack` every package, install the tarballs with
 * npm into a fresh project outside the repository (plus kafkajs, prom-client, typescript and
 * @types/node from the registry), type-check the root README's usage against them in strict mode
 * and run it against the test broker until it has consumed what this test produced. Proves the
 * tarballs are installable and self-sufficient: nothing missing from `files`, no dependency
 * missing from `dependencies`, no devDependency needed at runtime, types that resolve.
 */
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { readManifest, runOk, runPackedConsumer, timed, writeStrictTsconfig } from './support/npm-project';

const ROOT = join(__dirname, '..');
const MESSAGES = 30;
const NPM_TIMEOUT_MS = 300_000;

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
        '@load-aware/weights-otel',
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
          'kafkajs@~2.2.4',
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
    // Our .d.ts files are checked too: an import of something not shipped fails here.
    await writeStrictTsconfig(app, false);
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
      await createTopicsWithLeaders(admin, [{ topic, numPartitions: 3, replicationFactor: 1 }]);
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
    const { result, output, runMs } = await runPackedConsumer(app, {
      BROKERS: brokers.join(','),
      TOPIC: topic,
      GROUP_ID: groupId,
      EXPECTED: String(MESSAGES),
      DEADLINE_MS: '45000',
    });
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
