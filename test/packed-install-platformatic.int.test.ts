/**
 * @load-aware/platformatic as a user without KafkaJS gets it: `pnpm pack` the assignor and the
 * platformatic package, install the tarballs with npm into a fresh project outside the repository
 * with @platformatic/kafka (no kafkajs), type-check the package README's wiring in strict mode and
 * run it against the test broker until it has consumed what this test produced. Needs the Node
 * platformatic needs (>= 22.22 or >= 24.6): CI's Node 24 integration pass; skipped, visibly, on 20.
 */
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { platformaticNode } from './support/platformatic-node';
import { readManifest, runOk, runPackedConsumer, timed, writeStrictTsconfig } from './support/npm-project';

const ROOT = join(__dirname, '..');
const MESSAGES = 30;
const PACKED = ['assignor', 'platformatic'];

const { supported, reason } = platformaticNode();
const describeOnSupportedNode = supported ? describe : describe.skip;

describeOnSupportedNode(`packed @load-aware/platformatic without kafkajs${reason}`, () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'load-aware-packed-platformatic-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('installs with npm next to @platformatic/kafka alone, type-checks the README wiring and consumes from the broker', async () => {
    const brokers = kafkaBrokersFromEnv();
    const attempt = await mkdtemp(join(work, 'attempt-'));
    const tarballs = join(attempt, 'tarballs');
    await mkdir(tarballs);
    const [, packMs] = await timed(async () => {
      for (const dir of PACKED)
        await runOk('pnpm', ['pack', '--pack-destination', tarballs], join(ROOT, 'packages', dir), 120_000);
    });
    const files = (await readdir(tarballs)).filter((f) => f.endsWith('.tgz')).sort();
    expect(files).toHaveLength(PACKED.length);

    const rootDev = (await readManifest(join(ROOT, 'package.json'))).devDependencies ?? {};
    const platformaticVersion =
      (await readManifest(join(ROOT, 'packages', 'platformatic', 'package.json'))).devDependencies?.[
        '@platformatic/kafka'
      ] ?? '2.12.1';
    const app = join(attempt, 'app');
    await mkdir(join(app, 'src'), { recursive: true });
    await writeFile(
      join(app, 'package.json'),
      `${JSON.stringify({ name: 'packed-platformatic', version: '0.0.0', private: true, type: 'commonjs' }, null, 2)}\n`,
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
          `@platformatic/kafka@${platformaticVersion}`,
          'prom-client@^15.1.3',
          `typescript@${rootDev['typescript'] ?? 'latest'}`,
          `@types/node@${rootDev['@types/node'] ?? '^20'}`,
        ],
        app,
        300_000,
      ),
    );
    // kafkajs is an optional peer of the assignor: nothing brought it in.
    expect(existsSync(join(app, 'node_modules', 'kafkajs'))).toBe(false);
    const lock = JSON.parse(await readFile(join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    expect(Object.keys(lock.packages).filter((p) => p.endsWith('node_modules/kafkajs'))).toEqual([]);
    await runOk('npm', ['ls', '--all'], app, 60_000);

    await copyFile(join(ROOT, 'test', 'fixtures', 'packed-platformatic-consumer.ts'), join(app, 'src', 'consumer.ts'));
    // platformatic's own declarations import `.ts` paths, which only a check of its library
    // needs to allow; ours are checked through the types the consumer uses.
    await writeStrictTsconfig(app, true);
    const [, tscMs] = await timed(() =>
      runOk(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], app, 180_000),
    );

    const topic = uniqueName('packed-platformatic');
    const groupId = uniqueName('packed-platformatic-group');
    const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await createTopicsWithLeaders(admin, [{ topic, numPartitions: 4, replicationFactor: 1 }]);
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({
        topic,
        messages: Array.from({ length: MESSAGES }, (_, i) => ({ value: `v${String(i)}` })),
      });
      await producer.disconnect();
      const { result, output, runMs } = await runPackedConsumer(app, {
        BROKERS: brokers.join(','),
        TOPIC: topic,
        GROUP_ID: groupId,
        EXPECTED: String(MESSAGES),
        DEADLINE_MS: '45000',
      });
      expect(result.consumed).toBeGreaterThanOrEqual(MESSAGES);
      expect(result.node).toBe(process.version);
      expect(result.protocol).toBe('LoadAwareAssigner');
      expect(output).toContain('load-aware assignment:');
      expect(result.metrics).toMatch(/load_aware_assignments_total\{[^}]*result="load_aware"[^}]*\} [1-9]/);
      process.stdout.write(
        `packed platformatic install on ${process.version}: pack ${String(packMs)} ms, npm install ${String(installMs)} ms, tsc ${String(tscMs)} ms, consume ${String(runMs)} ms\n`,
      );
    } finally {
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    }
  }, 600_000);
});
