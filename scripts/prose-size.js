#!/usr/bin/env node
// Measures the hand-written prose: size per Markdown file, the total the docs budget counts
// (README, docs/, package READMEs, BENCHMARKS, RELIABILITY) and the longest line of every
// hand-written Markdown file. Generated files (packages/*/public-api.md) are not prose.
//   node scripts/prose-size.js [--json]
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const MAX_LINE = 400;

/** Markdown files under `dir` (relative to the root), recursively, sorted. */
function markdownUnder(dir) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? markdownUnder(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : [],
    )
    .sort();
}

const packages = fs.readdirSync(path.join(root, 'packages')).sort();
const budgeted = [
  'README.md',
  'BENCHMARKS.md',
  'RELIABILITY.md',
  ...markdownUnder('docs'),
  ...packages.map((p) => path.join('packages', p, 'README.md')),
].filter((f) => fs.existsSync(path.join(root, f)));
const otherProse = ['CONTRIBUTING.md', 'CHANGELOG.md', 'docker/README.md'].filter((f) =>
  fs.existsSync(path.join(root, f)),
);

const rows = [...budgeted, ...otherProse].map((file) => {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const lines = text.split('\n');
  const longest = Math.max(...lines.map((l) => l.length));
  return {
    file,
    bytes: fs.statSync(path.join(root, file)).size,
    longest,
    overLimit: lines.filter((l) => l.length > MAX_LINE).length,
  };
});
const total = rows.filter((r) => budgeted.includes(r.file)).reduce((sum, r) => sum + r.bytes, 0);

if (process.argv.includes('--json')) {
  process.stdout.write(JSON.stringify({ rows, budgetedBytes: total }, null, 2) + '\n');
} else {
  for (const r of rows) {
    const mark = budgeted.includes(r.file) ? ' ' : '+';
    const over = r.overLimit > 0 ? `  ${String(r.overLimit)} lines over ${String(MAX_LINE)}` : '';
    console.log(
      `${mark} ${(r.bytes / 1024).toFixed(1).padStart(6)} KB  longest line ${String(r.longest).padStart(4)}  ${r.file}${over}`,
    );
  }
  console.log(
    `  ${(total / 1024).toFixed(1).padStart(6)} KB  budgeted total (README, docs/, package READMEs, BENCHMARKS, RELIABILITY); + marks files outside it`,
  );
}
