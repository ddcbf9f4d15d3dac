import { join } from 'node:path';
import { findBinary, prepareServerRun, startServerProcess, type MetricsServer } from './prometheus-process';

/** The Prometheus binary (Debian package `prometheus`; `PROMETHEUS_BIN` overrides). */
export const PROMETHEUS = findBinary('prometheus', 'prometheus', 'PROMETHEUS_BIN');

/** A real Prometheus server on a free loopback port. */
export interface PrometheusServer extends MetricsServer {
  readonly pid: number;
}

/** Options of {@link startPrometheus}. */
export interface StartPrometheusOptions extends ScrapeExtras {
  /** `host:port` targets scraped every second under job `exporter`. */
  readonly targets: ReadonlyArray<string>;
  /** Rule files (absolute paths) Prometheus loads and evaluates every second. */
  readonly ruleFiles?: ReadonlyArray<string>;
}

/** One `metric_relabel_configs` entry: rewrites `targetLabel` of the samples whose `sourceLabel` matches `regex`. */
export interface MetricRelabel {
  readonly sourceLabel: string;
  /** An RE2 regex, anchored by Prometheus at both ends. */
  readonly regex: string;
  readonly targetLabel: string;
  readonly replacement: string;
}

/** What a scrape config may add to the targets. */
export interface ScrapeExtras {
  /**
   * Rewrites applied to every scraped sample before it is stored, e.g. to give a test's random
   * group name the name a manifest's query selects.
   */
  readonly metricRelabels?: ReadonlyArray<MetricRelabel>;
}

/**
 * Starts Prometheus with a temp TSDB and a generated config scraping `targets` (and evaluating
 * `ruleFiles`) every second, under a guard that kills it if this process dies; resolves once
 * `/-/ready` answers. Its first scrape lands about five seconds later (the scrape manager applies
 * targets on a 5 s tick), so wait for data with the source itself.
 */
export async function startPrometheus(options: StartPrometheusOptions): Promise<PrometheusServer> {
  const { binary, dir, port, url, config } = await prepareServerRun(
    PROMETHEUS,
    'prometheus',
    'prometheus.yml',
    scrapeConfig(options.targets, true, options) + ruleFilesConfig(options.ruleFiles ?? []),
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

/** The `rule_files` section, empty without files. */
function ruleFilesConfig(files: ReadonlyArray<string>): string {
  if (files.length === 0) return '';
  return ['rule_files:', ...files.map((f) => `  - ${JSON.stringify(f)}`), ''].join('\n');
}

/**
 * A scrape config for `targets` at a 1 s interval. VictoriaMetrics parses it strictly and knows
 * no `evaluation_interval`, hence the switch.
 */
export function scrapeConfig(
  targets: ReadonlyArray<string>,
  withEvaluationInterval: boolean,
  extras: ScrapeExtras = {},
): string {
  const relabels = extras.metricRelabels ?? [];
  return [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    ...(withEvaluationInterval ? ['  evaluation_interval: 1s'] : []),
    'scrape_configs:',
    '  - job_name: exporter',
    '    static_configs:',
    `      - targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}]`,
    ...(relabels.length === 0 ? [] : ['    metric_relabel_configs:']),
    // JSON is YAML: the values need no escaping of their own.
    ...relabels.map(
      (r) =>
        `      - ${JSON.stringify({
          source_labels: [r.sourceLabel],
          regex: r.regex,
          target_label: r.targetLabel,
          replacement: r.replacement,
        })}`,
    ),
    '',
  ].join('\n');
}
