import { getOrCreateMetric } from '@load-aware/assignor/internal';
import { Counter, type Registry } from 'prom-client';
import type { BusyClock } from './options.js';
import { PartitionSums } from './sums.js';

/** Name of the counter of busy time per partition, by clock. */
export const BUSY_SECONDS_METRIC: Readonly<Record<BusyClock, string>> = {
  wall: 'load_aware_handler_busy_seconds_total',
  cpu: 'load_aware_handler_cpu_seconds_total',
};

/** Name of the counter of messages handled per partition (both clocks share it). */
export const MESSAGES_METRIC = 'load_aware_handler_messages_total';

const HELP: Readonly<Record<BusyClock, string>> = {
  wall: "Wall-clock seconds spent in the consumer's message handler, awaited I/O included, per topic-partition.",
  cpu: "Process CPU seconds (user + system) spent while the consumer's message handler ran, per topic-partition.",
};

interface RegistrySums {
  readonly byClock: Record<BusyClock, PartitionSums>;
}

// One set of sums per registry, shared by every recorder on it: the counters are created once per
// registry, and their collect() callbacks must drain what any recorder added.
const sumsOfRegistry = new WeakMap<Registry, RegistrySums>();

/**
 * The sums a recorder with `clock` adds to, with the registry's two counters created (or reused)
 * to hand them over on every scrape. Labels `topic` and `partition` only: bounded by the topics
 * the process consumes; never a member id, which changes on every restart.
 */
export function busyTimeSums(registry: Registry, clock: BusyClock): PartitionSums {
  let sums = sumsOfRegistry.get(registry);
  if (sums === undefined) {
    sums = { byClock: { wall: new PartitionSums(), cpu: new PartitionSums() } };
    sumsOfRegistry.set(registry, sums);
  }
  const { byClock } = sums;
  getOrCreateMetric(
    registry,
    BUSY_SECONDS_METRIC[clock],
    (name) =>
      new Counter({
        name,
        help: HELP[clock],
        labelNames: ['topic', 'partition'],
        registers: [registry],
        collect() {
          byClock[clock].drain(0, (topic, partition, seconds) => {
            this.inc({ topic, partition: String(partition) }, seconds);
          });
        },
      }),
  );
  getOrCreateMetric(
    registry,
    MESSAGES_METRIC,
    (name) =>
      new Counter({
        name,
        help: "Messages the consumer's handler finished without throwing, per topic-partition.",
        labelNames: ['topic', 'partition'],
        registers: [registry],
        collect() {
          // Messages are counted by whichever clock's recorder handled them.
          for (const sums of [byClock.wall, byClock.cpu]) {
            sums.drain(1, (topic, partition, messages) => {
              this.inc({ topic, partition: String(partition) }, messages);
            });
          }
        },
      }),
  );
  return byClock[clock];
}
