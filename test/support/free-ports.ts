import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/** How many ports below the kernel's ephemeral range we draw from. */
const BAND_WIDTH = 12_000;

/**
 * Finds `count` distinct TCP ports on 127.0.0.1 that are free right now.
 *
 * The ports come from a band just below the kernel's ephemeral range, never from it: a broker
 * that is stopped and restarted on its old port must find that port still free, and a port in
 * the ephemeral range can meanwhile become the local end of any outgoing connection on the
 * machine (another test lane's client, for one), which made restarts fail with "Address already
 * in use". Candidates are drawn at random and checked by binding them; all listeners stay open
 * until every port is known, then close, which leaves only the small window before the caller
 * binds, shared with other lanes drawing from the same band.
 */
export async function findFreePorts(count: number): Promise<number[]> {
  const band = portBand();
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    // Bounded: a band with too few free ports falls back to the kernel's choice.
    for (let attempts = 0; ports.length < count && attempts < count * 50; attempts += 1) {
      const candidate = band.from + Math.floor(Math.random() * (band.to - band.from));
      if (ports.includes(candidate)) continue;
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
