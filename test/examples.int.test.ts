import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaBrokersFromEnv, uniqueName } from './support';

const EXAMPLES = join(__dirname, '..', 'examples', '.build');

/** Runs a compiled example for a few seconds and returns its exit code and output. */
function runExample(file: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(EXAMPLES, file)], {
      env: { ...process.env, ...env, EXAMPLE_DURATION_MS: '6000', LOG_LEVEL: 'info' },
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

describe('examples', () => {
  const brokers = kafkaBrokersFromEnv();
  let topic: string;

  beforeAll(async () => {
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    topic = uniqueName('examples');
    await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
    await admin.disconnect();
  });

  it.each([
    ['offset-rate-weights.js', 'load-aware assignment'],
    ['custom-weight-source.js', 'load-aware assignment'],
    // No Prometheus listens on this port: the example must fall back to round-robin and keep going.
    ['prometheus-weights.js', 'falling back to round-robin'],
  ])('%s joins a group, assigns, and exits cleanly', async (file, expected) => {
    const { code, output } = await runExample(file, {
      BROKERS: brokers.join(','),
      TOPIC: topic,
      GROUP_ID: uniqueName('example'),
      PROMETHEUS_URL: 'http://127.0.0.1:9',
    });
    expect(output).toContain(expected);
    expect(code).toBe(0);
  });
});
