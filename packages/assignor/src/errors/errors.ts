/**
 * The error catalogue of `@load-aware/assignor`, and the base class and brand every load-aware
 * error shares. Codes are stable and never reused; tests and callers match on `code`, never on the
 * message. All codes are listed in {@link ERROR_CODES}.
 */
import { ERROR_CODES, type LoadAwareErrorCode } from './error-codes.js';

/** Codes of every error this package throws: the assignor's group of {@link ERROR_CODES}. */
export const ErrorCodes = ERROR_CODES.assignor;

/** A code from {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/**
 * The brand on every load-aware error, read by {@link isLoadAwareError}. A registered symbol
 * (`Symbol.for`), so it is the same symbol in every copy of every load-aware package: `instanceof`
 * fails when an app ends up with two copies of a package installed (each has its own
 * `LoadAwareError` class), the brand does not.
 */
const LOAD_AWARE_ERROR_BRAND: unique symbol = Symbol.for('load-aware.error');

/** Base class of every error thrown by load-aware packages: carries a stable `code` and a `cause`. */
export class LoadAwareError extends Error {
  constructor(
    readonly code: LoadAwareErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
    // Non-enumerable, like `name`: the brand is for checks, not for serializers or deep equality.
    // Not declared on the class type: two copies' declarations would make their types unrelated.
    Object.defineProperty(this, LOAD_AWARE_ERROR_BRAND, { value: true });
  }
}

/**
 * True for an error thrown by any copy of any load-aware package, optionally only for one `code`.
 * Checks the brand, not the prototype chain, so it also recognizes errors whose class comes from
 * another installed copy of a package, where `instanceof` answers false.
 *
 * @example
 * ```ts
 * if (isLoadAwareError(err, 'LOAD_AWARE_WEIGHTS_TIMEOUT')) raiseTimeout(err.message);
 * ```
 */
export function isLoadAwareError(e: unknown): e is LoadAwareError;
export function isLoadAwareError<C extends LoadAwareErrorCode>(
  e: unknown,
  code: C,
): e is LoadAwareError & { readonly code: C };
export function isLoadAwareError(e: unknown, code?: LoadAwareErrorCode): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const candidate = e as { readonly [LOAD_AWARE_ERROR_BRAND]?: unknown; readonly code?: unknown };
  if (candidate[LOAD_AWARE_ERROR_BRAND] !== true || typeof candidate.code !== 'string') return false;
  return code === undefined || candidate.code === code;
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

/** Metadata of topics only other members subscribe to was not loaded in time (logged, not thrown). */
export class MetadataTimeoutError extends LoadAwareError {
  constructor(
    readonly topics: number,
    readonly timeoutMs: number,
  ) {
    super(
      ErrorCodes.metadataTimeout,
      `metadata for ${String(topics)} topics not loaded within ${String(timeoutMs)} ms`,
    );
  }
}

/**
 * Another process joined the group with this consumer's group instance id, so the broker fenced
 * this one (FENCED_INSTANCE_ID). Not retriable: KafkaJS stops the consumer instead of restarting
 * it, because rejoining would fence the other process in turn, and the two would take the place
 * from each other for ever.
 */
export class StaticMemberFencedError extends LoadAwareError {
  /** Read by KafkaJS: a fenced consumer must not be restarted. */
  readonly retriable = false;
  constructor(
    readonly groupId: string,
    readonly groupInstanceId: string,
    options?: { cause?: unknown },
  ) {
    super(
      ErrorCodes.staticMemberFenced,
      `consumer of group ${groupId} was fenced: another process joined with its group instance id ` +
        `${groupInstanceId}, so two processes share one instanceId; this consumer stops`,
      options,
    );
  }
}

/**
 * Static membership is on, but a group request cannot carry the group instance id: the broker
 * negotiated a version older than KIP-345's (Kafka before 2.3), or the installed KafkaJS is not
 * 2.2.x. Not retriable: joining as a dynamic member instead would defeat the setting in silence.
 */
export class StaticMembershipUnsupportedError extends LoadAwareError {
  /** Read by KafkaJS: retrying cannot help. */
  readonly retriable = false;
  constructor(reason: string) {
    super(ErrorCodes.staticMembershipUnsupported, `static membership is not possible here: ${reason}`);
  }
}

/**
 * DescribeGroups answered without the consumer's group (or with an error code for it), whichever
 * client asked: the trigger's check then fails with this code. One class for both adapters.
 */
export class GroupNotDescribedError extends LoadAwareError {
  constructor(
    /** The group asked for, when the asking client knows it. */
    readonly groupId: string | undefined,
    /** What the answer held instead. */
    readonly detail = 'no entry for it',
  ) {
    super(
      ERROR_CODES.trigger.groupNotDescribed,
      `DescribeGroups did not describe the consumer's group${groupId === undefined ? '' : ` ${JSON.stringify(groupId)}`}: ${detail}`,
    );
  }
}

/**
 * The installed KafkaJS lacks an internal (or has it in another shape) that a feature the options
 * turn on is built on: static membership, racks or cross-group balancing. Thrown when the
 * consumer is created, so the process refuses to start rather than run without the feature. Not
 * retriable: another try finds the same KafkaJS.
 */
export class KafkaJsInternalMissingError extends LoadAwareError {
  /** Read by KafkaJS: retrying cannot help. */
  readonly retriable = false;
  constructor(
    /** The internal's name, as in the API reference's list of KafkaJS internals. */
    readonly internal: string,
    /** The option that turned on the feature this internal is needed for. */
    readonly option: string,
    /** What is lost without it. */
    lost: string,
  ) {
    super(
      ErrorCodes.kafkaJsInternalMissing,
      `option ${option} cannot be honoured: the installed KafkaJS has no usable ${internal} (${lost}); ` +
        'load-aware supports kafkajs ~2.2.4',
    );
  }
}
