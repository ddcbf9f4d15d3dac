// The reference pages are checked against the code, so a new option, metric or error code cannot
// ship undocumented, and no fact gets a second home that could drift from the first:
// - every key of every zod options schema of every package has exactly one entry per schema in
//   its package's section of docs/configuration.md;
// - every metric name registered anywhere, and every error code of the catalogue, has exactly one
//   entry (a table row or a list item) in docs/observability.md and none anywhere else;
// - every log message a package passes to its logger appears in docs/observability.md (its fixed
//   start: the text before the first value, colon, semicolon or parenthesis);
// - every flag of the CLI's usage text appears in docs/cli.md.
// The names come from the sources (the TypeScript AST of the schemas, the string literals metrics
// are registered under) and from the catalogue itself, never from a list kept here.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { ERROR_CODES } from '@load-aware/assignor';
import { typeScriptFilesUnder } from '@load-aware/test-support';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

function sourceFiles(dir: string): string[] {
  return typeScriptFilesUnder(path.join(ROOT, dir)).map((file) => path.relative(ROOT, file));
}

const PACKAGES = fs
  .readdirSync(path.join(ROOT, 'packages'))
  .filter((name) => name !== 'test-support' && fs.existsSync(path.join(ROOT, 'packages', name, 'src')))
  .sort();

/** The keys of each object literal given to `strictObject(...)` or a schema's `.extend(...)`. */
function schemaKeySets(file: string): string[][] {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  const sets: string[][] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['strictObject', 'extend'].includes(node.expression.name.text)
    ) {
      const arg = node.arguments[0];
      if (arg !== undefined && ts.isObjectLiteralExpression(arg)) {
        sets.push(
          arg.properties.flatMap((p) =>
            (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && ts.isIdentifier(p.name)
              ? [p.name.text]
              : [],
          ),
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sets;
}

/** The fixed start of every message given to `logger.debug/info/warn/error(fields, message)`. */
function logMessageKeys(file: string): string[] {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  const keys: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['debug', 'info', 'warn', 'error'].includes(node.expression.name.text)
    ) {
      let message = node.arguments[1];
      // Messages with other members' ids go through escapeLogText(...): read its argument.
      while (message !== undefined && ts.isCallExpression(message)) message = message.arguments[0];
      let head: string | undefined;
      if (message !== undefined && (ts.isStringLiteral(message) || ts.isNoSubstitutionTemplateLiteral(message))) {
        head = message.text;
      } else if (message !== undefined && ts.isTemplateExpression(message)) {
        head = message.head.text;
      }
      const key = head?.split(/[:;(]/)[0]?.trim();
      // Shorter starts ("instance ") say nothing on their own; the message around them is checked
      // by reading the page.
      if (key !== undefined && key.length >= 8) keys.push(key);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return keys;
}

/** The lines of `## heading` up to the next `## `. */
function section(text: string, heading: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The code span that opens each reference entry: a table row's first cell or a list item. */
function rowKeys(lines: ReadonlyArray<string>): string[] {
  return lines.flatMap((l) => {
    const match = /^(?:\| |- )`([^`]+)`/.exec(l);
    return match === null ? [] : [match[1]!];
  });
}

function count<T>(items: ReadonlyArray<T>, item: T): number {
  return items.filter((i) => i === item).length;
}

/** Every hand-written Markdown file but the reference page itself. */
function otherPages(except: string): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f));
  const readmes = PACKAGES.map((p) => path.join('packages', p, 'README.md'));
  return ['README.md', 'BENCHMARKS.md', 'RELIABILITY.md', 'CONTRIBUTING.md', ...docs, ...readmes].filter(
    (f) => f !== except && fs.existsSync(path.join(ROOT, f)),
  );
}

describe('docs/configuration.md', () => {
  const page = read('docs/configuration.md');

  it.each(PACKAGES)('documents every option of @load-aware/%s exactly once per schema', (name) => {
    const sets = sourceFiles(path.join('packages', name, 'src')).flatMap(schemaKeySets);
    const rows = rowKeys(section(page, `@load-aware/${name}`)).map((k) => k.split('.').at(-1)!);
    const problems = [...new Set(sets.flat())].flatMap((key) => {
      const expected = sets.filter((s) => s.includes(key)).length;
      const found = count(rows, key);
      return found === expected ? [] : [`${key}: ${String(found)} rows, expected ${String(expected)}`];
    });
    expect(problems).toEqual([]);
  });
});

describe('docs/observability.md', () => {
  const reference = 'docs/observability.md';
  const rows = rowKeys(read(reference).split('\n'));
  const elsewhere = otherPages(reference).flatMap((f) => rowKeys(read(f).split('\n')).map((k) => ({ f, k })));

  const metricNames = [
    ...new Set(
      PACKAGES.flatMap((name) => sourceFiles(path.join('packages', name, 'src'))).flatMap((file) =>
        [...read(file).matchAll(/'(load_aware_[a-z0-9_]*[a-z0-9])'/g)].map((m) => m[1]!),
      ),
    ),
  ].sort();
  const errorCodes = Object.values(ERROR_CODES)
    .flatMap((codes) => Object.values(codes) as string[])
    .sort();

  it('finds the names it checks', () => {
    expect(metricNames.length).toBeGreaterThan(40);
    expect(errorCodes).toContain('LOAD_AWARE_CONFIG');
  });

  it.each(metricNames)('documents the metric %s in exactly one row, on this page only', (metric) => {
    expect(count(rows, metric)).toBe(1);
    expect(elsewhere.filter((r) => r.k === metric)).toEqual([]);
  });

  const logKeys = [
    ...new Set(PACKAGES.flatMap((name) => sourceFiles(path.join('packages', name, 'src'))).flatMap(logMessageKeys)),
  ].sort();
  const prose = read(reference).replace(/\s+/g, ' ');

  it('finds the log messages it checks', () => {
    expect(logKeys).toContain('load-aware assignment');
  });

  it.each(logKeys)('documents the log message "%s"', (key) => {
    expect(prose).toContain(key);
  });

  it.each(errorCodes)('documents the error code %s in exactly one row, on this page only', (code) => {
    expect(count(rows, code)).toBe(1);
    expect(elsewhere.filter((r) => r.k === code)).toEqual([]);
  });
});

describe('docs/cli.md', () => {
  const usage = /export const USAGE = `([^`]*)`/.exec(read('packages/cli/src/args.ts'))?.[1] ?? '';
  const flags = [...new Set([...usage.matchAll(/--[a-z][a-z0-9-]*/g)].map((m) => m[0]))].sort();
  const page = read('docs/cli.md');

  it('finds the usage text', () => {
    expect(flags).toContain('--brokers');
  });

  it.each(flags)('documents the flag %s', (flag) => {
    expect(page).toMatch(new RegExp(`\`${flag}[\\s\`=]`));
  });
});
