/** A Markdown table with padded columns; columns in `right` (by index) are right-aligned. */
export function markdown(
  header: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  right: ReadonlySet<number>,
): string {
  const widths = header.map((h, c) => Math.max(h.length, 3, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: ReadonlyArray<string>): string =>
    `| ${widths.map((w, c) => (right.has(c) ? (cells[c] ?? '').padStart(w) : (cells[c] ?? '').padEnd(w))).join(' | ')} |`;
  const rule = `| ${widths.map((w, c) => (right.has(c) ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
