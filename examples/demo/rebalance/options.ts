/**
 * The rebalance benchmark's settings and command line (`pnpm bench:rebalance --help`). The
 * workload is the (three members, 12 partitions, ~600 msg/s, 1 ms per message, starts
 * 1.1 s apart); flags pick the causes, assigners, tunings and repeats, and the few knobs of the
 * measurement itself. The Kafka release comes from KAFKA_VERSION, as in the other benches.
 */
import { outputStamp, parseNumberFlag } from '../options.js';
import type { AssignerKind, FireMode, WorkMode } from './protocol.js';
import type { TuningName } from './tuning.js';

/** What causes a rebalance in a run. */
export type Cause = 'join' | 'leave' | 'fire' | 'coordinator' | 'metadata';

/** Every cause, in run and report order. */
export const CAUSES: readonly Cause[] = ['join', 'leave', 'fire', 'coordinator', 'metadata'];

/** The members measured in every run; a fourth, d, is the one that joins or leaves. */
export const MEASURED = ['a', 'b', 'c'] as const;

/** Which run: cause, assigner, tuning and repeat number (1-based). */
export interface RunPlan {
  cause: Cause;
  assigner: AssignerKind;
  tuning: TuningName;
  repeat: number;
}

/** What one benchmark invocation runs. */
export interface RebalanceOptions {
  outDir: string;
  causes: Cause[];
  assigners: AssignerKind[];
  tunings: TuningName[];
  /** Runs of each (cause, assigner, tuning), each on a fresh topic, group and processes. */
  repeats: number;
  partitions: number;
  /** Partitions the metadata cause adds to the topic. */
  addedPartitions: number;
  /** Total produce rate over the starting partitions; added partitions get the same per-partition rate. */
  eventsPerSecond: number;
  /** The producer sends every this many ms. */
  produceTickMs: number;
  workMs: number;
  workMode: WorkMode;
  /** Between the members' `consumer.run()` calls. */
  staggerMs: number;
  /** Gaps longer than this count as paused. */
  thresholdMs: number;
  /** The window closes once every member processed steadily for this long. */
  recoveryMs: number;
  /** Before the cause: the span the normal gap is measured over, and how long the group must have been steady. */
  baselineMs: number;
  /** Metadata cause: longest wait for the added partitions to be consumed. */
  metadataWaitMs: number;
  fireMode: FireMode;
  /** load-aware members also run the proactive trigger (README wiring). */
  trigger: boolean;
  triggerCheckIntervalMs: number;
  /** Total time budget: runs that would start after it are skipped (and listed). */
  maxMinutes: number;
}

export const REBALANCE_USAGE = `Usage: pnpm bench:rebalance [flags]

What one rebalance costs: three members (each its own process, KafkaJS client and instance id,
started 1.1 s apart) on a 12-partition topic at ~600 msg/s, 1 ms per message; after they settle,
one cause; the longest gap between processed messages per member and for the group, the paused
member-seconds and the rebalance count. Every (cause, assigner, tuning) runs --repeats times on a
fresh topic and group; the table shows median (min-max). Writes bench.md and result.json.
Kafka release: KAFKA_VERSION (default 4.4.0). Loopback only.

  --causes a,b,...        join, leave, fire, coordinator, metadata (default all)
  --client kafkajs|platformatic
                          platformatic: @platformatic/kafka members, load-aware in eager mode
                          against cooperative mode (assigners platformatic-eager,
                          platformatic-cooperative; causes join,fire unless --causes says
                          otherwise). Needs Node >= 22.22 or >= 24.6 (default kafkajs)
  --assigners a,b         load-aware, round-robin, platformatic-eager, platformatic-cooperative
                          (default load-aware,round-robin; fire is load-aware only)
  --tunings a,b           defaults (KafkaJS's), tuned (the demo's) (default both)
  --repeats N             runs of each combination (default 3)
  --out DIR               output folder (default out/bench-rebalance-<timestamp>)
  --rate N                total msg/s over the starting partitions (default 600)
  --partitions N          partitions of the topic (default 12)
  --added-partitions N    partitions the metadata cause adds (default 4)
  --work-ms N             per-message time (default 1)
  --work-mode sleep|busy  a timer (default) or a busy loop per message
  --stagger-ms N          between the members' starts (default 1100)
  --threshold-ms N        gaps longer than this are paused (default 200)
  --recovery-ms N         steady processing that closes a window (default 3000)
  --baseline-ms N         steady span before the cause; normal gap measured over it (default 3000)
  --metadata-wait-ms N    metadata cause: longest wait for the added partitions (default 8000:
                          the trigger's 3 s check + 5 s, issue 25's target)
  --fire-mode MODE        how the fire is made: background (the trigger's, default) or immediate
  --no-trigger            load-aware members without the proactive trigger
  --max-minutes N         total budget; later runs are skipped and listed (default 30)
  --help                  this text
`;

/** A flag the benchmark does not understand, or a bad value; the message names both. */
export class RebalanceUsageError extends Error {
  override readonly name: string = 'RebalanceUsageError';
}

/** `--help`: not an error, the usage text is the message. */
export class RebalanceHelpRequested extends RebalanceUsageError {
  override readonly name: string = 'RebalanceHelpRequested';
}

/** Defaults of the benchmark. */
export function defaultRebalanceOptions(now = new Date()): RebalanceOptions {
  return {
    outDir: `out/bench-rebalance-${outputStamp(now)}`,
    causes: [...CAUSES],
    assigners: ['load-aware', 'round-robin'],
    tunings: ['defaults', 'tuned'],
    repeats: 3,
    partitions: 12,
    addedPartitions: 4,
    eventsPerSecond: 600,
    produceTickMs: 50,
    workMs: 1,
    workMode: 'sleep',
    staggerMs: 1100,
    thresholdMs: 200,
    recoveryMs: 3000,
    baselineMs: 3000,
    metadataWaitMs: 8000,
    fireMode: 'background',
    trigger: true,
    triggerCheckIntervalMs: 3000,
    maxMinutes: 30,
  };
}

function list<T extends string>(flag: string, raw: string, allowed: readonly T[]): T[] {
  const names = raw.split(',').map((n) => n.trim());
  const bad = names.find((n) => !(allowed as readonly string[]).includes(n));
  if (bad !== undefined || names.length === 0) {
    throw new RebalanceUsageError(`${flag} ${raw}: expected a comma-separated list of ${allowed.join(', ')}`);
  }
  return [...new Set(names)] as T[];
}

function number(flag: string, raw: string, min: number, max: number, integer: boolean): number {
  try {
    return parseNumberFlag(flag, raw, min, max, integer);
  } catch (err) {
    throw new RebalanceUsageError(err instanceof Error ? err.message : String(err));
  }
}

/** Parses the command line; throws {@link RebalanceHelpRequested} on --help, {@link RebalanceUsageError} on a bad flag. */
export function parseRebalanceArgs(argv: readonly string[], now = new Date()): RebalanceOptions {
  const o = defaultRebalanceOptions(now);
  let causesGiven = false;
  let assignersGiven = false;
  let client: 'kafkajs' | 'platformatic' = 'kafkajs';
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--help' || flag === '-h') throw new RebalanceHelpRequested(REBALANCE_USAGE);
    if (flag === '--no-trigger') {
      o.trigger = false;
      continue;
    }
    const raw = argv[++i];
    if (raw === undefined) throw new RebalanceUsageError(`${flag}: expected a value`);
    switch (flag) {
      case '--causes':
        o.causes = CAUSES.filter((c) => list(flag, raw, CAUSES).includes(c));
        causesGiven = true;
        break;
      case '--assigners':
        o.assigners = list(flag, raw, ASSIGNER_KINDS);
        assignersGiven = true;
        break;
      case '--client':
        client = list(flag, raw, ['kafkajs', 'platformatic'] as const)[0]!;
        break;
      case '--tunings':
        o.tunings = list(flag, raw, ['defaults', 'tuned'] as const);
        break;
      case '--repeats':
        o.repeats = number(flag, raw, 1, 50, true);
        break;
      case '--out':
        o.outDir = raw;
        break;
      case '--rate':
        o.eventsPerSecond = number(flag, raw, 1, 20_000, false);
        break;
      case '--partitions':
        o.partitions = number(flag, raw, 3, 200, true);
        break;
      case '--added-partitions':
        o.addedPartitions = number(flag, raw, 1, 200, true);
        break;
      case '--work-ms':
        o.workMs = number(flag, raw, 0, 100, false);
        break;
      case '--work-mode':
        o.workMode = list(flag, raw, ['sleep', 'busy'] as const)[0]!;
        break;
      case '--stagger-ms':
        o.staggerMs = number(flag, raw, 0, 30_000, true);
        break;
      case '--threshold-ms':
        o.thresholdMs = number(flag, raw, 10, 10_000, true);
        break;
      case '--recovery-ms':
        o.recoveryMs = number(flag, raw, 500, 60_000, true);
        break;
      case '--baseline-ms':
        o.baselineMs = number(flag, raw, 1000, 60_000, true);
        break;
      case '--metadata-wait-ms':
        o.metadataWaitMs = number(flag, raw, 1000, 600_000, true);
        break;
      case '--fire-mode':
        o.fireMode = list(flag, raw, ['background', 'immediate'] as const)[0]!;
        break;
      case '--max-minutes':
        o.maxMinutes = number(flag, raw, 1, 24 * 60, false);
        break;
      default:
        throw new RebalanceUsageError(`unknown flag ${flag}\n\n${REBALANCE_USAGE}`);
    }
  }
  if (client === 'platformatic') {
    if (!assignersGiven) o.assigners = ['platformatic-eager', 'platformatic-cooperative'];
    // The coordinator and metadata causes need KafkaJS's request events and metadata refresh.
    if (!causesGiven) o.causes = ['join', 'fire'];
  }
  return o;
}

/** Every assigner kind `--assigners` accepts. */
const ASSIGNER_KINDS = ['load-aware', 'round-robin', 'platformatic-eager', 'platformatic-cooperative'] as const;

/**
 * The runs of `causes`, tuning by tuning, then repeat by repeat, so a drifting machine load hits
 * every cause and assigner alike. A fire needs load-aware: round-robin has none.
 */
export function runPlans(
  o: Pick<RebalanceOptions, 'tunings' | 'repeats' | 'assigners'>,
  causes: readonly Cause[],
): RunPlan[] {
  const list: RunPlan[] = [];
  for (const tuning of o.tunings) {
    for (let repeat = 1; repeat <= o.repeats; repeat++) {
      for (const cause of causes) {
        for (const assigner of o.assigners) {
          if (cause === 'fire' && assigner === 'round-robin') continue;
          list.push({ cause, assigner, tuning, repeat });
        }
      }
    }
  }
  return list;
}
