import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Pinned so a Maven upgrade on the machine cannot change how the cache is filled. */
const DEPENDENCY_PLUGIN_VERSION = '3.8.1';
/** The reload4j release Kafka 3.9's own distribution ships. */
const RELOAD4J_VERSION = '1.2.25';
/** Bump when the lib layout or the marker's meaning changes, so stale caches are rebuilt. */
const MARKER_FILE = '.load-aware-resolved-v1.json';

/** Which logging framework the resolved broker uses, which decides the config file and property. */
export type KafkaLoggingBackend = 'reload4j' | 'log4j2';

/** A Kafka broker classpath resolved from Maven Central into the local cache. */
export interface KafkaJars {
  /** Directory holding every runtime jar; the JVM classpath is `<libDir>/*`. */
  readonly libDir: string;
  /** Logging framework on the classpath (reload4j for 3.x, log4j2 for 4.x). */
  readonly loggingBackend: KafkaLoggingBackend;
  /** `group:artifact:version` of the logging jars added on top of Kafka's own dependencies. */
  readonly loggingArtifacts: readonly string[];
  /** Whether Maven ran for this call (false when the cache was already complete). */
  readonly resolvedNow: boolean;
}

interface Marker {
  readonly version: string;
  readonly loggingBackend: KafkaLoggingBackend;
  readonly loggingArtifacts: readonly string[];
}

/**
 * Makes sure `<cacheDir>/kafka/<version>/lib` holds the runtime jars of `kafka_2.13:<version>` plus
 * an slf4j binding, and returns where they are.
 *
 * Maven resolves into a private staging directory that is renamed into place only when complete,
 * so a crashed or concurrent run can never leave a half-filled `lib` that looks usable: the rename
 * is atomic, and the loser of a race simply discards its copy.
 */
export async function resolveKafkaJars(
  version: string,
  cacheDir: string,
  log: (line: string) => void,
): Promise<KafkaJars> {
  checkVersion(version);
  const versionDir = join(cacheDir, 'kafka', version);
  const libDir = join(versionDir, 'lib');
  const cached = await readMarker(libDir, version);
  if (cached !== undefined) {
    return { libDir, ...cached, resolvedNow: false };
  }

  await mkdir(versionDir, { recursive: true });
  const staging = await mkdtemp(join(versionDir, '.staging-'));
  try {
    const stagingLib = join(staging, 'lib');
    log(`resolving org.apache.kafka:kafka_2.13:${version} with Maven into ${libDir}`);
    // Two passes: the binding must match the slf4j-api and log4j versions Kafka itself pulls in,
    // which are only known once its dependency tree has been resolved.
    await copyDependencies(staging, 'pom-kafka-only.xml', version, [], stagingLib);
    const logging = chooseLogging(await readdir(stagingLib));
    await copyDependencies(staging, 'pom.xml', version, logging.loggingArtifacts, stagingLib);

    const marker: Marker = { version, ...logging };
    await writeFile(join(stagingLib, MARKER_FILE), `${JSON.stringify(marker, null, 2)}\n`);
    await publish(stagingLib, libDir, version);
    // Keep the final POM next to the cache so a human can rerun or inspect the resolution.
    await rename(join(staging, 'pom.xml'), join(versionDir, 'pom.xml'));
    return { libDir, ...((await readMarker(libDir, version)) ?? marker), resolvedNow: true };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Makes sure `<cacheDir>/kafka/<version>/tools` holds the runtime jars of `kafka-tools:<version>`:
 * Kafka's command-line tools (`ConsumerGroupCommand` and the like) as the broker's version ships
 * them, kept apart from the broker's own classpath. Returns the directory (classpath `<dir>/*`).
 */
export async function resolveKafkaToolsJars(
  version: string,
  cacheDir: string,
  log: (line: string) => void,
): Promise<string> {
  checkVersion(version);
  const versionDir = join(cacheDir, 'kafka', version);
  const toolsDir = join(versionDir, 'tools');
  if ((await readMarker(toolsDir, version)) !== undefined) return toolsDir;
  await mkdir(versionDir, { recursive: true });
  const staging = await mkdtemp(join(versionDir, '.staging-tools-'));
  try {
    const stagingLib = join(staging, 'tools');
    log(`resolving org.apache.kafka:kafka-tools:${version} with Maven into ${toolsDir}`);
    await copyDependencies(staging, 'pom.xml', version, [], stagingLib, `org.apache.kafka:kafka-tools:${version}`);
    const marker: Marker = { version, loggingBackend: 'reload4j', loggingArtifacts: [] };
    await writeFile(join(stagingLib, MARKER_FILE), `${JSON.stringify(marker, null, 2)}\n`);
    await publish(stagingLib, toolsDir, version);
    return toolsDir;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** A version goes into paths and a POM: only digits, letters, dots and dashes. */
function checkVersion(version: string): void {
  if (!/^[0-9][0-9A-Za-z.-]*$/.test(version)) {
    throw new Error(`Invalid Kafka version: ${JSON.stringify(version)} (expected e.g. "4.1.1")`);
  }
}

async function readMarker(libDir: string, version: string): Promise<Marker | undefined> {
  try {
    const marker = JSON.parse(await readFile(join(libDir, MARKER_FILE), 'utf8')) as Marker;
    return marker.version === version ? marker : undefined;
  } catch {
    // Missing or unreadable marker: treat the cache as empty and resolve again.
    return undefined;
  }
}

async function publish(stagingLib: string, libDir: string, version: string): Promise<void> {
  try {
    await rename(stagingLib, libDir);
  } catch (error) {
    if ((await readMarker(libDir, version)) !== undefined) {
      return; // A concurrent run published first; its copy is just as good.
    }
    // A `lib` without a marker was not made by us (rename is all-or-nothing): replace it.
    await rm(libDir, { recursive: true, force: true });
    try {
      await rename(stagingLib, libDir);
    } catch (retryError) {
      const first = error instanceof Error ? error.message : String(error);
      throw new Error(`Could not publish Kafka jars into ${libDir} (first attempt: ${first})`, { cause: retryError });
    }
  }
}

/** Picks the slf4j binding matching the slf4j-api and logging framework Kafka depends on. */
function chooseLogging(jarNames: readonly string[]): Omit<Marker, 'version'> {
  const slf4jVersion = versionOf(jarNames, 'slf4j-api');
  if (slf4jVersion === undefined) {
    throw new Error(`Kafka's dependencies include no slf4j-api jar: ${jarNames.join(', ')}`);
  }
  const log4jVersion = versionOf(jarNames, 'log4j-core');
  if (log4jVersion !== undefined) {
    // log4j-slf4j-impl implements the slf4j 1.x SPI; slf4j 2.x discovers bindings differently.
    const binding = slf4jVersion.startsWith('1.') ? 'log4j-slf4j-impl' : 'log4j-slf4j2-impl';
    return {
      loggingBackend: 'log4j2',
      loggingArtifacts: [`org.apache.logging.log4j:${binding}:${log4jVersion}`],
    };
  }
  return {
    loggingBackend: 'reload4j',
    loggingArtifacts: [`ch.qos.reload4j:reload4j:${RELOAD4J_VERSION}`, `org.slf4j:slf4j-reload4j:${slf4jVersion}`],
  };
}

function versionOf(jarNames: readonly string[], artifactId: string): string | undefined {
  const pattern = new RegExp(`^${artifactId}-(\\d[^/]*)\\.jar$`);
  for (const name of jarNames) {
    const match = pattern.exec(name);
    if (match?.[1] !== undefined) {
      return match[1];
    }
  }
  return undefined;
}

async function copyDependencies(
  dir: string,
  pomName: string,
  version: string,
  extraArtifacts: readonly string[],
  outputDir: string,
  mainArtifact = `org.apache.kafka:kafka_2.13:${version}`,
): Promise<void> {
  const pomPath = join(dir, pomName);
  await writeFile(pomPath, renderPom(version, [mainArtifact, ...extraArtifacts]));
  const args = [
    '-q',
    '-B',
    '-f',
    pomPath,
    'dependency:copy-dependencies',
    `-DoutputDirectory=${outputDir}`,
    '-DincludeScope=runtime',
  ];
  try {
    await execFileAsync('mvn', args, { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    const output = `${stdout}\n${stderr}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`mvn ${args.join(' ')} failed for Kafka ${version}:\n${output}`, {
      cause: error,
    });
  }
}

function renderPom(version: string, artifacts: readonly string[]): string {
  const dependency = (coordinates: string): string => {
    const [groupId, artifactId, artifactVersion] = coordinates.split(':');
    return [
      '    <dependency>',
      `      <groupId>${groupId ?? ''}</groupId>`,
      `      <artifactId>${artifactId ?? ''}</artifactId>`,
      `      <version>${artifactVersion ?? ''}</version>`,
      '    </dependency>',
    ].join('\n');
  };
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by @load-aware/integration-tests: a classpath of Kafka ${version} (${artifacts[0] ?? ''}). -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>load-aware.test</groupId>
  <artifactId>kafka-broker-${version}</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
${artifacts.map(dependency).join('\n')}
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>${DEPENDENCY_PLUGIN_VERSION}</version>
      </plugin>
    </plugins>
  </build>
</project>
`;
}
