/**
 * `pnpm bench:leave-sweep`: stickiness on groups no test or benchmark was tuned on.
 *
 * Draws random weighted groups (12–40 instances of 1–`maxMembers` members, log-normal, Zipf or
 * bimodal weights, a new seed every run unless `--seed` is given), places each from scratch, then
 * lets every instance leave in turn and places the smaller group again from that placement. For
 * each leave it measures what moved against what the departed instance held, by weight and by
 * count, and the busiest instance against the best placement known for the smaller group. Placing
 * an orphaned load W needs about 2W of movement at most (the orphans, plus what a receiver sheds
 * to make room), so moved ÷ held weight is judged against 2 (p95) and 2.5 (worst). Also checks
 * that placing an unchanged group again moves nothing, and says how much of the weight moved
 * beyond the orphans moved between members of one instance (the member level's part).
 *
 * Informational, like `bench:quality`: it prints the seed and Markdown tables and always exits 0.
 *
 * Usage: node packages/assignor/.build/bench/quality/leave-sweep.js [--seed N] [--groups N] [--max-members N]
 */
import { balance, referenceBalance, type BalanceInput, type BalanceMember } from '@load-aware/assignor/internal';
import { markdownTable } from '@load-aware/test-support';
import { createRng, type Rng } from './rng.js';

/** The weight shapes of the sweep. */
type Shape = 'log-normal' | 'zipf' | 'bimodal';
const SHAPES: ReadonlyArray<Shape> = ['log-normal', 'zipf', 'bimodal'];

/** One drawn group: its members, partitions and weights. */
interface Group {
  readonly shape: Shape;
  readonly instances: number;
  readonly members: BalanceMember[];
  readonly weights: Map<string, number>;
}

/** One instance leaving a placed group. */
export interface Leave {
  readonly shape: Shape;
  readonly heldCount: number;
  readonly heldWeight: number;
  readonly movedCount: number;
  readonly movedWeight: number;
  /** Weight that moved between two members of one instance: the member level's share of the moves. */
  readonly withinInstanceWeight: number;
  /** Busiest instance load after the leave ÷ the best placement known for the smaller group. */
  readonly busiestToBest: number;
  /** The same, against the lower bound balance() reports. */
  readonly busiestToBound: number;
}

const TOPIC = 'sweep';
const key = (partition: number): string => `${TOPIC}:${String(partition)}`;

/** Draws one group: instance and member counts, partitions and weights of one shape. */
export function drawGroup(rng: Rng, shape: Shape, maxMembers: number): Group {
  const instances = 12 + rng.int(29);
  const members: BalanceMember[] = [];
  for (let i = 0; i < instances; i++) {
    const count = 1 + rng.int(maxMembers);
    for (let m = 0; m < count; m++)
      members.push({ memberId: `i${String(i)}-m${String(m)}`, instanceId: `i${String(i)}`, topics: [TOPIC] });
  }
  // 4 to 20 partitions an instance on average: some instances hold 10 or more.
  const partitions = instances * (4 + rng.int(17));
  const weights = new Map<string, number>();
  const zipfRank = shuffled(rng, partitions);
  for (let p = 0; p < partitions; p++) {
    const weight =
      shape === 'log-normal'
        ? rng.logNormal(1)
        : shape === 'zipf'
          ? 1000 / (zipfRank[p]! + 1)
          : rng.next() < 0.2
            ? 10 + 10 * rng.next()
            : 1 + rng.next();
    weights.set(key(p), weight);
  }
  return { shape, instances, members, weights };
}

function shuffled(rng: Rng, n: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

function inputOf(group: Group, members: ReadonlyArray<BalanceMember>): BalanceInput {
  return {
    members,
    partitions: [...group.weights].map(([k, weight]) => ({
      topic: TOPIC,
      partition: Number(k.slice(TOPIC.length + 1)),
      weight,
    })),
  };
}

type Placement = ReadonlyMap<string, ReadonlyArray<{ topic: string; partition: number }>>;

/** partition key → owning member. */
function ownersOf(placement: Placement): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [member, partitions] of placement) for (const p of partitions) owners.set(key(p.partition), member);
  return owners;
}

/** Every instance of `group` leaving its from-scratch placement in turn. */
export function sweepGroup(group: Group): { leaves: Leave[]; unchangedMoved: number } {
  const place = (input: BalanceInput) => balance(input);
  const start = place(inputOf(group, group.members));
  const before = ownersOf(start.assignments);
  // An unchanged group placed again from its own placement.
  const again = place({ ...inputOf(group, group.members), previous: start.assignments });
  const unchangedMoved = [...ownersOf(again.assignments)].filter(([p, m]) => before.get(p) !== m).length;
  const instanceOf = new Map(group.members.map((m) => [m.memberId, m.instanceId]));
  const leaves: Leave[] = [];
  for (let i = 0; i < group.instances; i++) {
    const departed = `i${String(i)}`;
    const staying = group.members.filter((m) => m.instanceId !== departed);
    const previous = new Map([...start.assignments].filter(([member]) => !member.startsWith(`${departed}-`)));
    const input = inputOf(group, staying);
    const after = place({ ...input, previous });
    let heldCount = 0;
    let heldWeight = 0;
    let movedCount = 0;
    let movedWeight = 0;
    let withinInstanceWeight = 0;
    for (const [p, member] of ownersOf(after.assignments)) {
      const weight = group.weights.get(p)!;
      const was = before.get(p)!;
      if (was.startsWith(`${departed}-`)) {
        heldCount++;
        heldWeight += weight;
      }
      if (was !== member) {
        movedCount++;
        movedWeight += weight;
        if (instanceOf.get(was) === instanceOf.get(member)) withinInstanceWeight += weight;
      }
    }
    const fresh = balance(input);
    const greedy = referenceBalance(input);
    const best = Math.min(after.maxInstanceLoad, fresh.maxInstanceLoad, greedy.maxInstanceLoad);
    leaves.push({
      shape: group.shape,
      heldCount,
      heldWeight,
      movedCount,
      movedWeight,
      withinInstanceWeight,
      busiestToBest: after.maxInstanceLoad / best,
      busiestToBound: after.maxInstanceLoad / Math.max(after.lowerBound, Number.MIN_VALUE),
    });
  }
  return { leaves, unchangedMoved };
}

/** The q-quantile (nearest rank) of `values`. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

function sum(leaves: ReadonlyArray<Leave>, of: (leave: Leave) => number): number {
  return leaves.reduce((total, leave) => total + of(leave), 0);
}

/** The figures the targets name, over `leaves`, and where the moves beyond the orphans went. */
export function summarize(leaves: ReadonlyArray<Leave>) {
  const ratios = leaves.filter((l) => l.heldWeight > 0).map((l) => l.movedWeight / l.heldWeight);
  const big = leaves.filter((l) => l.heldCount >= 10);
  return {
    leaves: leaves.length,
    medianWeightRatio: quantile(ratios, 0.5),
    p95WeightRatio: quantile(ratios, 0.95),
    worstWeightRatio: Math.max(...ratios),
    bigLeaves: big.length,
    countWithin15: big.filter((l) => l.movedCount <= 1.5 * l.heldCount).length / Math.max(1, big.length),
    worstBusiestToBest: Math.max(...leaves.map((l) => l.busiestToBest)),
    worstBusiestToBound: Math.max(...leaves.map((l) => l.busiestToBound)),
    withinInstanceShare: sum(leaves, (l) => l.withinInstanceWeight) / sum(leaves, (l) => l.movedWeight - l.heldWeight),
  };
}

function argument(name: string): number | undefined {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return undefined;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a non-negative integer`);
  return value;
}

function main(): void {
  const seed = argument('seed') ?? Math.floor(Math.random() * 2 ** 31);
  const groups = argument('groups') ?? 6;
  const maxMembers = argument('max-members') ?? 3;
  const drawn: Group[] = [];
  const rng = createRng(seed);
  for (let g = 0; g < groups; g++) drawn.push(drawGroup(rng, SHAPES[g % SHAPES.length]!, maxMembers));
  process.stdout.write(
    `leave sweep: seed ${String(seed)}, ${String(groups)} groups, 1-${String(maxMembers)} members per instance\n`,
  );
  report(drawn);
}

/** Sweeps every group and prints the table. */
function report(drawn: ReadonlyArray<Group>): void {
  const leaves: Leave[] = [];
  let unchangedMoved = 0;
  const started = Date.now();
  for (const group of drawn) {
    const result = sweepGroup(group);
    leaves.push(...result.leaves);
    unchangedMoved += result.unchangedMoved;
  }
  const f = (x: number) => x.toFixed(2);
  const rows = [
    ['all', summarize(leaves)] as const,
    ...SHAPES.map((s) => [s, summarize(leaves.filter((l) => l.shape === s))] as const),
  ];
  process.stdout.write(`\n${String(leaves.length)} leaves in ${String(Date.now() - started)} ms\n\n`);
  process.stdout.write(
    markdownTable(
      [
        'weights',
        'leaves',
        'moved ÷ held weight, median',
        'p95 (target ≤ 2)',
        'worst (target ≤ 2.5)',
        'leaves holding ≥ 10 moving ≤ 1.5× by count (target ≥ 90%)',
        'busiest ÷ best known, worst (target ≤ 1.03)',
        'busiest ÷ lower bound, worst',
        'weight moved beyond the orphans: share between members of one instance',
      ],
      rows.map(([name, s]) => [
        name,
        String(s.leaves),
        f(s.medianWeightRatio),
        f(s.p95WeightRatio),
        f(s.worstWeightRatio),
        `${(100 * s.countWithin15).toFixed(0)}% of ${String(s.bigLeaves)}`,
        s.worstBusiestToBest.toFixed(3),
        s.worstBusiestToBound.toFixed(3),
        Number.isFinite(s.withinInstanceShare) ? `${(100 * s.withinInstanceShare).toFixed(0)}%` : '–',
      ]),
      new Set([1, 2, 3, 4, 5, 6, 7, 8]),
    ),
  );
  process.stdout.write(`\nunchanged groups placed again: ${String(unchangedMoved)} partitions moved (target 0)\n`);
}

if (require.main === module) main();
