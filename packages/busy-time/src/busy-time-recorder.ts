import type { EachBatchHandler, EachBatchPayload, EachMessageHandler } from 'kafkajs';
import { busyTimeSums } from './metrics.js';
import { resolveRecorderOptions, type BusyTimeRecorderOptions } from './options.js';
import { systemClocks, type Clocks } from './clocks.js';

/** One partition's part of a unit of work measured with {@link BusyTimeRecorder.measure}. */
export interface PartitionShare {
  /** The topic of the messages. */
  readonly topic: string;
  /** Their partition. */
  readonly partition: number;
  /** Messages of this partition in the work; the time is divided in proportion to them. */
  readonly messages: number;
}

/** Wraps KafkaJS handlers so the time they take is counted per topic-partition. */
export interface BusyTimeRecorder {
  /**
   * `handler`, measured: each call's time goes to the message's partition, and the message counts
   * as handled when the handler does not throw. Errors pass through unchanged.
   */
  eachMessage(handler: EachMessageHandler): EachMessageHandler;
  /**
   * `handler`, measured. KafkaJS hands `eachBatch` one partition's messages at a time, so the
   * whole call belongs to `batch.partition`. Messages handled: those up to the highest offset the
   * handler passed to `resolveOffset`, or the whole batch when it resolved none and returned
   * without throwing.
   */
  eachBatch(handler: EachBatchHandler): EachBatchHandler;
  /**
   * Runs `work` and divides its time among `shares` in proportion to their messages (equally
   * when none has any): for work you batch across partitions yourself, e.g. one bulk write for
   * messages of several partitions. Messages count as handled when `work` does not throw.
   */
  measure<T>(shares: ReadonlyArray<PartitionShare>, work: () => T | Promise<T>): Promise<T>;
  /**
   * The busy seconds and handled messages counted so far on this recorder's registry and clock,
   * all partitions together, since the process started: the trigger's `sizing.measured.busyTime`
   * reads it at each check and divides the growth of one by the other, to size the group at the
   * measured seconds of work per message. Never reset by a scrape.
   */
  totals(): BusyTimeTotals;
}

/** Cumulative busy time of a recorder; see {@link BusyTimeRecorder.totals}. */
export interface BusyTimeTotals {
  /** Seconds spent in the handler, failed calls included. */
  readonly busySeconds: number;
  /** Messages the handler finished without throwing. */
  readonly messages: number;
}

/**
 * Creates a recorder whose wrappers count, per topic-partition, the seconds spent in your handler
 * (`load_aware_handler_busy_seconds_total`, or `…_cpu_seconds_total` with `clock: 'cpu'`) and
 * the messages it handled (`load_aware_handler_messages_total`) on your registry. Summed over
 * processes in Prometheus, the counter's rate is each partition's busy time, wherever it was
 * consumed: give it to the assigner through `@load-aware/weights-prometheus`.
 *
 * @example
 * ```ts
 * const registry = new Registry();
 * const busy = createBusyTimeRecorder({ registry });
 * await consumer.run({
 *   eachMessage: busy.eachMessage(async ({ message }) => {
 *     await enrich(message);
 *   }),
 * });
 * ```
 */
export function createBusyTimeRecorder(options: BusyTimeRecorderOptions): BusyTimeRecorder {
  return createRecorderWithClocks(options, systemClocks);
}

/** {@link createBusyTimeRecorder} with the clocks given: the seam the tests use. */
export function createRecorderWithClocks(options: BusyTimeRecorderOptions, clocks: Clocks): BusyTimeRecorder {
  const { registry, clock } = resolveRecorderOptions(options);
  const sums = busyTimeSums(registry, clock);
  const now = clocks[clock];

  return Object.freeze({
    eachMessage(handler: EachMessageHandler): EachMessageHandler {
      return async (payload) => {
        const start = now();
        let handled = 0;
        try {
          await handler(payload);
          handled = 1;
        } finally {
          sums.add(payload.topic, payload.partition, elapsedSince(start, now()), handled);
        }
      };
    },

    eachBatch(handler: EachBatchHandler): EachBatchHandler {
      return async (payload) => {
        const { batch } = payload;
        let resolved: bigint | undefined;
        const measured: EachBatchPayload = {
          ...payload,
          resolveOffset(offset) {
            const value = BigInt(offset);
            if (resolved === undefined || value > resolved) resolved = value;
            payload.resolveOffset(offset);
          },
        };
        const start = now();
        let succeeded = false;
        try {
          await handler(measured);
          succeeded = true;
        } finally {
          const seconds = elapsedSince(start, now());
          const handled =
            resolved === undefined ? (succeeded ? batch.messages.length : 0) : countUpTo(batch.messages, resolved);
          sums.add(batch.topic, batch.partition, seconds, handled);
        }
      };
    },

    async measure<T>(shares: ReadonlyArray<PartitionShare>, work: () => T | Promise<T>): Promise<T> {
      const start = now();
      let succeeded = false;
      try {
        const result = await work();
        succeeded = true;
        return result;
      } finally {
        divide(shares, elapsedSince(start, now()), succeeded, (share, seconds, messages) => {
          sums.add(share.topic, share.partition, seconds, messages);
        });
      }
    },

    totals(): BusyTimeTotals {
      return { busySeconds: sums.totals[0]!, messages: sums.totals[1]! };
    },
  });
}

// A clock read can go backwards only through a fake or a broken clock; never count negative time.
function elapsedSince(start: number, end: number): number {
  const elapsed = end - start;
  return elapsed > 0 && Number.isFinite(elapsed) ? elapsed : 0;
}

function countUpTo(messages: ReadonlyArray<{ readonly offset: string }>, last: bigint): number {
  let count = 0;
  for (const m of messages) if (BigInt(m.offset) <= last) count++;
  return count;
}

/**
 * Splits `seconds` among `shares` by their message counts (equally when none is positive). Shares
 * with a negative or non-finite count take no time and count no messages.
 */
export function divide(
  shares: ReadonlyArray<PartitionShare>,
  seconds: number,
  succeeded: boolean,
  visit: (share: PartitionShare, seconds: number, messages: number) => void,
): void {
  const usable = shares.filter((s) => Number.isFinite(s.messages) && s.messages >= 0);
  if (usable.length === 0) return;
  const total = usable.reduce((sum, s) => sum + s.messages, 0);
  for (const share of usable) {
    const part = total > 0 ? seconds * (share.messages / total) : seconds / usable.length;
    visit(share, part, succeeded ? share.messages : 0);
  }
}
