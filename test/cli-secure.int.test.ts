import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, PartitionAssigners, type Consumer } from 'kafkajs';
import { createTopicsWithLeaders, uniqueName } from './support';
import { runCliBin } from './support/cli-bin';
import { waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { startSecureKafka, type SecureKafka } from './support/reliability-secure-kafka';

/**
 * The CLI against a broker that only lets SASL/PLAIN over TLS in, with a self-signed certificate:
 * `--ssl-ca` trusts it, the password comes from the environment and is never printed, and every
 * failure (untrusted certificate, wrong password) is one line on stderr with exit code 1.
 */

const PASSWORD = 'cli-S3cr3t-pw-5d1e';
const WRONG_PASSWORD = 'cli-wrong-pw-0c3a';
const PARTITIONS = 4;

jest.setTimeout(150_000);

/** The password in the environment, as recommended; a TLS handshake plus SASL may take a while. */
function withPassword(password: string): { env: Record<string, string>; timeoutMs: number } {
  return { env: { LOAD_AWARE_SASL_PASSWORD: password }, timeoutMs: 60_000 };
}

let secure: SecureKafka | undefined;
let caFile = '';
let workDir = '';
const groupId = uniqueName('cli-secure-group');
const consumers: Consumer[] = [];

beforeAll(async () => {
  secure = await startSecureKafka({ alice: PASSWORD });
  workDir = await mkdtemp(join(tmpdir(), 'load-aware-cli-secure-'));
  caFile = join(workDir, 'ca.pem');
  await writeFile(caFile, secure.ca);
  // The group itself joins through the plaintext listener: what is under test is the CLI's way in.
  const kafka = new Kafka({ clientId: 'cli-secure', brokers: secure.cluster.brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topic = uniqueName('cli-secure');
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }]);
    await startGroupConsumer(kafka, {
      groupId,
      topic,
      partitionAssigners: [PartitionAssigners.roundRobin],
      created: (c) => consumers.push(c),
    });
    await waitForStableGroup(admin, groupId, 1, PARTITIONS);
  } finally {
    await admin.disconnect();
  }
}, 150_000);

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.disconnect().catch(() => undefined)));
  await secure?.stop();
  if (workDir !== '') await rm(workDir, { recursive: true, force: true });
}, 120_000);

const secureArgs = () => [
  'inspect',
  '--brokers',
  secure!.secureBrokers.join(','),
  '--group',
  groupId,
  '--sasl-mechanism',
  'plain',
  '--sasl-username',
  'alice',
  '--timeout',
  '10',
];

describe('load-aware CLI against a SASL_SSL broker', () => {
  it('connects with --ssl-ca and the password from the environment, and prints neither secret', async () => {
    const run = await runCliBin([...secureArgs(), '--ssl-ca', caFile, '--json'], withPassword(PASSWORD));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { groupId: string; partitionCount: number; state: string };
    expect(report).toMatchObject({ groupId, partitionCount: PARTITIONS, state: 'Stable' });
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  });

  it('refuses an untrusted certificate and a wrong password in one line each, exit 1, no secret', async () => {
    const untrusted = await runCliBin([...secureArgs(), '--ssl'], withPassword(PASSWORD));
    const wrong = await runCliBin([...secureArgs(), '--ssl-ca', caFile, '--verbose'], withPassword(WRONG_PASSWORD));
    process.stdout.write(
      `cli untrusted certificate: ${untrusted.stderr}cli wrong password: ${wrong.stderr.split('\n')[0]!}\n`,
    );
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/^load-aware: cannot reach [^\n]+\n$/);
    expect(untrusted.stdout).toBe('');
    expect(wrong.code).toBe(1);
    // With --verbose the stack follows the one line; the secrets appear in neither.
    expect(wrong.stderr.split('\n')[0]).toMatch(/^load-aware: cannot reach .*(SASL|[Aa]uthentication)/);
    for (const run of [untrusted, wrong]) {
      for (const secret of [PASSWORD, WRONG_PASSWORD]) expect(run.stdout + run.stderr).not.toContain(secret);
    }
  });
});
