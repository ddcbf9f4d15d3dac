/**
 * The error catalogue of `@load-aware/assignor`. Codes are stable and never reused; tests and
 * callers match on `code`, never on the message.
 */

/** Codes of every error this package throws. */
export const ErrorCodes = {
  config: 'LOAD_AWARE_CONFIG',
  invalidBalanceInput: 'LOAD_AWARE_INVALID_BALANCE_INPUT',
  weightsTimeout: 'LOAD_AWARE_WEIGHTS_TIMEOUT',
  weightsFailed: 'LOAD_AWARE_WEIGHTS_FAILED',
  metadataTimeout: 'LOAD_AWARE_METADATA_TIMEOUT',
} as const;

/** A code from {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** Base class of every error thrown by load-aware packages: carries a stable `code` and a `cause`. */
export class LoadAwareError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Options failed validation; the message lists every bad key with what was expected. */
export class ConfigError extends LoadAwareError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCodes.config, message, options);
  }
}

/** `balance()` was given input no assignment can satisfy, such as a duplicated member id. */
export class InvalidBalanceInputError extends LoadAwareError {
  constructor(
    readonly field: string,
    readonly value: string,
    readonly expected: string,
  ) {
    super(ErrorCodes.invalidBalanceInput, `Invalid balance input: ${field} ${value}, expected ${expected}`);
  }
}

/** The weight source did not answer within `weightsTimeoutMs`. */
export class WeightsTimeoutError extends LoadAwareError {
  constructor(readonly timeoutMs: number) {
    super(ErrorCodes.weightsTimeout, `Weight source did not answer within weightsTimeoutMs=${String(timeoutMs)}`);
  }
}

/** The weight source rejected or returned something that is not a list of weights. */
export class WeightsFailedError extends LoadAwareError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(ErrorCodes.weightsFailed, `Weight source failed: ${reason}`, options);
  }
}
