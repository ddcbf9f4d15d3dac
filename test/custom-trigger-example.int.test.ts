import { Kafka, logLevel } from 'kafkajs';
import { createTopicsWithLeaders, kafkaBrokersFromEnv, uniqueName } from './support';
import { runExample } from './support/run-example';

// Two runs of the example, each joining a group and checking every second for 12 s.
jest.setTimeout(90_000);

/** How often the example's consumer joined its group: once, plus once per rebalance. */
function joins(output: string): number {
  return output.split('\n').filter((line) => line.includes('"msg":"joined the group"')).length;
}

describe('examples/custom-trigger.ts on a real broker', () => {
  const brokers = kafkaBrokersFromEnv();
  let topic: string;
  const run = (businessHours: string) =>
    runExample('custom-trigger.js', {
      BROKERS: brokers.join(','),
      TOPIC: topic,
      GROUP_ID: uniqueName('custom-trigger'),
      BUSINESS_HOURS: businessHours,
      PERIOD_MS: '3000',
      CHECK_INTERVAL_MS: '1000',
      EXAMPLE_DURATION_MS: '12000',
      LOG_LEVEL: 'debug',
      // The business-hours rule reads local hours; pin them so the test computes the same ones.
      TZ: 'UTC',
    });

  beforeAll(async () => {
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    topic = uniqueName('custom-trigger');
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 3, replicationFactor: 1 }]);
    await admin.disconnect();
  });

  it('rebalances the group on the periodic child within business hours', async () => {
    const { code, output } = await run('0-24');
    expect(output).toContain('within business hours 0-24 h');
    expect(output).toMatch(/trigger fired: any fired \(composite: all fired \(periodic: the period of 3\.0 s/);
    expect(output).toContain('rebalance initiated: epoch bumped to 1');
    // The fire made the group rebalance: the consumer joined again.
    expect(joins(output)).toBeGreaterThanOrEqual(2);
    expect(code).toBe(0);
  });

  it('leaves the group alone outside business hours, saying why at each check', async () => {
    const hour = new Date().getUTCHours();
    // Two hours ahead: closed now and for the next hour, whatever the time of day.
    const closed = `${String((hour + 2) % 24)}-${String((hour + 3) % 24)}`;
    const { code, output } = await run(closed);
    expect(output).toContain('this member is now the trigger coordinator of the group');
    expect(output).toContain(`outside business hours ${closed} h`);
    expect(output).not.toContain('rebalance initiated');
    expect(joins(output)).toBe(1);
    expect(code).toBe(0);
  });
});
