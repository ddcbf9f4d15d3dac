/**
 * `pnpm bench:busy-time`: what the busy-time wrapper costs in messages per second, side by side
 * with the bare handler, on the demo's per-message work (work.ts) and on a handler that does
 * nothing (the wrapper's whole cost, nothing to hide it behind).
 *
 * Bare and wrapped rounds alternate in short pairs, so drift on a shared machine (other
 * processes, CPU frequency) hits both sides of a pair alike; the cost reported is the median over
 * pairs of 1 − wrapped ÷ bare, next to the median throughput of each side. The registry is scraped once a
 * second, as Prometheus would. Informational only: nothing here fails on a slow number.
 *
 * Flags: --rounds N (pairs, default 21), --round-ms N (per side, default 300).
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { EachMessageHandler, EachMessagePayload, KafkaMessage } from 'kafkajs';
import { Registry } from 'prom-client';
import { createBusyTimeRecorder, type BusyClock } from '@load-aware/busy-time';
import { markdownTable } from '@load-aware/test-support';
import { processMessage } from './work.js';

interface Workload {
  readonly label: string;
  readonly handler: EachMessageHandler;
}

const value = Buffer.alloc(256, 7);

const WORKLOADS: ReadonlyArray<Workload> = [
  { label: 'no-op handler', handler: () => Promise.resolve() },
  {
    label: 'CPU 0.05 ms (the demo’s CPU part; cheapest realistic message)',
    handler: async () => {
      await processMessage(value, 0, 0.05);
    },
  },
  {
    label: 'demo: 2 ms await + 0.05 ms CPU',
    handler: async () => {
      await processMessage(value, 2, 0.05);
    },
  },
];

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const raw = i < 0 ? undefined : process.argv[i + 1];
  const parsed = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}

/** Messages handled per second by one serial consumer loop running `handler` for `ms`. */
async function throughput(handler: EachMessageHandler, registry: Registry | undefined, ms: number): Promise<number> {
  const payloads: EachMessagePayload[] = Array.from({ length: 8 }, (_, partition) => ({
    topic: 'bench',
    partition,
    message: { offset: '0', value } as KafkaMessage,
    heartbeat: () => Promise.resolve(),
    pause: () => () => undefined,
  }));
  const start = performance.now();
  let nextScrape = start + 1000;
  let count = 0;
  let now = start;
  while (now - start < ms) {
    await handler(payloads[count & 7]!);
    count++;
    now = performance.now();
    if (registry !== undefined && now >= nextScrape) {
      await registry.metrics();
      nextScrape += 1000;
    }
  }
  return count / ((performance.now() - start) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const rounds = flag('--rounds', 21);
  const roundMs = flag('--round-ms', 300);
  const rows: string[][] = [];
  for (const workload of WORKLOADS) {
    for (const clock of ['wall', 'cpu'] as BusyClock[]) {
      const registry = new Registry();
      const wrapped = createBusyTimeRecorder({ registry, clock }).eachMessage(workload.handler);
      // Warm both paths up (JIT) before measuring.
      await throughput(workload.handler, undefined, 200);
      await throughput(wrapped, registry, 200);
      const bare: number[] = [];
      const measured: number[] = [];
      for (let round = 0; round < rounds; round++) {
        bare.push(await throughput(workload.handler, undefined, roundMs));
        measured.push(await throughput(wrapped, registry, roundMs));
      }
      const b = median(bare);
      const w = median(measured);
      const cost = median(bare.map((x, i) => 1 - measured[i]! / x));
      rows.push([
        workload.label,
        clock,
        b.toFixed(0),
        w.toFixed(0),
        `${(cost * 100).toFixed(2)} %`,
        `${((cost / (1 - cost) / b) * 1e9).toFixed(0)} ns`,
      ]);
      process.stderr.write(`${workload.label} / ${clock}: bare ${b.toFixed(0)}/s, wrapped ${w.toFixed(0)}/s\n`);
    }
  }
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const [load1] = loadavg();
  process.stdout.write(
    `Node ${process.version}, ${cpu}, ${String(availableParallelism())} cores, load ${(load1 ?? 0).toFixed(2)}; ` +
      `${String(rounds)} alternating pairs of ${String(roundMs)} ms rounds, medians\n\n`,
  );
  process.stdout.write(
    `${markdownTable(['workload', 'clock', 'bare msg/s', 'wrapped msg/s', 'throughput cost', 'cost per message'], rows, new Set([2, 3, 4, 5]))}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
