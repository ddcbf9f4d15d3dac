/**
 * The error catalogue of `@load-aware/weights-offset-rate`. Codes are stable and never reused;
 * tests and callers match on `code`, never on the message. None of these is thrown at a caller
 * of `getWeights()`: they travel in logs (`err`) and decide what the sampler does next.
 */
import { ERROR_CODES, LoadAwareError } from '@load-aware/assignor';

/**
 * Codes of every error this package produces (besides the shared `LOAD_AWARE_CONFIG`): this
 * package's group of the assignor's `ERROR_CODES`, where every load-aware code is listed once.
 */
export const OffsetRateErrorCodes = ERROR_CODES.offsetRate;

/** A code from {@link OffsetRateErrorCodes}. */
export type OffsetRateErrorCode = (typeof OffsetRateErrorCodes)[keyof typeof OffsetRateErrorCodes];

/** A sample (all its partitions) ran out of time; the next sample starts afresh. */
export class SampleTimeoutError extends LoadAwareError {
  constructor(readonly timeoutMs: number) {
    super(OffsetRateErrorCodes.sampleTimeout, `end offsets were not read within sampleTimeoutMs=${String(timeoutMs)}`);
  }
}

/** Nothing could be read in a sample: every partition of it failed for the same reason. */
export class SampleFailedError extends LoadAwareError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(OffsetRateErrorCodes.sampleFailed, `end offsets could not be read: ${reason}`, options);
  }
}

/** Why one partition's end offset is missing from one sample. */
export class PartitionReadError extends LoadAwareError {
  constructor(
    code: Exclude<
      OffsetRateErrorCode,
      'LOAD_AWARE_OFFSET_RATE_SAMPLE_TIMEOUT' | 'LOAD_AWARE_OFFSET_RATE_SAMPLE_FAILED'
    >,
    readonly topic: string,
    readonly partition: number,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(code, `end offset of ${topic}:${String(partition)} not read: ${reason}`, options);
  }
}
