import { escapeRegex } from './topics.js';

/** The placeholder every occurrence of which receives the topic list. */
export const TOPIC_PLACEHOLDER = '%s';

/**
 * Where a placeholder sits, which decides how the topic list must be written there:
 * - `quoted`: inside a `"…"` or `'…'` PromQL string, where a backslash must itself be escaped
 *   (`orders\\.v2` in the query text is the regex `orders\.v2`);
 * - `raw`: inside a `` `…` `` raw string or a `#` comment, where text is taken as is.
 */
type Context = 'quoted' | 'raw';

/** A parsed template: literal text between placeholders, and the context of each placeholder. */
export interface QueryTemplate {
  /** The template as configured. */
  readonly source: string;
  /** Renders the query for `topics`: each placeholder becomes the regex-escaped, `|`-joined list. */
  render(topics: ReadonlyArray<string>): string;
}

/** The result of {@link parseQueryTemplate}: a template, or the reason it is unusable. */
export type ParsedTemplate = { ok: true; template: QueryTemplate } | { ok: false; problem: string };

/**
 * Parses a PromQL template once, at construction. A small scanner tracks string literals and
 * comments so that each `%s` is escaped for the place it sits in; a `%s` outside any string
 * could never be valid PromQL (a bare regex is not a value), so it is refused up front instead of
 * failing on every rebalance.
 */
export function parseQueryTemplate(source: string): ParsedTemplate {
  const literals: string[] = [];
  const contexts: Context[] = [];
  let literalStart = 0;
  let quote: '"' | "'" | '`' | '#' | undefined;
  let quoteStart = 0;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i];
    if (source.startsWith(TOPIC_PLACEHOLDER, i)) {
      if (quote === undefined) {
        return {
          ok: false,
          problem: `%s at offset ${String(i)} is outside a string literal; write it inside quotes, e.g. topic=~"%s"`,
        };
      }
      literals.push(source.slice(literalStart, i));
      contexts.push(quote === '"' || quote === "'" ? 'quoted' : 'raw');
      i += TOPIC_PLACEHOLDER.length - 1;
      literalStart = i + 1;
    } else if (quote === undefined) {
      if (c === '"' || c === "'" || c === '`' || c === '#') {
        quote = c;
        quoteStart = i;
      }
    } else if (quote === '#') {
      if (c === '\n') quote = undefined;
    } else if (c === '\\' && quote !== '`') {
      i += 1; // An escaped character never closes the string.
    } else if (c === quote) {
      quote = undefined;
    }
  }
  if (quote !== undefined && quote !== '#') {
    return {
      ok: false,
      problem: `the string literal opened by ${quote} at offset ${String(quoteStart)} is never closed`,
    };
  }
  if (contexts.length === 0) {
    return { ok: false, problem: 'expected at least one %s placeholder for the topic list, e.g. topic=~"%s"' };
  }
  literals.push(source.slice(literalStart));
  return { ok: true, template: { source, render: (topics) => render(literals, contexts, topics) } };
}

function render(
  literals: ReadonlyArray<string>,
  contexts: ReadonlyArray<Context>,
  topics: ReadonlyArray<string>,
): string {
  const raw = topics.map(escapeRegex).join('|');
  // In "…" and '…' PromQL strings a backslash starts an escape sequence, so the regex's own
  // backslashes must be doubled to reach the regex engine.
  const quoted = raw.replaceAll('\\', '\\\\');
  let query = literals[0] ?? '';
  contexts.forEach((context, i) => {
    query += (context === 'quoted' ? quoted : raw) + (literals[i + 1] ?? '');
  });
  return query;
}
