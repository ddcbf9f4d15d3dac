/**
 * Formats rows as a Markdown table with padded columns: readable in a terminal and pasteable
 * into BENCHMARKS.md as is. Columns listed in `rightAligned` (by index) are aligned right.
 */
export function markdownTable(
  header: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  rightAligned: ReadonlySet<number>,
): string {
  const widths = header.map((h, c) => Math.max(h.length, 3, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: ReadonlyArray<string>): string =>
    `| ${widths.map((w, c) => (rightAligned.has(c) ? (cells[c] ?? '').padStart(w) : (cells[c] ?? '').padEnd(w))).join(' | ')} |`;
  const rule = `| ${widths.map((w, c) => (rightAligned.has(c) ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
