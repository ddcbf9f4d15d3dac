/** Longest body excerpt an error message carries. */
export const MAX_EXCERPT_LENGTH = 200;

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_OR_SPACE = /[\s\u0000-\u001f\u007f]+/g;

/** Placeholder that replaces a secret wherever it would have appeared. */
export const REDACTED = '[REDACTED]';

/**
 * Something that removes the configured secret from any text before it reaches an error message
 * or a log line. Servers and proxies sometimes echo what they were sent ("invalid token Bearer
 * abc…"), so even a response body is not trusted to be free of it.
 */
export interface Redactor {
  redact(text: string): string;
}

/** A redactor for the `Authorization` value: the whole value and its credentials part alone. */
export function createRedactor(authorization: string | undefined): Redactor {
  if (authorization === undefined) return { redact: (text) => text };
  const space = authorization.indexOf(' ');
  const credentials = space >= 0 ? authorization.slice(space + 1).trim() : '';
  // Longest first, so "Bearer abc" is replaced whole rather than leaving "Bearer [REDACTED]".
  const secrets = [authorization, credentials].filter((s) => s.length >= 4);
  return {
    redact: (text) => secrets.reduce((out, secret) => out.replaceAll(secret, REDACTED), text),
  };
}

/**
 * The start of a response body for an error message: whitespace collapsed, control characters
 * dropped, at most {@link MAX_EXCERPT_LENGTH} characters, secret redacted.
 */
export function excerpt(body: string, redactor: Redactor): string {
  // Redact the whole body first (a linear scan, on the error path only), then keep a bounded
  // prefix to clean up: slicing first could cut a secret in two and let its first half through.
  const head = redactor.redact(body).slice(0, MAX_EXCERPT_LENGTH * 8);
  // Control characters (terminal escapes, NULs) would garble log lines; \s covers the rest.
  const clean = head.replace(CONTROL_OR_SPACE, ' ').trim();
  return clean.length > MAX_EXCERPT_LENGTH ? `${clean.slice(0, MAX_EXCERPT_LENGTH)}…` : clean;
}
