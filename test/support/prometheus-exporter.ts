import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A sample value the exporter writes: a number, or Prometheus's `NaN`, `+Inf`, `-Inf`. */
export type ExportedValue = number | 'NaN' | '+Inf' | '-Inf';

/** A tiny Prometheus exporter on 127.0.0.1 whose gauges the test sets. */
export interface PrometheusExporter {
  /** `127.0.0.1:<port>`, the scrape target. */
  readonly target: string;
  /** How many times it has been scraped. */
  readonly scrapes: number;
  /** Sets (or adds) one gauge series. */
  set(metric: string, labels: Record<string, string>, value: ExportedValue): void;
  /** Resolves after `count` more scrapes (bounded by `timeoutMs`): the server has seen the latest values. */
  waitForScrapes(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts an exporter serving `/metrics` in the Prometheus text format 0.0.4. */
export async function startPrometheusExporter(): Promise<PrometheusExporter> {
  const series = new Map<string, { metric: string; labels: Record<string, string>; value: ExportedValue }>();
  let scrapes = 0;
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    scrapes += 1;
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
    res.end(render([...series.values()]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const target = `127.0.0.1:${String(port)}`;
  return {
    target,
    get scrapes() {
      return scrapes;
    },
    set(metric, labels, value) {
      series.set(`${metric}${JSON.stringify(Object.entries(labels).sort())}`, { metric, labels, value });
    },
    async waitForScrapes(count, timeoutMs = 15_000) {
      const goal = scrapes + count;
      const deadline = Date.now() + timeoutMs;
      while (scrapes < goal) {
        if (Date.now() > deadline) throw new Error(`exporter ${target} not scraped ${String(count)} times in time`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

function render(all: ReadonlyArray<{ metric: string; labels: Record<string, string>; value: ExportedValue }>): string {
  const lines: string[] = [];
  for (const metric of [...new Set(all.map((s) => s.metric))].sort()) {
    lines.push(`# TYPE ${metric} gauge`);
    for (const s of all.filter((x) => x.metric === metric)) {
      const labels = Object.entries(s.labels)
        .map(
          ([name, value]) =>
            `${name}="${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`,
        )
        .join(',');
      lines.push(`${metric}{${labels}} ${String(s.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
