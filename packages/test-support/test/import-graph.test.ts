/**
 * The repository's import rules, checked on the sources themselves: no module of a package's
 * `src/` reaches itself again through its own imports (a cycle makes load order matter and hides
 * which module owns a concept), and a package's `src/` imports only workspace packages it
 * declares, so a lower package can never reach up into one built on top of it. Its tests and
 * benchmarks may use more, but never a package built on top of it either.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { typeScriptFilesUnder } from '@load-aware/test-support';

const PACKAGES_DIR = resolve(__dirname, '../..');
const TEST_KIT = '@load-aware/test-support';

/** Every module specifier a file imports or re-exports, type-only ones included. */
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  // `import x from '…'`, `import type { … } from '…'`, `export { … } from '…'`, `import '…'`,
  // and dynamic `import('…')`; multi-line import lists are covered because only `from '…'` counts.
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
  for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** The file a relative `./x.js` specifier names: `x.ts`, or `x/index.ts` for a folder. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

/** The cycles of a directed graph, each as the path that closes it (first node repeated). */
function findCycles(graph: ReadonlyMap<string, ReadonlyArray<string>>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

interface WorkspacePackage {
  readonly dir: string;
  readonly name: string;
  /** Workspace packages its published code may import: dependencies and peers. */
  readonly runtimeDependencies: ReadonlySet<string>;
}

/**
 * The workspace packages that depend on `name` at run time, directly or through others. The
 * shared test kit is never one of them: it sits beside the packages, for their tests' use.
 */
function packagesBuiltOn(name: string, all: ReadonlyArray<WorkspacePackage>): Set<string> {
  const above = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const pkg of all) {
      if (above.has(pkg.name) || pkg.name === TEST_KIT) continue;
      if (pkg.runtimeDependencies.has(name) || [...above].some((a) => pkg.runtimeDependencies.has(a))) {
        above.add(pkg.name);
        grew = true;
      }
    }
  }
  return above;
}

function workspacePackages(): WorkspacePackage[] {
  return readdirSync(PACKAGES_DIR)
    .map((name) => join(PACKAGES_DIR, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
      };
      const declared = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
      return { dir, name: manifest.name, runtimeDependencies: new Set(Object.keys(declared)) };
    });
}

/** `@load-aware/assignor/internal` → `@load-aware/assignor`. */
function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const packages = workspacePackages();

/** A package's layers, lowest first: paths under `src`, each a folder's own modules or one file. */
type Layers = ReadonlyArray<ReadonlyArray<string>>;

/**
 * The layers of `@load-aware/assignor`'s `src`. A module imports from its own folder or from a
 * lower layer, never from a higher one or from a sibling of its own layer, so each folder can be
 * read knowing only the folders below it. docs/architecture.md draws the same tree.
 */
const ASSIGNOR_LAYERS: Layers = [
  ['errors'], // the error catalogue: plain classes and codes, which even the pure core throws
  ['core/types.ts'], // the core's data shapes: the contract every stage reads
  ['core/structures'],
  ['core/model'],
  ['core/place'],
  ['core/improve'],
  ['core/orphans'], // the by-weight core's hand-out stage, built on improve's shed and repair
  ['core/solve'],
  ['core/racks', 'core/report'],
  ['core'], // balance(): the pipeline over the stages, and the core's exports
  ['sizing'], // how many members a group needs: balance() at candidate sizes
  ['base'],
  ['protocol'],
  ['inputs'],
  ['config'],
  ['member'],
  ['kafkajs'], // the KafkaJS seam: every internal of KafkaJS the assignor reaches, and its interceptions
  ['leader'],
  ['.'], // the KafkaJS assigner and the package's entry points
];

/** The layers of `@load-aware/trigger`'s `src`, read the same way. */
const TRIGGER_LAYERS: Layers = [
  ['contract'], // data types, the Trigger and TriggerTarget contracts, errors, number formats
  ['config'], // the controller's options, and the KafkaJS target they can build
  ['judge'], // pure measures of the current assignment: load, fire price, unheld, away members
  ['triggers'], // the decision rules: threshold, periodic, composite
  ['controller'], // the elected member's loop, its log lines and metrics
  ['.'], // the entry points
];

/** The layers of `@load-aware/weights-offset-rate`'s `src`, read the same way. */
const OFFSET_RATE_LAYERS: Layers = [
  ['base'], // errors, the clock, the time index, in-flight work
  ['readers'], // reading end offsets: the contract and the KafkaJS and platformatic readers
  ['rates'], // pure rate math: per-partition history, the tracker, instant rates, the answer
  ['config'], // the options schema and the metric set
  ['sampling'], // the background sampler, the first call's lookups, choosing a reader
  ['.'], // the weight source and the entry points
];

/** The packages whose `src` is layered, by folder name under `packages/`. */
const LAYERED_PACKAGES: ReadonlyArray<readonly [string, Layers]> = [
  ['assignor', ASSIGNOR_LAYERS],
  ['trigger', TRIGGER_LAYERS],
  ['weights-offset-rate', OFFSET_RATE_LAYERS],
];

/** A folder of `src` holds at most this many modules: more, and it no longer says what is in it. */
const MAX_MODULES_PER_FOLDER = 12;

/** The layer of a module (its index in `layers`), or -1 when it is in none. */
function layerOf(layers: Layers, pathUnderSrc: string): number {
  const folder = dirname(pathUnderSrc);
  const byFile = layers.findIndex((layer) => layer.includes(pathUnderSrc));
  return byFile >= 0 ? byFile : layers.findIndex((layer) => layer.includes(folder));
}

/** Imports among a package's src modules that break its layering, as "from -> to" lines. */
function layeringBreaches(srcDir: string, layers: Layers): string[] {
  const breaches: string[] = [];
  for (const file of typeScriptFilesUnder(srcDir)) {
    const from = relative(srcDir, file);
    const fromLayer = layerOf(layers, from);
    if (fromLayer < 0) {
      breaches.push(`${from} is in no declared layer`);
      continue;
    }
    for (const specifier of specifiersOf(readFileSync(file, 'utf8')).filter((s) => s.startsWith('.'))) {
      const target = resolveRelative(file, specifier);
      if (target === undefined) continue;
      const to = relative(srcDir, target);
      const toLayer = layerOf(layers, to);
      const sameFolder = dirname(to) === dirname(from) && toLayer === fromLayer;
      if (toLayer < fromLayer || sameFolder) continue;
      breaches.push(`${from} -> ${to}`);
    }
  }
  return breaches.sort();
}

describe('import rules of the workspace packages', () => {
  it('finds the packages and their sources', () => {
    expect(packages.map((p) => p.name)).toEqual(
      expect.arrayContaining(['@load-aware/assignor', '@load-aware/trigger']),
    );
    expect(typeScriptFilesUnder(join(PACKAGES_DIR, 'assignor', 'src')).length).toBeGreaterThan(10);
    expect(packagesBuiltOn('@load-aware/assignor', packages)).toContain('@load-aware/trigger');
    expect(packagesBuiltOn('@load-aware/trigger', packages)).not.toContain('@load-aware/assignor');
  });

  it.each(packages.map((p) => [p.name, p] as const))('%s: no import cycle among its src modules', (_, pkg) => {
    const graph = new Map<string, string[]>();
    for (const file of typeScriptFilesUnder(join(pkg.dir, 'src'))) {
      const targets = specifiersOf(readFileSync(file, 'utf8'))
        .filter((s) => s.startsWith('.'))
        .map((s) => resolveRelative(file, s))
        .filter((target): target is string => target !== undefined);
      graph.set(file, targets);
    }
    const cycles = findCycles(graph).map((cycle) => cycle.map((f) => relative(pkg.dir, f)).join(' -> '));
    expect(cycles).toEqual([]);
  });

  it.each(packages.map((p) => [p.name, p] as const))(
    '%s: its src imports only the workspace packages it declares',
    (_, pkg) => {
      const undeclared: string[] = [];
      for (const file of typeScriptFilesUnder(join(pkg.dir, 'src'))) {
        for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
          const name = packageNameOf(specifier);
          if (!name.startsWith('@load-aware/') || name === pkg.name) continue;
          if (!pkg.runtimeDependencies.has(name)) undeclared.push(`${relative(pkg.dir, file)} imports ${name}`);
        }
      }
      expect(undeclared).toEqual([]);
    },
  );

  it.each(packages.map((p) => [p.name, p] as const))(
    '%s: its tests and benchmarks import no package built on top of it',
    (_, pkg) => {
      const above = packagesBuiltOn(pkg.name, packages);
      const upward: string[] = [];
      for (const file of ['test', 'bench'].flatMap((dir) => typeScriptFilesUnder(join(pkg.dir, dir)))) {
        for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
          if (above.has(packageNameOf(specifier))) upward.push(`${relative(pkg.dir, file)} imports ${specifier}`);
        }
      }
      expect(upward).toEqual([]);
    },
  );

  describe.each(LAYERED_PACKAGES)('%s: its src is layered', (name, layers) => {
    const srcDir = join(PACKAGES_DIR, name, 'src');

    it('imports only from its own folder or a lower layer', () => {
      expect(layeringBreaches(srcDir, layers)).toEqual([]);
    });

    it(`holds at most ${String(MAX_MODULES_PER_FOLDER)} modules in any folder`, () => {
      const perFolder = new Map<string, number>();
      for (const file of typeScriptFilesUnder(srcDir)) {
        const folder = relative(srcDir, dirname(file)) || '.';
        perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
      }
      const crowded = [...perFolder].filter(([, count]) => count > MAX_MODULES_PER_FOLDER);
      expect(crowded).toEqual([]);
      expect(perFolder.size).toBeGreaterThan(3);
    });
  });

  it('places a module in its layer, and an undeclared folder in none', () => {
    expect(layerOf(ASSIGNOR_LAYERS, 'core/types.ts')).toBeLessThan(layerOf(ASSIGNOR_LAYERS, 'core/balance.ts'));
    expect(layerOf(ASSIGNOR_LAYERS, 'core/model/model.ts')).toBeLessThan(layerOf(ASSIGNOR_LAYERS, 'leader/assign.ts'));
    expect(layerOf(TRIGGER_LAYERS, 'judge/load.ts')).toBeLessThan(layerOf(TRIGGER_LAYERS, 'controller/controller.ts'));
    expect(layerOf(ASSIGNOR_LAYERS, 'nowhere/x.ts')).toBe(-1);
  });

  it('sees a cycle when there is one, so a green run means something', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(specifiersOf('import type {\n  A,\n} from \'./a.js\';\nexport { b } from "./b.js";')).toEqual([
      './a.js',
      './b.js',
    ]);
  });
});
