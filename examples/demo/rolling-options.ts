/**
 * The rolling-restart benchmark's settings and command line (`pnpm bench:rolling --help`). The
 * workload is fixed (the scenario is the point); only where it runs, the pod restart delay, the
 * assigners and the load-aware wiring can be changed.
 */
import { FAST_PRESET } from './options.js';
import type { AssignerKind, FastPreset } from './protocol.js';
import type { Membership } from './rolling-analysis.js';

/** KafkaJS's consumer session timeout the dynamic run has always used. */
export const DYNAMIC_SESSION_TIMEOUT_SECONDS = 10;
/**
 * Static members' session timeout: it has to outlast a pod's restart (its stop, the restart
 * delay and the new process's start), or the broker expires the absent members and rebalances.
 */
export const STATIC_SESSION_TIMEOUT_SECONDS = 45;

/** What one run is made of. */
export interface RollingOptions {
  /** Existing cluster; undefined: start a local broker, and stop it at the end. */
  brokers: string[] | undefined;
  outDir: string;
  /** Assigners to run, in order, each on a fresh topic and group with the same schedule. */
  assigners: AssignerKind[];
  /** Members of each instance process; instances are named instance-a, instance-b, ... */
  instances: number[];
  /** Pause between a process's exit and its replacement's start (a pod restart). */
  restartDelaySeconds: number;
  partitions: number;
  eventsPerSecond: number;
  zipfExponent: number;
  seed: number;
  workMs: number;
  cpuMs: number;
  preset: FastPreset;
  /** load-aware: the demo's pre-tracking of every partition (default false: the README's wiring). */
  trackAllPartitions: boolean;
  /**
   * `static`: load-aware's consumers join as static members (KIP-345), each pod with the same
   * instance id in every process, and a restart is a deploy restart (SIGTERM: no LeaveGroup).
   * Round-robin cannot (KafkaJS has no static membership of its own).
   */
  membership: Membership;
  /** Consumer session timeout (the rebalance timeout stays 10 s either way). */
  sessionTimeoutSeconds: number;
}

/**
 * Quiet time that counts as settled: a fresh trigger coordinator needs a full rate window of
 * samples, then `minViolatedChecks` checks, to fire; a group quiet for longer would not
 * rebalance by itself any more. The same for both assigners, so they run the same schedule.
 */
export function settleQuietMs(preset: FastPreset): number {
  return preset.rateIntervalMs + (preset.minViolatedChecks + 1) * preset.checkIntervalMs + 2000;
}

export const ROLLING_USAGE = `Usage: pnpm bench:rolling [flags]

Rolling restart of a consumer group (4 instance processes of 1/1/2/2 members, 24 partitions,
~1300 msg/s Zipf-skewed): each instance in turn is stopped gracefully and replaced by a new
process with the same instance id after a pod restart delay; KafkaJS round-robin, then
load-aware. Prints per-step and total tables; writes bench.md, result.json and chart.svg.

  --brokers host:port[,...]  use this cluster (default: start a local broker, stop it at the end)
  --restart-delay SECONDS    pause between a process's exit and its replacement (default 15)
  --fast                     same as --restart-delay 2
  --out DIR                  output folder (default out/bench-rolling-<timestamp>)
  --assigners a,b            round-robin and/or load-aware, in this order (default both)
  --track-all                load-aware: sample every partition from process start and wait up to
                             5 s for rates before joining (the demo's wiring; default: README's)
  --static-membership        load-aware only (the default assigners become load-aware): static
                             members (KIP-345), a stable instance id per pod, restarts by SIGTERM
                             without LeaveGroup, session timeout 45 s
  --session-timeout SECONDS  consumer session timeout (default 10, 45 with --static-membership)
  --help                     this text
`;

/** A flag the benchmark does not understand, or a bad value; the message says which. */
export class RollingUsageError extends Error {
  override readonly name: string = 'RollingUsageError';
}

/** `--help`: not an error, the usage text is the message. */
export class RollingHelpRequested extends RollingUsageError {
  override readonly name: string = 'RollingHelpRequested';
}

function stamp(now = new Date()): string {
  return now.toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19);
}

/** Parses the command line; throws {@link RollingHelpRequested} on --help, {@link RollingUsageError} on a bad flag. */
export function parseRollingArgs(argv: readonly string[], now = new Date()): RollingOptions {
  const o: RollingOptions = {
    brokers: undefined,
    outDir: `out/bench-rolling-${stamp(now)}`,
    assigners: ['round-robin', 'load-aware'],
    instances: [1, 1, 2, 2],
    restartDelaySeconds: 15,
    partitions: 24,
    eventsPerSecond: 1300,
    zipfExponent: 0.8,
    seed: 42,
    workMs: 2,
    cpuMs: 0.05,
    preset: { ...FAST_PRESET },
    trackAllPartitions: false,
    membership: 'dynamic',
    sessionTimeoutSeconds: DYNAMIC_SESSION_TIMEOUT_SECONDS,
  };
  let assignersGiven = false;
  let sessionTimeoutGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string => {
      const raw = argv[++i];
      if (raw === undefined) throw new RollingUsageError(`${flag}: expected a value`);
      return raw;
    };
    switch (flag) {
      case '--help':
      case '-h':
        throw new RollingHelpRequested(ROLLING_USAGE);
      case '--brokers': {
        const raw = value();
        o.brokers = raw.split(',').map((b) => b.trim());
        if (o.brokers.some((b) => !/^[^:\s]+:\d+$/.test(b))) {
          throw new RollingUsageError(`--brokers ${raw}: expected host:port[,host:port...]`);
        }
        break;
      }
      case '--restart-delay': {
        const raw = value();
        const seconds = Number(raw);
        if (!Number.isFinite(seconds) || seconds < 0 || seconds > 300) {
          throw new RollingUsageError(`--restart-delay ${raw}: expected seconds in 0..300`);
        }
        o.restartDelaySeconds = seconds;
        break;
      }
      case '--fast':
        o.restartDelaySeconds = 2;
        break;
      case '--out':
        o.outDir = value();
        break;
      case '--assigners': {
        const raw = value();
        const names = raw.split(',');
        if (names.some((n) => n !== 'round-robin' && n !== 'load-aware')) {
          throw new RollingUsageError(`--assigners ${raw}: expected round-robin and/or load-aware`);
        }
        o.assigners = names as AssignerKind[];
        assignersGiven = true;
        break;
      }
      case '--track-all':
        o.trackAllPartitions = true;
        break;
      case '--static-membership':
        o.membership = 'static';
        break;
      case '--session-timeout': {
        const raw = value();
        const seconds = Number(raw);
        // The broker's default group.min/max.session.timeout.ms: 6 s .. 30 min.
        if (!Number.isFinite(seconds) || seconds < 6 || seconds > 1800) {
          throw new RollingUsageError(`--session-timeout ${raw}: expected seconds in 6..1800`);
        }
        o.sessionTimeoutSeconds = seconds;
        sessionTimeoutGiven = true;
        break;
      }
      default:
        throw new RollingUsageError(`unknown flag ${flag}\n\n${ROLLING_USAGE}`);
    }
  }
  if (o.membership === 'static') {
    if (!assignersGiven) o.assigners = ['load-aware'];
    if (o.assigners.includes('round-robin')) {
      throw new RollingUsageError(
        '--static-membership: round-robin has no static membership; use --assigners load-aware',
      );
    }
    if (!sessionTimeoutGiven) o.sessionTimeoutSeconds = STATIC_SESSION_TIMEOUT_SECONDS;
  }
  return o;
}
