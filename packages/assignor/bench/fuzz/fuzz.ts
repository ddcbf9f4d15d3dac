/**
 * `pnpm fuzz [--runs N] [--seed S] [--concurrency C] [--slack-ms M]`: the leader's `assign()` on
 * N seeded hostile scenarios (bench/fuzz/assign-scenarios.ts, the same generators as the jest
 * slice), each checked against everything it promises (assign-check.ts), twice for determinism.
 * Prints throughput and every violation with the seed that reproduces it alone
 * (`--runs 1 --seed <that seed>`); exits 1 on any violation.
 *
 * Run i uses seed S + i, so any failing input can be replayed on its own. Hanging sources and
 * metadata cost a whole budget each, so the budgets are small (5–20 ms) and C runs are in flight
 * at once; the budget check then allows for the others' CPU time and a loaded machine
 * (`--slack-ms`, 10 s by default: a "did it hang" bound, as in the jest slice, not a benchmark).
 */
import fc from 'fast-check';
import { checkScenario } from './assign-check.js';
import { scenarioArbitrary, type Scenario } from './assign-scenarios.js';

interface Args {
  readonly runs: number;
  readonly seed: number;
  readonly concurrency: number;
  readonly slackMs: number;
}

/** Most violations printed in full; the rest are only counted. */
const MAX_PRINTED = 20;

function parseArgs(argv: ReadonlyArray<string>): Args {
  const values = new Map<string, number>();
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i]!;
    if (key === '--') continue;
    const value = Number(argv[i + 1]);
    if (!key.startsWith('--') || !Number.isSafeInteger(value)) {
      throw new Error(`usage: fuzz [--runs N] [--seed S] [--concurrency C] [--slack-ms M]; bad ${key}`);
    }
    values.set(key.slice(2), value);
    i++;
  }
  return {
    runs: values.get('runs') ?? 100_000,
    seed: values.get('seed') ?? 1,
    concurrency: values.get('concurrency') ?? 16,
    slackMs: values.get('slack-ms') ?? 10_000,
  };
}

/** The scenario of run `i`: one sample of its own seed, so it can be replayed alone. */
function scenarioOf(arbitrary: fc.Arbitrary<Scenario>, seed: number): Scenario {
  return fc.sample(arbitrary, { seed, numRuns: 1 })[0]!;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const arbitrary = scenarioArbitrary({ min: 5, max: 20 });
  const stats = { done: 0, fallback: 0, violating: 0, maxOverBudgetMs: 0, errorLogs: 0 };
  let printed = 0;
  let next = 0;
  const started = performance.now();
  let lastReport = started;

  const worker = async (): Promise<void> => {
    while (next < args.runs) {
      const seed = args.seed + next++;
      const s = scenarioOf(arbitrary, seed);
      const run = await checkScenario(s, { slackMs: args.slackMs, determinism: true });
      stats.done++;
      if (run.fallback) stats.fallback++;
      stats.errorLogs += run.errorLogs;
      stats.maxOverBudgetMs = Math.max(stats.maxOverBudgetMs, run.elapsedMs - run.budgetMs);
      if (run.violations.length > 0) {
        stats.violating++;
        if (printed++ < MAX_PRINTED) {
          process.stdout.write(`VIOLATION seed ${String(seed)}: ${run.violations.join('; ')}\n`);
        }
      }
      const now = performance.now();
      if (now - lastReport > 10_000) {
        lastReport = now;
        process.stdout.write(`  ${String(stats.done)} runs, ${rate(stats.done, now - started)}/s\n`);
      }
    }
  };
  // The assigner's timers are unref'd (they must never hold a consumer's process open), so while
  // every run in flight waits on one, nothing else would keep this process alive.
  const keepAlive = setInterval(() => undefined, 1000);
  await Promise.all(Array.from({ length: Math.max(1, args.concurrency) }, worker));
  clearInterval(keepAlive);

  const elapsedMs = performance.now() - started;
  process.stdout.write(
    `fuzz assign(): ${String(stats.done)} runs (each twice, for determinism), seeds ${String(args.seed)}..` +
      `${String(args.seed + args.runs - 1)}, concurrency ${String(args.concurrency)}, ` +
      `${(elapsedMs / 1000).toFixed(1)} s, ${rate(stats.done, elapsedMs)} runs/s; ` +
      `${String(stats.done - stats.fallback)} load-aware, ${String(stats.fallback)} round-robin fallbacks, ` +
      `${String(stats.errorLogs)} ERROR logs; slowest ${stats.maxOverBudgetMs.toFixed(0)} ms past its budget ` +
      `(slack ${String(args.slackMs)} ms); violations: ${String(stats.violating)}\n`,
  );
  return stats.violating === 0 ? 0 : 1;
}

function rate(count: number, ms: number): string {
  return (count / (ms / 1000)).toFixed(0);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 2;
  },
);
