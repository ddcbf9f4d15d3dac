/**
 * Characters that must not reach log message text raw: C0 controls and DEL (newlines, terminal
 * escapes), C1 controls (U+0085 is a newline to some readers), the Unicode line and paragraph
 * separators, and the bidi embeddings, overrides and isolates that reorder what a reader sees.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_LOG_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * The first character of `text` that {@link escapeLogText} would escape, with its index; undefined
 * when there is none. For validation messages that say what was wrong and where.
 */
export function findUnsafeLogChar(text: string): { readonly char: string; readonly index: number } | undefined {
  UNSAFE_LOG_CHARS.lastIndex = 0;
  const match = UNSAFE_LOG_CHARS.exec(text);
  UNSAFE_LOG_CHARS.lastIndex = 0;
  return match === null ? undefined : { char: match[0], index: match.index };
}

/**
 * `text` with every control, line-separator and bidi-formatting character written as a JSON-like
 * `\uXXXX` escape, for message text built from strings other processes chose (instance and
 * member ids, protocol names). In a plain-text log a raw newline, ESC or U+2028 in such a string
 * forges or hides log lines. Backslashes are kept: a literal `\u000a` cannot break a line, and ids
 * stay as readable as they were. Structured fields are left raw; JSON loggers escape those.
 */
export function escapeLogText(text: string): string {
  return text.replace(UNSAFE_LOG_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
