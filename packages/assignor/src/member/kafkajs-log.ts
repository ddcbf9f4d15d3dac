import { logLevel, type logCreator } from 'kafkajs';
import type { LogFn, Logger } from '../base/logger.js';

// Apart from logger.ts so that the logger contract loads no KafkaJS: adapters for other clients
// (see `portable.ts`) bind and validate loggers too.

/**
 * Routes KafkaJS's own logs into a pino-compatible logger, so one stream carries both the
 * assignor's explanations and the client's view of the same rebalance.
 *
 * @example
 * ```ts
 * const logger = pino();
 * const kafka = new Kafka({ brokers, logCreator: kafkaJsLogCreator(logger) });
 * ```
 */
export function kafkaJsLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      // KafkaJS puts its own timestamp and logger name in every entry; pino adds its own time.
      const { message, timestamp: _timestamp, logger: _name, ...fields } = log as Record<string, unknown>;
      const text = typeof message === 'string' ? message : '';
      const target = methodFor(level, logger);
      target.call(logger, { namespace, ...fields }, text);
    };
}

function methodFor(level: logLevel, logger: Logger): LogFn {
  switch (level) {
    case logLevel.ERROR:
    case logLevel.NOTHING:
      return logger.error;
    case logLevel.WARN:
      return logger.warn;
    case logLevel.INFO:
      return logger.info;
    default:
      return logger.debug;
  }
}
