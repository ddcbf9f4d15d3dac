import { z } from 'zod';
import { ConfigError } from '../errors/errors.js';

/**
 * Validates a factory's options against its zod schema, once, at construction. On failure throws
 * a {@link ConfigError} whose message names every bad key and what was expected (zod's
 * `prettifyError` output), prefixed with what was being configured. Shared by every load-aware
 * package so config errors read the same everywhere.
 */
export function validateOptions<S extends z.ZodType>(schema: S, options: unknown, label: string): z.output<S> {
  const parsed = schema.safeParse(options ?? {});
  if (!parsed.success) {
    throw new ConfigError(`Invalid ${label} options:\n${z.prettifyError(parsed.error)}`, { cause: parsed.error });
  }
  return parsed.data;
}
