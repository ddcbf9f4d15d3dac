/**
 * The error catalogue of `@load-aware/weights-otel`: one class per code. Codes are stable and
 * never reused; callers and tests match on `code`, never on the message. Bad options throw the
 * assignor's `ConfigError` (code `LOAD_AWARE_CONFIG`) instead, so config errors read the same in
 * every package.
 */
import { ERROR_CODES, LoadAwareError } from '@load-aware/assignor';

/** Codes of every error this package throws: its group of the assignor's `ERROR_CODES`. */
export const OtelErrorCodes = ERROR_CODES.otel;

/** A code from {@link OtelErrorCodes}. */
export type OtelErrorCode = (typeof OtelErrorCodes)[keyof typeof OtelErrorCodes];

/**
 * `getWeights()` was called while the source's reader is in no MeterProvider: nothing records into
 * it, so every partition would look idle. The message says how to register it.
 */
export class OtelReaderNotRegisteredError extends LoadAwareError {
  declare readonly code: typeof OtelErrorCodes.readerNotRegistered;
  constructor(message: string) {
    super(OtelErrorCodes.readerNotRegistered, message);
  }
}

/**
 * Collecting from the MeterProvider failed, reported errors, or took longer than
 * `collectTimeoutMs` (a provider that was shut down fails this way too); the SDK's error is the
 * `cause`.
 */
export class OtelCollectFailedError extends LoadAwareError {
  declare readonly code: typeof OtelErrorCodes.collectFailed;
  constructor(message: string, options?: { cause?: unknown }) {
    super(OtelErrorCodes.collectFailed, message, options);
  }
}
