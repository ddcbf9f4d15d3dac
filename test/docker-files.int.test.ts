import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

// The docker/ files are for users with Docker and are never run here (no engine): these checks
// keep them consistent with the code they reference.
const ROOT = join(__dirname, '..');
const DOCKER = join(ROOT, 'docker');

/** The TypeScript sources under `dir`: installed packages and build output are not sources. */
function sourcesUnder(dir: string): string {
  return readdirSync(dir)
    .filter((name) => name !== 'node_modules' && !name.startsWith('.'))
    .map((name) => join(dir, name))
    .map((path) =>
      statSync(path).isDirectory() ? sourcesUnder(path) : path.endsWith('.ts') ? readFileSync(path, 'utf8') : '',
    )
    .join('\n');
}

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string | number>;
}

describe('docker/ files', () => {
  const compose = parse(readFileSync(join(DOCKER, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const exampleSources = sourcesUnder(join(ROOT, 'examples'));

  it('compose runs only examples that exist, with environment variables they read', () => {
    const built = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
    expect(built.map(([name]) => name).sort()).toEqual(['consumer-a', 'consumer-b', 'producer']);
    for (const [, service] of built) {
      expect(existsSync(join(DOCKER, service.build!.context, service.build!.dockerfile))).toBe(true);
      const script = service.command![1]!;
      expect(existsSync(join(ROOT, script))).toBe(true);
      for (const key of Object.keys(service.environment ?? {})) {
        expect(exampleSources).toContain(`process.env['${key}']`);
      }
    }
  });

  it('pins every image to a version', () => {
    for (const service of Object.values(compose.services)) {
      if (service.image !== undefined) expect(service.image).toMatch(/:[0-9v][\w.-]*$/);
    }
  });

  it('has a Prometheus config that promtool accepts', () => {
    const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
    if (promtool === undefined) {
      if (process.env['CI'] === 'true') throw new Error('promtool missing (Debian package prometheus)');
      return;
    }
    expect(() =>
      execFileSync(promtool, ['check', 'config', join(DOCKER, 'prometheus.yml')], { stdio: 'pipe' }),
    ).not.toThrow();
  });

  it('has a dashboard that only queries metrics the packages register', () => {
    const dashboard = JSON.parse(readFileSync(join(DOCKER, 'grafana', 'dashboards', 'load-aware.json'), 'utf8')) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    const packageSources = sourcesUnder(join(ROOT, 'packages'));
    const names = new Set(
      dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/load_aware_[a-z_]+/g) ?? [])),
    );
    expect(names.size).toBeGreaterThan(10);
    for (const name of names) {
      const registered = name.replace(/_(bucket|count|sum)$/, '');
      expect({ name, registered: packageSources.includes(`'${registered}'`) }).toEqual({ name, registered: true });
    }
  });
});
