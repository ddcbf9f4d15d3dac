/**
 * Reading an unknown thrown value for logs and metrics, the same way in every package: errors
 * from KafkaJS, axios, Node and load-aware all carry a string `code` when they carry one at all.
 */

/** The thrown value's string `code`, undefined when it has none. */
export function errorCodeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The thrown value's message; `String(err)` for something that is not an Error. */
export function errorMessageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
