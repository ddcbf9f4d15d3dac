import { DemoUsageError, parseArgs } from '../demo/options';
import { instanceSpec } from '../demo/phase';

describe('the demo command line', () => {
  it('runs KafkaJS consumers unless --client platformatic says otherwise', () => {
    expect(parseArgs([]).client).toBe('kafkajs');
    expect(parseArgs(['--client', 'platformatic']).client).toBe('platformatic');
    expect(() => parseArgs(['--client', 'rdkafka'])).toThrow(DemoUsageError);
    expect(() => parseArgs(['--client', 'rdkafka'])).toThrow(/--client rdkafka/);
  });

  it('asks the instance processes for platformatic consumers only when the client is platformatic', () => {
    const site = (client: 'kafkajs' | 'platformatic') => ({
      brokers: ['127.0.0.1:9092'],
      options: parseArgs(['--client', client]),
      groupId: 'g',
      topic: 't',
    });
    const instance = { instanceId: 'instance-a', members: 1 };
    expect(instanceSpec('load-aware', site('platformatic'), instance, 1000).client).toBe('platformatic');
    expect(instanceSpec('load-aware', site('kafkajs'), instance, 1000)).not.toHaveProperty('client');
  });
});
