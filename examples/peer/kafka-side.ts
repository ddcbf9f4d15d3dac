import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveKafkaJars } from '@load-aware/integration-tests';
import { caseFile, type PeerCase } from './peer-cases.js';
import type { StepResult } from './balance-side.js';

const execFileAsync = promisify(execFile);

/** Results of Kafka's assignors, by assignor name ("sticky", "cooperative-sticky"). */
export type KafkaResults = ReadonlyMap<string, StepResult[]>;

/**
 * Runs PeerBench.java on the cases with kafka-clients from the broker classpath the test bed
 * resolves with Maven (cached), compiled once per run into a temporary directory.
 */
export async function runKafkaSide(
  cases: ReadonlyArray<PeerCase>,
  kafkaVersion: string,
  cacheDir: string,
  log: (line: string) => void,
): Promise<KafkaResults> {
  const jars = await resolveKafkaJars(kafkaVersion, cacheDir, log);
  const work = await mkdtemp(join(tmpdir(), 'load-aware-peer-'));
  try {
    const classes = join(work, 'classes');
    await mkdir(classes);
    const classpath = `${jars.libDir}/*`;
    const source = join(__dirname, '..', '..', 'peer', 'PeerBench.java');
    await execFileAsync('javac', ['-cp', classpath, '-d', classes, source]);
    const input = join(work, 'cases.txt');
    await writeFile(input, caseFile(cases));
    const { stdout } = await execFileAsync('java', ['-Xmx2g', '-cp', `${classes}:${classpath}`, 'PeerBench', input], {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 30 * 60_000,
    });
    return parseResults(stdout, cases);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function parseResults(stdout: string, cases: ReadonlyArray<PeerCase>): KafkaResults {
  const byAssignor = new Map<string, StepResult[]>();
  for (const line of stdout.split('\n')) {
    const f = line.split('\t');
    if (f[0] !== 'result' || f.length < 9) continue;
    const mismatches = f[9];
    const [, caseId, assignor, step, , ms, moved, max, min] = f as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const kind = cases.find((c) => c.id === caseId)?.steps[Number(step)]?.kind ?? '?';
    const list = byAssignor.get(assignor) ?? [];
    list.push({
      caseId,
      step: Number(step),
      kind,
      medianMs: Number(ms),
      moved: Number(moved),
      maxCount: Number(max),
      minCount: Number(min),
      rackMismatches: mismatches === undefined || mismatches === '-' ? undefined : Number(mismatches),
    });
    byAssignor.set(assignor, list);
  }
  return byAssignor;
}
