import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with the next requests. */
export type FaultMode =
  | { readonly kind: 'pass' }
  /** Forwards after `ms`: a server slower than its client's budget. */
  | { readonly kind: 'delay'; readonly ms: number }
  /** Answers itself with this status and body: a server (or something in between) talking garbage. */
  | { readonly kind: 'garbage'; readonly status: number; readonly body: string };

/** An HTTP proxy in front of a real server that can be made slow or broken at will. */
export interface FaultProxy {
  /** Base URL to give clients instead of the server's. */
  readonly url: string;
  /** Requests received so far, with their headers. */
  readonly requests: ReadonlyArray<{ readonly url: string; readonly headers: IncomingHttpHeaders }>;
  set(mode: FaultMode): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 forwarding to `target` (e.g. a real Prometheus). */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  let mode: FaultMode = { kind: 'pass' };
  const requests: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const current = mode;
      if (current.kind === 'garbage') {
        res.writeHead(current.status, { 'Content-Type': 'application/json' }).end(current.body);
        return;
      }
      const forward = (): void => {
        const out = request(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: upstream.host },
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        out.on('error', () => res.destroy());
        out.end(Buffer.concat(chunks));
      };
      if (current.kind === 'delay') setTimeout(forward, current.ms).unref();
      else forward();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests,
    set(next) {
      mode = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
