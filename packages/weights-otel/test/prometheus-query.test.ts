import { ConfigError } from '@load-aware/assignor';
import { errorThrownBy } from '@load-aware/test-support';
import { otelPrometheusQuery } from '@load-aware/weights-otel';

describe('otelPrometheusQuery', () => {
  it('sums the rate of the histogram sum by topic and partition, with the labels Prometheus gives them', () => {
    expect(otelPrometheusQuery()).toEqual({
      query:
        'sum by (messaging_destination_name, messaging_destination_partition_id) ' +
        '(rate({__name__=~"messaging_process_duration(_seconds)?_sum", messaging_destination_name=~"%s"}[5m]))',
      topicLabel: 'messaging_destination_name',
      partitionLabel: 'messaging_destination_partition_id',
    });
  });

  it('takes the window and more label matchers', () => {
    const { query } = otelPrometheusQuery({ window: '1m30s', matchers: ' job="orders", service_name=~"a[bc]" ' });
    expect(query).toContain('messaging_destination_name=~"%s", job="orders", service_name=~"a[bc]"}[1m30s]');
  });

  it.each([
    [{ window: '5 minutes' }, 'window'],
    [{ window: '' }, 'window'],
    [{ matchers: '{job="x"}' }, 'matchers'],
    [{ matchers: '  ' }, 'matchers'],
    [{ range: '5m' }, 'range'],
  ])('refuses %j with a ConfigError naming %s', (options, key) => {
    const err = errorThrownBy(() => otelPrometheusQuery(options as never), ConfigError);
    expect(err.message).toContain(key);
  });
});
