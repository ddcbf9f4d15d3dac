import { join } from 'node:path';
import { findBinary, prepareServerRun, startServerProcess, type MetricsServer } from './prometheus-process';

/** The Prometheus binary (Debian package `prometheus`; `PROMETHEUS_BIN` overrides). */
export const PROMETHEUS = findBinary('prometheus', 'prometheus', 'PROMETHEUS_BIN');

/** A real Prometheus server on a free loopback port. */
export interface PrometheusServer extends MetricsServer {
  readonly pid: number;
}

/** Options of {@link startPrometheus}. */
export interface StartPrometheusOptions {
  /** `host:port` targets scraped every second under job `exporter`. */
  readonly targets: ReadonlyArray<string>;
}

/**
 * Starts Prometheus with a temp TSDB and a generated config scraping `targets` every second,
 * under a guard that kills it if this process dies; resolves once `/-/ready` answers. Its first
 * scrape lands about five seconds later (the scrape manager applies targets on a 5 s tick), so
 * wait for data with the source itself.
 */
export async function startPrometheus(options: StartPrometheusOptions): Promise<PrometheusServer> {
  const { binary, dir, port, url, config } = await prepareServerRun(
    PROMETHEUS,
    'prometheus',
    'prometheus.yml',
    scrapeConfig(options.targets, true),
  );
  const server = await startServerProcess({
    label: 'Prometheus',
    dir,
    command: [
      binary,
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
    ],
    readyUrl: `${url}/-/ready`,
  });
  return { url, pid: server.pid, stop: () => server.stop() };
}

/**
 * A scrape config for `targets` at a 1 s interval. VictoriaMetrics parses it strictly and knows
 * no `evaluation_interval`, hence the switch.
 */
export function scrapeConfig(targets: ReadonlyArray<string>, withEvaluationInterval: boolean): string {
  return [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    ...(withEvaluationInterval ? ['  evaluation_interval: 1s'] : []),
    'scrape_configs:',
    '  - job_name: exporter',
    '    static_configs:',
    `      - targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}]`,
    '',
  ].join('\n');
}
