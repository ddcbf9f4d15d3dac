import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The per-message work of the demo's consumers: mostly a fixed latency (a database write, an
 * HTTP call) plus a little CPU. Latency rather than CPU keeps the demo honest on a small shared
 * machine: a member processes its messages one at a time, so its capacity is about
 * 1000 / workMs messages/s whatever else the machine runs, and an instance's capacity grows with
 * its member count.
 */
export async function processMessage(value: Buffer | null, workMs: number, cpuMs: number): Promise<number> {
  const checksum = burnCpu(value, cpuMs);
  if (workMs > 0) await sleep(workMs);
  return checksum;
}

/** Hashes the payload over and over for `cpuMs`; the result is returned so nothing is optimised away. */
function burnCpu(value: Buffer | null, cpuMs: number): number {
  let hash = 0x811c9dc5;
  if (cpuMs <= 0 || value === null) return hash;
  const deadline = performance.now() + cpuMs;
  do {
    for (const byte of value) hash = Math.imul(hash ^ byte, 0x01000193);
  } while (performance.now() < deadline);
  return hash >>> 0;
}
