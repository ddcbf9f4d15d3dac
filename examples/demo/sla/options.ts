/**
 * The latency-SLA benchmark's fixed workload and its command line. Sizes are fixed so runs
 * compare; only what runs (`--quick`, `--shapes`, `--no-shift`) and where (`--brokers`, `--out`)
 * can change. Why each number is what it is: BENCHMARKS.md, "Latency SLA".
 */
import { FAST_PRESET, type FastPreset } from '@load-aware/integration-tests/fast-preset';
import type { ExperimentTiming } from './experiment.js';
import { SHAPES, type Shape, type WorkloadOptions } from './workload.js';

/** Processing cost of one message: a member processes 1000 / WORK_MS = 250 messages/s. */
export const WORK_MS = 4;

/** The latency SLA: p99 at most this, end to end (produce timestamp → processed). */
export const SLA_MS = 1000;

/** The workload, apart from its shape. */
export const WORKLOAD: Omit<WorkloadOptions, 'shape'> = Object.freeze({
  partitions: 32,
  memberRate: 1000 / WORK_MS,
  // The heaviest partition at 60% of a member: under sizeGroup's default 70% target, so sizing
  // is not futile, and no assignment is beaten by a single partition.
  heaviestShare: 0.6,
  // The demo's exponent, seed and hotspot move (bench:e2e); σ = 1 is the standard log-normal.
  zipfExponent: 0.8,
  sigma: 1,
  seed: 42,
  shiftRanks: 7,
});

/** The full run: about 15 minutes. */
export const FULL_TIMING: ExperimentTiming & { warmSeconds: number } = Object.freeze({
  warmSeconds: 4,
  measureSeconds: 15,
  shiftBeforeSeconds: 15,
  shiftAfterSeconds: 60,
  maxSearchPhases: 5,
});

/** The smoke run (--quick): short windows, one shape, a short shift; rough numbers. */
export const QUICK_TIMING: ExperimentTiming & { warmSeconds: number } = Object.freeze({
  warmSeconds: 2,
  measureSeconds: 6,
  shiftBeforeSeconds: 5,
  shiftAfterSeconds: 15,
  maxSearchPhases: 2,
});

/** What a run does. */
export interface SlaOptions {
  quick: boolean;
  shapes: Shape[];
  shift: boolean;
  brokers: string[] | undefined;
  outDir: string;
  timing: ExperimentTiming & { warmSeconds: number };
  preset: FastPreset;
}

export const SLA_USAGE = `Usage: pnpm bench:sla [--quick] [--shapes zipf,lognormal] [--no-shift]
                     [--brokers host:port[,...]] [--out DIR]

The latency-SLA experiment of Landau et al. (JPDC 2025) on a real broker: 32 partitions of skewed
rates, members that process 250 msg/s each; for round-robin, a count-balanced sticky assignment
and load-aware, the smallest group holding p99 <= 1 s end to end, every assignor at load-aware's
smallest group, and a traffic shift there. Writes DIR/bench.md and result.json. About 15 minutes.

  --quick          6 s windows, the zipf shape only, a 15 s shift: a smoke run (~3 min), rough numbers
  --shapes a,b     zipf and/or lognormal (default both)
  --no-shift       skip the traffic shift
  --brokers h:p    use this cluster instead of starting a local broker
  --out DIR        output folder (default out/bench-sla-<timestamp>)
  --help           this text
`;

/** A command line the benchmark cannot run. */
export class SlaUsageError extends Error {
  override readonly name = 'SlaUsageError';
}

/** `--help` was asked for; the message is the usage text. */
export class SlaHelpRequested extends Error {
  override readonly name = 'SlaHelpRequested';
}

/** Reads the command line. */
export function parseSlaArgs(argv: readonly string[], now = new Date()): SlaOptions {
  const stamp = now.toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19);
  let quick = false;
  let shapes: Shape[] | undefined;
  let shift = true;
  let brokers: string[] | undefined;
  let outDir = `out/bench-sla-${stamp}`;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new SlaUsageError(`${flag} needs a value\n\n${SLA_USAGE}`);
      return v;
    };
    switch (flag) {
      case '--help':
      case '-h':
        throw new SlaHelpRequested(SLA_USAGE);
      case '--quick':
        quick = true;
        break;
      case '--no-shift':
        shift = false;
        break;
      case '--shapes': {
        const raw = value();
        const named = raw.split(',').map((s) => s.trim());
        const unknown = named.find((s) => !(SHAPES as readonly string[]).includes(s));
        if (unknown !== undefined || named.length === 0) {
          throw new SlaUsageError(`--shapes ${raw}: expected zipf and/or lognormal, comma-separated`);
        }
        shapes = SHAPES.filter((s) => named.includes(s));
        break;
      }
      case '--brokers':
        brokers = value()
          .split(',')
          .map((b) => b.trim())
          .filter((b) => b !== '');
        break;
      case '--out':
        outDir = value();
        break;
      default:
        throw new SlaUsageError(`${flag}: unknown flag (sizes are fixed)\n\n${SLA_USAGE}`);
    }
  }
  return {
    quick,
    shapes: shapes ?? (quick ? ['zipf'] : [...SHAPES]),
    shift,
    brokers,
    outDir,
    timing: quick ? QUICK_TIMING : FULL_TIMING,
    preset: FAST_PRESET,
  };
}
