import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

/**
 * The public surface of a built package, as text: every name its root entry point exports, with
 * the declaration it stands for (comments removed), sorted by name. Read from the emitted
 * `.d.ts`, so it is exactly what a user's compiler sees, types included.
 */
export function publicApiReport(typesEntry: string): string {
  const program = ts.createProgram([typesEntry], { noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(typesEntry);
  const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) throw new Error(`No module found at ${typesEntry}`);
  const printer = ts.createPrinter({ removeComments: true });
  const lines: string[] = [];
  for (const exported of [...checker.getExportsOfModule(moduleSymbol)].sort((a, b) => a.name.localeCompare(b.name))) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    lines.push(`## ${exported.name}`);
    for (const declaration of target.declarations ?? []) {
      const node = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
      const text = printer.printNode(ts.EmitHint.Unspecified, node, declaration.getSourceFile());
      lines.push(text.replace(/^export (declare )?/gm, '').trim());
    }
    lines.push('');
  }
  return lines.join('\n');
}

/**
 * Compares a package's public surface with the report committed beside it, so that a change to
 * what users can import is always deliberate. With `UPDATE_API_REPORT=1` it rewrites the report
 * instead (then review the diff).
 */
export function expectPublicApi(typesEntry: string, reportFile: string): void {
  const actual = `# Public API\n\nGenerated from the built type declarations; update with UPDATE_API_REPORT=1.\n\n${publicApiReport(typesEntry)}`;
  if (process.env['UPDATE_API_REPORT'] === '1') {
    writeFileSync(reportFile, actual);
    return;
  }
  const committed = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
  if (committed !== actual)
    throw new Error(
      `The public API differs from ${reportFile}. If the change is intended, run ` +
        `UPDATE_API_REPORT=1 pnpm exec jest public-api --selectProjects unit and commit the report.\n\n` +
        firstDifference(committed, actual),
    );
}

function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) return `line ${String(i + 1)}:\n- ${a[i] ?? '(none)'}\n+ ${b[i] ?? '(none)'}`;
  return '';
}
