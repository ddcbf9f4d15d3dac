import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every TypeScript source file below `dir` (declaration files left out), as absolute paths when
 * `dir` is absolute, sorted; none when `dir` does not exist. For the tests that read the
 * repository's own sources: its import rules, its documented reference.
 */
export function typeScriptFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return typeScriptFilesUnder(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
    })
    .sort();
}
