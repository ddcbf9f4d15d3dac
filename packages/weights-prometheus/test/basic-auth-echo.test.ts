import { PrometheusQueryError, createPrometheusWeightSource } from '@load-aware/weights-prometheus/internal';
import { Registry } from 'prom-client';
import { rejectionOf } from '@load-aware/test-support';
import { reachableStrings, recordingLogger, startFakePrometheus, type FakePrometheus } from './fake-prometheus';

/**
 * A Prometheus (or a proxy in front of it) that decodes Basic credentials and echoes them in its
 * error page must not get the password into an error message, a cause, a log line or a metric:
 * not as the header, not as the base64 credentials, not as `user:password`, not alone.
 */

const QUERY = 'sum by (topic, partition) (rate(x{topic=~"%s"}[1m]))';
const USER = 'metrics-reader';
const PASSWORD = 'pa55-w0rd-9f3e';
const AUTHORIZATION = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

let fake: FakePrometheus;
beforeEach(async () => {
  fake = await startFakePrometheus();
});
afterEach(async () => {
  await fake.close();
});

/** What the server answers with, built from the header it received. */
const echoes: Record<string, (user: string, password: string) => { status: number; body: string }> = {
  'user:password': (user, password) => ({ status: 401, body: `invalid credentials ${user}:${password}` }),
  'the password alone': (user, password) => ({ status: 401, body: `user ${user}: wrong password "${password}"` }),
  'JSON error with the pair': (user, password) => ({
    status: 200,
    body: JSON.stringify({ status: 'error', errorType: 'auth', error: `denied ${user}:${password}` }),
  }),
};

describe('a server echoing decoded Basic credentials', () => {
  it.each(Object.keys(echoes))('never gets the password through (%s)', async (name) => {
    fake.answer((request) => {
      const header = String(request.headers.authorization);
      const [user = '', password = ''] = Buffer.from(header.slice('Basic '.length), 'base64')
        .toString('utf8')
        .split(':');
      return echoes[name]!(user, password);
    });
    const logger = recordingLogger();
    const registry = new Registry();
    const source = createPrometheusWeightSource({
      url: fake.url,
      query: QUERY,
      authorization: AUTHORIZATION,
      logger,
      registry,
    });
    const err = await rejectionOf(source.getWeights([{ topic: 't', partition: 0 }]), PrometheusQueryError);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(AUTHORIZATION);
    const reachable = [...reachableStrings(err), ...reachableStrings(logger.lines), await registry.metrics()];
    expect(reachable.filter((text) => text.includes(PASSWORD))).toEqual([]);
    expect(err.message).toContain('[REDACTED]');
    // The user name alone is not a secret and stays, so the message still says who was refused.
    if (name === 'the password alone') expect(err.message).toContain(`user ${USER}`);
  });
});
