import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** How many ports below the kernel's ephemeral range we draw from. */
const BAND_WIDTH = 12_000;

/** Lanes that can run side by side (`scripts/test.sh` numbers them from 0). */
const LANE_SLOTS = 4;

/** Jest workers a lane can run side by side; more share slots modulo this. */
const WORKER_SLOTS = 8;

/**
 * Ports this process has handed out: never handed out again, so a broker stopped for a restart
 * cannot lose its port to a later draw in the same process.
 */
const handedOut = new Set<number>();

/**
 * Finds `count` distinct TCP ports on 127.0.0.1 that are free right now.
 *
 * The ports come from a band just below the kernel's ephemeral range, never from it: a broker
 * that is stopped and restarted on its old port must find that port still free, and a port in
 * the ephemeral range can meanwhile become the local end of any outgoing connection on the
 * machine (another test lane's client, for one), which made restarts fail with "Address already
 * in use". Candidates are drawn at random and checked by binding them; all listeners stay open
 * until every port is known, then close, which leaves only the small window before the caller
 * binds.
 *
 * Each test process draws from a slice of the band of its own, chosen by its lane
 * (`LOAD_AWARE_PORT_LANE`, set by `scripts/test.sh`) and its jest worker (`JEST_WORKER_ID`): a
 * broker restarted on its old port found it taken by another lane's broker, drawn from the same
 * band in the moment between stop and restart. Within a process, a port is handed out once.
 */
export async function findFreePorts(count: number): Promise<number[]> {
  const band = sliceFor(portBand(), process.env);
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    // Bounded: a band with too few free ports falls back to the kernel's choice.
    for (let attempts = 0; ports.length < count && attempts < count * 50; attempts += 1) {
      const candidate = band.from + Math.floor(Math.random() * (band.to - band.from));
      if (ports.includes(candidate) || handedOut.has(candidate)) continue;
      const server = createServer();
      try {
        ports.push(await listen(server, candidate));
        servers.push(server);
      } catch {
        // Taken: draw another.
      }
    }
    while (ports.length < count) {
      const server = createServer();
      servers.push(server);
      ports.push(await listen(server, 0));
    }
    for (const port of ports) handedOut.add(port);
    return ports;
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}

/** Ports `[from, to)` just below the ephemeral range (Linux's default starts at 32768). */
function portBand(): { from: number; to: number } {
  let ephemeralFrom = 32_768;
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const parsed = Number(low);
    if (Number.isInteger(parsed) && parsed > 0) ephemeralFrom = parsed;
  } catch {
    // Not Linux, or no /proc: keep the default.
  }
  const to = Math.max(ephemeralFrom, 2048);
  return { from: Math.max(1024, to - BAND_WIDTH), to };
}

/**
 * The slice of `band` for this lane and worker: `LANE_SLOTS × WORKER_SLOTS` disjoint slices, so
 * processes running side by side never draw the same port. Without a lane (a run outside
 * `scripts/test.sh`) the lane is 0; outside a jest worker, the worker slot is 0.
 */
export function sliceFor(
  band: { from: number; to: number },
  env: Record<string, string | undefined>,
): { from: number; to: number } {
  const lane = slotIndex(env['LOAD_AWARE_PORT_LANE'], 0) % LANE_SLOTS;
  // Jest's main process (global setup's broker) has no worker id: slot 0; workers count from 1.
  const worker = slotIndex(env['JEST_WORKER_ID'], 0) % WORKER_SLOTS;
  const width = Math.floor((band.to - band.from) / (LANE_SLOTS * WORKER_SLOTS));
  const from = band.from + (lane * WORKER_SLOTS + worker) * width;
  return { from, to: from + width };
}

function slotIndex(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed >= fallback ? parsed : fallback;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error(`Expected a TCP address from a listener, got ${String(address)}`));
        return;
      }
      resolve(address.port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => {
      resolve();
    });
  });
}
