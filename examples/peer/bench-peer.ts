/**
 * `pnpm bench:peer`: Apache Kafka's StickyAssignor and CooperativeStickyAssignor (kafka-clients,
 * in one JVM, warmed) beside `balance()` (this Node process, warmed) on identical seeded inputs:
 * every weight 1, each member its own instance, each side carrying its own previous assignment
 * through the same join/leave sequence. Prints compute time (median of the warmed repeats),
 * partitions moved and the spread of partition counts, and the time ratios. Cases with racks also
 * time `balance()` on the same steps without them, alternating call by call: what matching racks
 * costs over today's placement.
 *
 *   pnpm bench:peer [--quick]   --quick: the 10k-partition cases only
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_KAFKA_VERSION } from '@load-aware/integration-tests';
import { markdownTable } from '@load-aware/test-support';
import { runBalanceSide, type StepResult } from './balance-side.js';
import { runKafkaSide } from './kafka-side.js';
import { peerCases } from './peer-cases.js';

function format(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(ms >= 10 ? 1 : 2);
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const cases = peerCases(quick);
  const cacheDir = process.env['LOAD_AWARE_CACHE'] ?? join(homedir(), '.cache', 'load-aware');
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  log(
    `bench:peer: ${String(cases.length)} cases; Kafka ${DEFAULT_KAFKA_VERSION} assignors in a JVM, then balance() here`,
  );
  const kafka = await runKafkaSide(cases, DEFAULT_KAFKA_VERSION, cacheDir, log);
  const ours = cases.flatMap(runBalanceSide);
  const sticky = kafka.get('sticky') ?? [];
  const cooperative = kafka.get('cooperative-sticky') ?? [];
  const find = (list: ReadonlyArray<StepResult>, r: StepResult): StepResult | undefined =>
    list.find((k) => k.caseId === r.caseId && k.step === r.step);
  const rows = ours.map((r) => {
    const s = find(sticky, r);
    const c = find(cooperative, r);
    return [
      r.caseId,
      r.kind,
      s === undefined ? '-' : format(s.medianMs),
      c === undefined ? '-' : format(c.medianMs),
      format(r.medianMs),
      s === undefined || s.medianMs === 0 ? '-' : `${(r.medianMs / s.medianMs).toFixed(2)}x`,
      `${s === undefined ? '-' : String(s.moved)} / ${String(r.moved)}`,
      `${s === undefined ? '-' : `${String(s.minCount)}-${String(s.maxCount)}`} / ${String(r.minCount)}-${String(r.maxCount)}`,
      r.rackMismatches === undefined ? '' : `${String(s?.rackMismatches ?? '-')} / ${String(r.rackMismatches)}`,
      r.withoutRacksMs === undefined ? '' : format(r.withoutRacksMs),
      r.withoutRacksMs === undefined || r.withoutRacksMs === 0 ? '' : `${(r.medianMs / r.withoutRacksMs).toFixed(2)}x`,
    ];
  });
  process.stdout.write(
    `${markdownTable(
      [
        'case',
        'step',
        'Sticky ms',
        'CoopSticky ms',
        'balance() ms',
        'balance ÷ Sticky',
        'moved (Sticky / ours)',
        'partitions per member (Sticky / ours)',
        'cross-rack partitions (Sticky / ours)',
        'balance() without racks ms',
        'racks ÷ without',
      ],
      rows,
      new Set([2, 3, 4, 5, 9, 10]),
    )}\n\nNode ${process.version}, ${process.arch}; Kafka ${DEFAULT_KAFKA_VERSION} kafka-clients; medians of warmed repeats per step.\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:peer failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
