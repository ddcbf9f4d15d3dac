/**
 * One run of the CLI: parse, read the cluster, compute, print, and pick the exit code. Streams and
 * the environment are passed in, so tests can run it without a process of its own.
 */
import { errorMessageOf } from '@load-aware/assignor/internal';
import { parseCliArgs, UsageError, USAGE, type CliOptions } from './args.js';
import { readCluster, type ClusterRead } from './cluster.js';
import { renderJson, renderText } from './render.js';
import { buildReport } from './report.js';
import type { Progress, ReadHooks } from './weights.js';

/** Exit codes of the `load-aware` command. */
export const EXIT = { ok: 0, error: 1, aboveThreshold: 2 } as const;

/** Where a run writes, and what it knows about its terminal. */
export interface CliIo {
  /** Where reports go; `isTTY` turns on colour. */
  readonly stdout: {
    /** Writes one chunk of output. */
    write(text: string): unknown;
    /** True when the stream is a terminal. */
    readonly isTTY?: boolean | undefined;
  };
  /** Where errors and progress go; progress only when `isTTY`. */
  readonly stderr: {
    /** Writes one chunk of output. */
    write(text: string): unknown;
    /** True when the stream is a terminal. */
    readonly isTTY?: boolean | undefined;
  };
  /** The environment, read for the SASL password (`LOAD_AWARE_SASL_PASSWORD`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Reads the cluster for the options; replaceable in tests. */
export type ClusterReader = (options: CliOptions, hooks: ReadHooks) => Promise<ClusterRead>;

/**
 * Runs `load-aware` with `argv` (without `node` and the script) and resolves to its exit code
 * ({@link EXIT}). Never rejects: errors become one line on stderr (with the stack under
 * `--verbose`) and exit 1.
 */
export function runCli(argv: ReadonlyArray<string>, io: CliIo): Promise<number> {
  return runCliWith(readCluster, argv, io);
}

/** {@link runCli} reading the cluster through `read`: the seam the tests use. */
export async function runCliWith(read: ClusterReader, argv: ReadonlyArray<string>, io: CliIo): Promise<number> {
  let verbose = argv.includes('--verbose');
  try {
    const parsed = parseCliArgs(argv, io.env);
    if (parsed.help) {
      io.stdout.write(`${USAGE}\n`);
      return EXIT.ok;
    }
    const { options } = parsed;
    verbose = options.verbose;
    const step = (name: string, ms: number) => {
      if (options.verbose) io.stderr.write(`${name}: ${ms.toFixed(0)} ms\n`);
    };
    const { snapshot, weightsLabel } = await read(options, { progress: progressOn(io.stderr), step });
    const report = buildReport(snapshot, {
      moveTolerance: options.moveTolerance,
      maxMovesPerRebalance: options.maxMoves,
      instanceFrom: options.instanceFrom,
      foreignCapacity: options.foreignCapacity,
      memberCapacity: options.memberCapacity,
      targetUtilization: options.targetUtilization,
      whatIfMembers: options.whatIfMembers,
      sizingBasis: options.sizingBasis,
    });
    io.stdout.write(
      options.json
        ? renderJson(options.command, report, weightsLabel)
        : renderText(options.command, report, { color: io.stdout.isTTY === true, weightsLabel }),
    );
    return options.failAbove !== undefined && report.ratio > options.failAbove ? EXIT.aboveThreshold : EXIT.ok;
  } catch (err) {
    io.stderr.write(`load-aware: ${errorMessageOf(err)}\n`);
    if (err instanceof UsageError) io.stderr.write("run 'load-aware --help' for usage\n");
    else if (verbose && err instanceof Error && err.stack !== undefined) io.stderr.write(`${err.stack}\n`);
    return EXIT.error;
  }
}

/** A one-line counter on stderr while sampling, only when stderr is a terminal. */
function progressOn(stderr: CliIo['stderr']): Progress {
  if (stderr.isTTY !== true) return () => undefined;
  return (done, total) => {
    stderr.write(`\rsampling end offsets: ${String(done)}/${String(total)} s`);
    if (done >= total) stderr.write('\r\u001b[K');
  };
}
