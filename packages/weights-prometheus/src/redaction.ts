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

/**
 * Shortest secret form redacted: replacing every occurrence of a one- to three-character string
 * would shred messages while hiding next to nothing.
 */
const MIN_SECRET_LENGTH = 4;

/**
 * A redactor for the `Authorization` value: the whole value and its credentials part alone and,
 * for `Basic`, the decoded `user:password` and the password alone, since a server that decodes
 * the header to say whom it refused echoes those rather than the base64. Each also in its
 * JSON-escaped form, for servers that echo inside a JSON error. The user name alone stays.
 */
export function createRedactor(authorization: string | undefined): Redactor {
  if (authorization === undefined) return { redact: (text) => text };
  const space = authorization.indexOf(' ');
  const scheme = space >= 0 ? authorization.slice(0, space) : '';
  const credentials = space >= 0 ? authorization.slice(space + 1).trim() : '';
  const forms = [authorization, credentials];
  if (scheme.toLowerCase() === 'basic') forms.push(...basicSecrets(credentials));
  const secrets = [...new Set(forms.flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]))]
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    // Longest first, so "Bearer abc" is replaced whole rather than leaving "Bearer [REDACTED]".
    .sort((a, b) => b.length - a.length);
  return {
    redact: (text) => secrets.reduce((out, secret) => out.replaceAll(secret, REDACTED), text),
  };
}

/** The decoded `user:password` and the password of Basic credentials; none when not base64 of UTF-8. */
function basicSecrets(credentials: string): string[] {
  const bytes = Buffer.from(credentials, 'base64');
  // Node decodes leniently: only trust a decode that encodes back to what was sent.
  if (bytes.toString('base64').replace(/=+$/, '') !== credentials.replace(/=+$/, '')) return [];
  const pair = bytes.toString('utf8');
  if (!Buffer.from(pair, 'utf8').equals(bytes)) return [];
  const colon = pair.indexOf(':');
  return colon < 0 ? [pair] : [pair, pair.slice(colon + 1)];
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
