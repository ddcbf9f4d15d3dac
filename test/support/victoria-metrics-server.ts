import { join } from 'node:path';
import { findBinary, prepareServerRun, startServerProcess, type MetricsServer } from './prometheus-process';
import { scrapeConfig } from './prometheus-server';

/** The single-node VictoriaMetrics binary (Debian package `victoria-metrics`; `VICTORIA_METRICS_BIN` overrides). */
export const VICTORIA_METRICS = findBinary('victoria-metrics', 'victoria-metrics', 'VICTORIA_METRICS_BIN');

/** A real single-node VictoriaMetrics on a free loopback port. */
export interface VictoriaMetricsServer extends MetricsServer {
  /** The Prometheus-compatible API under its path prefix: `{url}/prometheus`. */
  readonly prometheusUrl: string;
  /** The `Authorization` value that opens it, when started with basic auth. */
  readonly authorization: string | undefined;
  /** Makes recently scraped samples searchable now instead of within seconds. */
  flush(): Promise<void>;
}

/** Options of {@link startVictoriaMetrics}. */
export interface StartVictoriaMetricsOptions {
  /** `host:port` targets scraped every second under job `exporter`. */
  readonly targets: ReadonlyArray<string>;
  /** Require HTTP basic auth with these credentials on every endpoint. */
  readonly basicAuth?: { readonly username: string; readonly password: string };
}

/**
 * Starts VictoriaMetrics with a temp storage dir, scraping `targets` every second with its
 * built-in scraper, under a guard that kills it if this process dies; resolves once `/health`
 * answers. `-search.latencyOffset=0s`: by default instant queries ignore the last 30 s of samples,
 * which would hide everything a short test scrapes.
 */
export async function startVictoriaMetrics(options: StartVictoriaMetricsOptions): Promise<VictoriaMetricsServer> {
  const { binary, dir, port, url, config } = await prepareServerRun(
    VICTORIA_METRICS,
    'victoria',
    'scrape.yml',
    scrapeConfig(options.targets, false),
  );
  const auth = options.basicAuth;
  const authorization =
    auth === undefined ? undefined : `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  const headers: Record<string, string> = authorization === undefined ? {} : { Authorization: authorization };
  const server = await startServerProcess({
    label: 'VictoriaMetrics',
    dir,
    command: [
      binary,
      `-httpListenAddr=127.0.0.1:${String(port)}`,
      `-storageDataPath=${join(dir, 'data')}`,
      `-promscrape.config=${config}`,
      '-search.latencyOffset=0s',
      '-retentionPeriod=1d',
      // The tests need a few MB; VictoriaMetrics would otherwise size its caches to the machine.
      '-memory.allowedPercent=5',
      ...(auth === undefined ? [] : [`-httpAuth.username=${auth.username}`, `-httpAuth.password=${auth.password}`]),
    ],
    readyUrl: `${url}/health`,
    readyHeaders: headers,
  });
  return {
    url,
    prometheusUrl: `${url}/prometheus`,
    authorization,
    async flush() {
      await fetch(`${url}/internal/force_flush`, { headers });
    },
    stop: () => server.stop(),
  };
}
