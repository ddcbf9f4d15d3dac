import { createServer, type Server } from 'node:net';

/**
 * Finds `count` distinct TCP ports on 127.0.0.1 that are free right now.
 *
 * All listeners stay open until every port is known, so the kernel cannot hand out the same port
 * twice; they are closed before returning, which leaves a small window in which another process
 * could take a port. That race is acceptable for a test bed and far rarer than fixed ports clashing.
 */
export async function findFreePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const server = createServer();
      servers.push(server);
      ports.push(await listenOnEphemeralPort(server));
    }
    return ports;
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}

function listenOnEphemeralPort(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error(`Expected a TCP address from an ephemeral listener, got ${String(address)}`));
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
