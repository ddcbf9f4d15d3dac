import { balance, type BalanceMember, type WeightedPartition } from '@load-aware/assignor';
import { markdownTable as markdown } from '@load-aware/test-support';
import { createRng } from './rng.js';
import { judge } from './racks.js';

/**
 * Weighted racks beyond the six fixed cases: every combination of three rack sizes (even, 14/10/6
 * uneven, and 3/3/3 small), 300 or 3,000 log-normal partitions (σ 1) and replication factor 1 or
 * 2, over twelve seeds each. Each group is placed with racks and without; a case meets the target
 * when the busiest instance is within `moveTolerance` of the rack-blind placement's and the
 * cross-rack weight is at most 1.1× the lower bound `balance()` reports at its own balance, or at
 * most 1% of the total (the bound lets partitions split; 1% is what lumpy weights may add).
 */

const RACKS = ['a', 'b', 'c'];
const SPLITS: ReadonlyArray<ReadonlyArray<number>> = [
  [10, 10, 10],
  [14, 10, 6],
  [3, 3, 3],
];
const PARTITION_COUNTS = [300, 3000];
const SEEDS = 12;

/** One row of the sweep: a rack split, a partition count and a replication factor, over the seeds. */
export interface RackSweepRow {
  readonly split: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly cases: number;
  readonly balanced: number;
  readonly local: number;
  readonly meanCross: number;
  readonly meanBound: number;
  readonly worstOverBound: number;
}

function group(split: ReadonlyArray<number>, count: number, rf: number, seed: number) {
  const rng = createRng(seed * 7919 + count + rf);
  const members: BalanceMember[] = [];
  split.forEach((n, r) => {
    for (let k = 0; k < n; k++) {
      const id = String(members.length).padStart(3, '0');
      members.push({ memberId: `m${id}`, instanceId: `i${id}`, topics: ['t0', 't1', 't2'], rack: RACKS[r]! });
    }
  });
  const partitions: WeightedPartition[] = Array.from({ length: count }, (_, k) => {
    const first = rng.int(RACKS.length);
    const racks = [RACKS[first]!];
    if (rf === 2) racks.push(RACKS[(first + 1 + rng.int(RACKS.length - 1)) % RACKS.length]!);
    return { topic: `t${String(k % 3)}`, partition: Math.floor(k / 3), weight: rng.logNormal(1), racks: racks.sort() };
  });
  return { members, partitions };
}

/** Runs the sweep at `moveTolerance` (the default, 0.05, unless given). */
export function runRackSweep(moveTolerance = 0.05): RackSweepRow[] {
  const rows: RackSweepRow[] = [];
  for (const split of SPLITS) {
    for (const count of PARTITION_COUNTS) {
      for (const rf of [1, 2]) {
        let balanced = 0;
        let local = 0;
        let cross = 0;
        let bound = 0;
        let worst = 0;
        for (let seed = 1; seed <= SEEDS; seed++) {
          const { members, partitions } = group(split, count, rf, seed);
          const racked = balance({ members, partitions });
          const blind = balance({
            members: members.map(({ rack: _r, ...m }) => m),
            partitions: partitions.map(({ racks: _r, ...p }) => p),
          });
          // One member per instance, so busiest ÷ ideal is the busiest instance ÷ the mean.
          const level = judge({ members, partitions }, racked.assignments).busiest;
          if (level <= judge({ members, partitions }, blind.assignments).busiest * (1 + moveTolerance) + 1e-9)
            balanced++;
          const share = racked.crossRackWeight / racked.totalWeight;
          const boundShare = racked.crossRackLowerBound / racked.totalWeight;
          if (share <= 1.1 * boundShare + 1e-9 || share <= 0.01) local++;
          if (share > 0.01) worst = Math.max(worst, boundShare > 0 ? share / boundShare : Infinity);
          cross += share;
          bound += boundShare;
        }
        rows.push({
          split: split.join('/'),
          partitions: count,
          replicationFactor: rf,
          cases: SEEDS,
          balanced,
          local,
          meanCross: cross / SEEDS,
          meanBound: bound / SEEDS,
          worstOverBound: worst,
        });
      }
    }
  }
  return rows;
}

const pct = (x: number): string => `${(100 * x).toFixed(2)}%`;

/** The Markdown table of the sweep and its totals. */
export function rackSweepTable(rows: ReadonlyArray<RackSweepRow>): string {
  const table = markdown(
    [
      'instances',
      'partitions',
      'RF',
      'balance met',
      'cross-rack met',
      'cross-rack, mean',
      'bound, mean',
      'worst ÷ bound (> 1%)',
    ],
    rows.map((r) => [
      r.split,
      String(r.partitions),
      String(r.replicationFactor),
      `${String(r.balanced)}/${String(r.cases)}`,
      `${String(r.local)}/${String(r.cases)}`,
      pct(r.meanCross),
      pct(r.meanBound),
      r.worstOverBound === 0 ? '-' : r.worstOverBound > 1000 ? '∞ (bound ≈ 0)' : r.worstOverBound.toFixed(2),
    ]),
    new Set([1, 2, 3, 4, 5, 6, 7]),
  );
  const sum = (f: (r: RackSweepRow) => number): number => rows.reduce((a, r) => a + f(r), 0);
  return `${table}\n\n- ${String(sum((r) => r.balanced))} of ${String(sum((r) => r.cases))} within moveTolerance of the rack-blind busiest; ${String(sum((r) => r.local))} with cross-rack weight ≤ 1.1 × the bound or ≤ 1%`;
}
