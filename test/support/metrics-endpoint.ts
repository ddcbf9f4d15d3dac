import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A registry served on `/metrics` at a free loopback port, for a real Prometheus to scrape. */
export interface MetricsEndpoint {
  readonly server: Server;
  /** `host:port`, as a Prometheus scrape target. */
  readonly target: string;
}

/** Serves `registry` on `http://127.0.0.1:<free port>/metrics`; close `server` when done. */
export async function serveMetrics(registry: Registry): Promise<MetricsEndpoint> {
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, target: `127.0.0.1:${String((server.address() as AddressInfo).port)}` };
}
