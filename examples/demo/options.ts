import { FAST_PRESET } from '@load-aware/integration-tests/fast-preset';
import type { AssignerKind, ClientKind, FastPreset } from './protocol.js';

/** Everything a demo or benchmark run is made of; every field has a command-line flag. */
export interface DemoOptions {
  /** Existing cluster to use; undefined: fetch and start a local broker, and stop it at the end. */
  brokers: string[] | undefined;
  /** Where result.json, chart.svg and summary.txt go. */
  outDir: string;
  /** Phases to run, in order. */
  assigners: AssignerKind[];
  /**
   * The consumers' client: KafkaJS (round-robin = KafkaJS's) or @platformatic/kafka (round-robin =
   * platformatic's, load-aware = `@load-aware/platformatic`; Node >= 22.22 or >= 24.6).
   */
  client: ClientKind;
  /** Length of each phase; the hotspot moves at its middle. */
  phaseSeconds: number;
  /** Traffic written before the consumers start, in seconds of the steady rate. */
  backlogSeconds: number;
  /** Members (KafkaJS consumers) of each instance process. */
  instances: number[];
  partitions: number;
  eventsPerSecond: number;
  zipfExponent: number;
  seed: number;
  hotspotShift: number;
  workMs: number;
  cpuMs: number;
  /** Redraw a live table (TTY) or print progress lines; off: only the summary. */
  live: boolean;
  preset: FastPreset;
}

/** The load-aware settings of the demo (in the tests' support, for the scenarios the demo shares with them). */
export { FAST_PRESET };

/** Defaults of the demo; the benchmark uses them too, with longer phases. */
export function defaultOptions(now = new Date()): DemoOptions {
  return {
    brokers: undefined,
    outDir: `out/demo-${outputStamp(now)}`,
    assigners: ['round-robin', 'load-aware'],
    client: 'kafkajs',
    phaseSeconds: 75,
    backlogSeconds: 10,
    instances: [1, 2, 3],
    partitions: 24,
    eventsPerSecond: 1300,
    zipfExponent: 0.8,
    seed: 42,
    hotspotShift: 7,
    workMs: 2,
    cpuMs: 0.05,
    live: true,
    preset: FAST_PRESET,
  };
}

export const USAGE = `Usage: npm run demo -- [flags]

  --brokers host:port[,...]  use this cluster instead of starting a local broker
  --out DIR                  output folder (default out/demo-<timestamp>)
  --phase-seconds N          length of each phase, hotspot moves midway (default 75)
  --backlog-seconds N        backlog written before consumers start, in seconds of traffic (default 10)
  --rate N                   total produce rate, events/s (default 1300)
  --partitions N             partitions of the topic (default 24)
  --instances 1,2,3          members of each instance process (default 1,2,3)
  --zipf S                   Zipf exponent of the traffic mix (default 0.8)
  --seed N                   seed of the partition ranking (default 42)
  --hotspot-shift N          ranks the hotspot moves by (default 7)
  --work-ms N                per-message latency, ms (default 2)
  --cpu-ms N                 per-message CPU, ms (default 0.05)
  --assigners a,b            phases to run: round-robin, load-aware (default both)
  --client kafkajs|platformatic
                             the consumers' client (default kafkajs); platformatic runs
                             @platformatic/kafka consumers, its own round-robin beside
                             @load-aware/platformatic, and needs Node >= 22.22 or >= 24.6
  --no-live                  no live table, only the summary
  --busy-time                instead: busy-time vs offset-rate weights vs round-robin (--busy-time --help)
  --cross-group              instead: two groups balanced together vs alone vs round-robin (--cross-group --help)
  --help                     this text
`;

const VALUE_FLAGS = new Set([
  '--brokers',
  '--out',
  '--phase-seconds',
  '--backlog-seconds',
  '--rate',
  '--partitions',
  '--instances',
  '--zipf',
  '--seed',
  '--hotspot-shift',
  '--work-ms',
  '--cpu-ms',
  '--assigners',
  '--client',
]);

/** A flag the demo does not understand, or a bad value; the message names both. */
export class DemoUsageError extends Error {
  override readonly name: string = 'DemoUsageError';
}

/** `--help`: not an error, the usage text is the message. */
export class DemoHelpRequested extends DemoUsageError {
  override readonly name: string = 'DemoHelpRequested';
}

/**
 * The number `raw` given to `flag`, checked to lie in min..max (and to be an integer when
 * `integer`); throws {@link DemoUsageError} naming both otherwise. Shared by every demo mode's parser.
 */
export function parseNumberFlag(flag: string, raw: string, min: number, max: number, integer: boolean): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'an integer' : 'a number';
    throw new DemoUsageError(`${flag} ${raw}: expected ${kind} in ${String(min)}..${String(max)}`);
  }
  return value;
}

/** `now` as the demo's output folders name it: 2025-03-04_05-06-07. */
export function outputStamp(now: Date): string {
  return now.toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19);
}

/**
 * Reads the `--flag value` pairs of a comparison mode (`--busy-time`, `--cross-group`), skipping
 * `modeFlag` itself: returns 'help' at `--help`, throws {@link DemoUsageError} for a flag without
 * a value, and hands every other flag with its value to `apply`, which throws for one it does
 * not know.
 */
export function readModeFlags(
  args: ReadonlyArray<string>,
  modeFlag: string,
  apply: (flag: string, raw: string) => void,
): 'help' | undefined {
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    if (flag === modeFlag) continue;
    if (flag === '--help') return 'help';
    const raw = args[++i];
    if (raw === undefined) throw new DemoUsageError(`${flag}: expected a value`);
    apply(flag, raw);
  }
  return undefined;
}

/** Parses the command line over `base`; throws {@link DemoUsageError} naming a bad flag or value. */
export function parseArgs(argv: readonly string[], base: DemoOptions = defaultOptions()): DemoOptions {
  const o: DemoOptions = { ...base, preset: { ...base.preset } };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--no-live') {
      o.live = false;
      continue;
    }
    if (flag === '--help' || flag === '-h') throw new DemoHelpRequested(USAGE);
    if (!VALUE_FLAGS.has(flag)) throw new DemoUsageError(`unknown flag ${flag}\n\n${USAGE}`);
    const raw = argv[++i];
    if (raw === undefined) throw new DemoUsageError(`${flag}: expected a value`);
    switch (flag) {
      case '--brokers':
        o.brokers = raw.split(',').map((b) => b.trim());
        if (o.brokers.some((b) => !/^[^:\s]+:\d+$/.test(b))) {
          throw new DemoUsageError(`--brokers ${raw}: expected host:port[,host:port...]`);
        }
        break;
      case '--out':
        o.outDir = raw;
        break;
      case '--phase-seconds':
        o.phaseSeconds = parseNumberFlag(flag, raw, 10, 3600, true);
        break;
      case '--backlog-seconds':
        o.backlogSeconds = parseNumberFlag(flag, raw, 0, 600, false);
        break;
      case '--rate':
        o.eventsPerSecond = parseNumberFlag(flag, raw, 1, 100_000, false);
        break;
      case '--partitions':
        o.partitions = parseNumberFlag(flag, raw, 1, 1000, true);
        break;
      case '--instances':
        o.instances = raw.split(',').map((m) => parseNumberFlag(flag, m, 1, 16, true));
        break;
      case '--zipf':
        o.zipfExponent = parseNumberFlag(flag, raw, 0, 5, false);
        break;
      case '--seed':
        o.seed = parseNumberFlag(flag, raw, 0, 2 ** 31, true);
        break;
      case '--hotspot-shift':
        o.hotspotShift = parseNumberFlag(flag, raw, 0, 1000, true);
        break;
      case '--work-ms':
        o.workMs = parseNumberFlag(flag, raw, 0, 1000, false);
        break;
      case '--cpu-ms':
        o.cpuMs = parseNumberFlag(flag, raw, 0, 100, false);
        break;
      case '--assigners': {
        const names = raw.split(',');
        if (names.length === 0 || names.some((n) => n !== 'round-robin' && n !== 'load-aware')) {
          throw new DemoUsageError(`--assigners ${raw}: expected round-robin and/or load-aware`);
        }
        o.assigners = names as AssignerKind[];
        break;
      }
      case '--client':
        if (raw !== 'kafkajs' && raw !== 'platformatic') {
          throw new DemoUsageError(`--client ${raw}: expected kafkajs or platformatic`);
        }
        o.client = raw;
        break;
      default:
        throw new DemoUsageError(`unknown flag ${flag}\n\n${USAGE}`);
    }
  }
  return o;
}
