/** One logging method with pino's calling convention: fields first, then the message. */
export type LogFn = (fields: Record<string, unknown>, message?: string) => void;

/**
 * The logger the library writes to. Any pino logger fits; so does anything with these four
 * methods. Library code always has one (see {@link noopLogger}), so it never checks for null.
 */
export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  /**
   * A logger that adds `bindings` to every line, as pino's `child()` does. Optional: without it,
   * {@link bindLogger} merges the bindings into each call's fields instead.
   */
  child?(bindings: Record<string, unknown>): Logger;
}

const noop: LogFn = () => undefined;

/** A logger that drops everything: the default, so a library stays silent unless asked. */
export const noopLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });

/**
 * A logger that writes `bindings` (such as `component` and `groupId`) with every line, so call
 * sites need not repeat them. Uses the logger's own `child()` when it has one, so pino writes the
 * bindings its usual way; otherwise wraps the logger and merges the bindings into each call's
 * fields, a call's own fields winning on a clash (as they do in pino's output). The silent
 * {@link noopLogger} is returned as is: nothing to bind for.
 */
export function bindLogger(logger: Logger, bindings: Record<string, unknown>): Logger {
  if (logger === noopLogger) return logger;
  if (typeof logger.child === 'function') return logger.child(bindings);
  const bind =
    (method: LogFn): LogFn =>
    (fields, message) => {
      // `call`, not a bare call: a logger's methods may rely on `this`.
      method.call(logger, { ...bindings, ...fields }, message);
    };
  return {
    debug: bind(logger.debug),
    info: bind(logger.info),
    warn: bind(logger.warn),
    error: bind(logger.error),
    child: (more) => bindLogger(logger, { ...bindings, ...more }),
  };
}

/** True for anything usable as a {@link Logger}. */
export function isLogger(value: unknown): value is Logger {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return ['debug', 'info', 'warn', 'error'].every((level) => typeof candidate[level] === 'function');
}
