import { AggregationTemporality, MetricReader } from '@opentelemetry/sdk-metrics';

/**
 * Series the reader keeps per metric: 10 000 partitions, each with a series for failed handler
 * calls (`error.type`) too. The SDK's default (2000) would fold partitions past it into one
 * overflow series that names no partition.
 */
export const READER_CARDINALITY_LIMIT = 20_000;

/**
 * The MetricReader users put in their MeterProvider. It asks for cumulative sums (rates come from
 * differences between collections, so a missed collection loses nothing) and, once the provider has
 * bound it, calls `sample` right away and every `intervalMs` until the provider shuts down. The
 * timer is unref'd: a weight source never keeps a process alive.
 */
export class ProcessDurationReader extends MetricReader {
  private bound = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly sample: () => void,
  ) {
    super({
      aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE,
      cardinalitySelector: () => READER_CARDINALITY_LIMIT,
    });
  }

  /** Whether a MeterProvider has bound this reader (it stays true after the provider shuts down). */
  get registered(): boolean {
    return this.bound;
  }

  protected override onInitialized(): void {
    this.bound = true;
    // The provider calls this hook while still registering the reader: the first collection waits
    // for the current turn to finish.
    setImmediate(this.sample).unref();
    this.timer = setInterval(this.sample, this.intervalMs);
    this.timer.unref();
  }

  protected override onShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    return Promise.resolve();
  }

  protected override onForceFlush(): Promise<void> {
    // Nothing buffered: every collection is read as it is taken.
    return Promise.resolve();
  }
}
