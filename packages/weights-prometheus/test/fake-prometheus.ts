import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake server saw it. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  /** The decoded `query` form field (or URL parameter for GET). */
  readonly query: string | undefined;
}

/** What the fake answers with. `delayMs` holds the answer back; `trickleMs` sends the body byte by byte. */
export interface FakeAnswer {
  readonly status?: number;
  readonly body: string;
  readonly delayMs?: number;
  readonly trickleMs?: number;
}

/** A Prometheus HTTP API stand-in on 127.0.0.1 whose answers each test scripts. */
export interface FakePrometheus {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Sets how every following request is answered. */
  answer(answer: FakeAnswer | ((request: RecordedRequest) => FakeAnswer)): void;
  close(): Promise<void>;
}

/** A series for {@link vectorBody}: labels and the sample value as Prometheus writes it. */
export interface FakeSeries {
  readonly metric: Record<string, string>;
  readonly value: string;
}

/** A successful instant-vector body. */
export function vectorBody(series: ReadonlyArray<FakeSeries>): string {
  return JSON.stringify({
    status: 'success',
    data: {
      resultType: 'vector',
      result: series.map((s) => ({ metric: s.metric, value: [1_700_000_000.123, s.value] })),
    },
  });
}

/** Shorthand for one `{topic, partition}` series. */
export function series(
  topic: string,
  partition: number,
  value: string,
  extra: Record<string, string> = {},
): FakeSeries {
  return { metric: { topic, partition: String(partition), ...extra }, value };
}

/** Starts the fake on an ephemeral loopback port. */
export async function startFakePrometheus(): Promise<FakePrometheus> {
  const requests: RecordedRequest[] = [];
  let current: FakeAnswer | ((request: RecordedRequest) => FakeAnswer) = { body: vectorBody([]) };
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const request: RecordedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        headers: req.headers,
        query: form.get('query') ?? url.searchParams.get('query') ?? undefined,
      };
      requests.push(request);
      const answer = typeof current === 'function' ? current(request) : current;
      const send = (): void => {
        res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json' });
        if (answer.trickleMs === undefined) {
          res.end(answer.body);
          return;
        }
        const step = (i: number): void => {
          if (res.destroyed) return;
          if (i >= answer.body.length) {
            res.end();
            return;
          }
          res.write(answer.body.charAt(i));
          later(answer.trickleMs ?? 0, () => {
            step(i + 1);
          });
        };
        step(0);
      };
      if (answer.delayMs === undefined) send();
      else later(answer.delayMs, send);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests,
    answer(answer) {
      current = answer;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

/** A logger that keeps every line, so tests can search what was logged. */
export interface RecordingLogger {
  debug(fields: Record<string, unknown>, message?: string): void;
  info(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  error(fields: Record<string, unknown>, message?: string): void;
  readonly lines: Array<{ level: string; fields: Record<string, unknown>; message: string | undefined }>;
}

/** A {@link RecordingLogger}. */
export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger['lines'] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message?: string): void => {
      lines.push({ level, fields, message });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * Every string reachable from `value` through own properties (enumerable or not), the error
 * `cause` chain included: what a test searches for a leaked secret.
 */
export function reachableStrings(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  const out: string[] = [];
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor !== undefined && 'value' in descriptor) out.push(...reachableStrings(descriptor.value, seen));
  }
  if (value instanceof Error) out.push(value.message, value.stack ?? '', String(value));
  return out;
}
