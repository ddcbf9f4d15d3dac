import { balance, type BalanceMember, type WeightedPartition } from '@load-aware/assignor';
import { markdownTable as markdown } from '@load-aware/test-support';
import { createKafkaJsRoundRobin } from './kafkajs-round-robin.js';
import type { Assignment } from './judge.js';
import { createRng } from './rng.js';
import type { QualityCase } from './suite.js';
import { runTimedPair } from './timing.js';

/**
 * Rack-aware placement on weighted groups (docs/racks.md): log-normal weights (σ 1), three racks
 * with the instances spread evenly over them, each partition's replicas in one rack (replication
 * factor 1) or two distinct ones (2), seeded. Three contenders on the same input: balance() with
 * racks, today's placement (balance() given no racks) and KafkaJS's round-robin. Scored here,
 * from the assignments: busiest instance ÷ ideal, the share of load fetched across racks, and
 * that share against the lower bound balance() reports at its balance.
 */

const RACKS = ['a', 'b', 'c'];

interface RackShape {
  readonly id: string;
  readonly partitions: number;
  readonly instances: number;
  readonly replicationFactor: 1 | 2;
  readonly seed: number;
}

const SHAPES: ReadonlyArray<RackShape> = [
  { id: 'racks-300-rf1', partitions: 300, instances: 9, replicationFactor: 1, seed: 71 },
  { id: 'racks-300-rf2', partitions: 300, instances: 9, replicationFactor: 2, seed: 72 },
  { id: 'racks-3k-rf1', partitions: 3000, instances: 30, replicationFactor: 1, seed: 73 },
  { id: 'racks-3k-rf2', partitions: 3000, instances: 30, replicationFactor: 2, seed: 74 },
  { id: 'racks-100k-rf1', partitions: 100_000, instances: 60, replicationFactor: 1, seed: 75 },
  { id: 'racks-100k-rf2', partitions: 100_000, instances: 60, replicationFactor: 2, seed: 76 },
];

/** One rack case: the group, its racks, and the same group without racks. */
interface RackCase {
  readonly shape: RackShape;
  readonly members: BalanceMember[];
  readonly partitions: WeightedPartition[];
}

function buildRackCase(shape: RackShape): RackCase {
  const rng = createRng(shape.seed);
  const members = Array.from({ length: shape.instances }, (_, i) => ({
    memberId: `m${String(i).padStart(3, '0')}`,
    instanceId: `i${String(i).padStart(3, '0')}`,
    topics: ['t0', 't1', 't2'],
    rack: RACKS[i % RACKS.length]!,
  }));
  const partitions = Array.from({ length: shape.partitions }, (_, k) => {
    const first = rng.int(RACKS.length);
    const racks = [RACKS[first]!];
    if (shape.replicationFactor === 2) racks.push(RACKS[(first + 1 + rng.int(RACKS.length - 1)) % RACKS.length]!);
    return { topic: `t${String(k % 3)}`, partition: Math.floor(k / 3), weight: rng.logNormal(1), racks: racks.sort() };
  });
  return { shape, members, partitions };
}

/** Busiest ÷ ideal and cross-rack share of one assignment, judged from the assignment alone. */
export function judge(
  c: Pick<RackCase, 'members' | 'partitions'>,
  assignment: Assignment,
): { busiest: number; crossShare: number } {
  const rackOf = new Map(c.members.map((m) => [m.memberId, m.rack!]));
  const instanceOf = new Map(c.members.map((m) => [m.memberId, m.instanceId]));
  const byKey = new Map(c.partitions.map((p) => [`${p.topic}\u0000${String(p.partition)}`, p]));
  const load = new Map<string, number>();
  let total = 0;
  let cross = 0;
  for (const [memberId, list] of assignment) {
    for (const tp of list) {
      const p = byKey.get(`${tp.topic}\u0000${String(tp.partition)}`)!;
      const w = p.weight as number;
      total += w;
      const instance = instanceOf.get(memberId)!;
      load.set(instance, (load.get(instance) ?? 0) + w);
      if (!(p.racks ?? []).includes(rackOf.get(memberId)!)) cross += w;
    }
  }
  const ideal = total / c.members.length;
  return { busiest: Math.max(...load.values()) / ideal, crossShare: total > 0 ? cross / total : 0 };
}

/** One row of the racks table. */
export interface RackReport {
  readonly id: string;
  readonly ours: { busiest: number; crossShare: number; ms: number };
  readonly boundShare: number;
  readonly today: { busiest: number; crossShare: number; ms: number };
  readonly roundRobin: { busiest: number; crossShare: number };
}

/** Runs every rack case (or those named in `ids`). */
export async function runRackCases(ids?: ReadonlyArray<string>): Promise<RackReport[]> {
  const out: RackReport[] = [];
  for (const shape of SHAPES) {
    if (ids !== undefined && ids.length > 0 && !ids.includes(shape.id)) continue;
    process.stderr.write(`${shape.id}…\n`);
    const c = buildRackCase(shape);
    const plain = {
      members: c.members.map(({ rack: _r, ...m }) => m),
      partitions: c.partitions.map(({ racks: _r, ...p }) => p),
    };
    const { first: ours, second: today } = runTimedPair(
      () => balance({ members: c.members, partitions: c.partitions }),
      () => balance(plain),
    );
    const qualityCase: QualityCase = {
      id: shape.id,
      label: '',
      topics: ['t0', 't1', 't2'],
      members: plain.members,
      partitions: plain.partitions as QualityCase['partitions'],
    };
    const rr = await createKafkaJsRoundRobin(qualityCase)();
    out.push({
      id: shape.id,
      ours: { ...judge(c, ours.value.assignments), ms: ours.ms },
      boundShare: ours.value.crossRackLowerBound / ours.value.totalWeight,
      today: { ...judge(c, today.value.assignments), ms: today.ms },
      roundRobin: judge(c, rr),
    });
  }
  return out;
}

const ratio = (x: number): string => x.toFixed(3);
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** The Markdown table of the rack cases, and the targets checked on them. */
export function racksTable(rows: ReadonlyArray<RackReport>, moveTolerance = 0.05): string {
  const table = markdown(
    [
      'case',
      'busiest ÷ ideal: ours',
      'today',
      'round-robin',
      'cross-rack load: ours',
      'lower bound',
      'ours ÷ bound',
      'today',
      'round-robin',
      'ms: ours',
      'today',
    ],
    rows.map((r) => [
      r.id,
      ratio(r.ours.busiest),
      ratio(r.today.busiest),
      ratio(r.roundRobin.busiest),
      pct(r.ours.crossShare),
      pct(r.boundShare),
      r.boundShare > 0 ? ratio(r.ours.crossShare / r.boundShare) : r.ours.crossShare === 0 ? '1 (both 0)' : '∞',
      pct(r.today.crossShare),
      pct(r.roundRobin.crossShare),
      r.ours.ms.toFixed(1),
      r.today.ms.toFixed(1),
    ]),
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
  );
  const check = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  const worstBalance = Math.max(...rows.map((r) => r.ours.busiest / r.today.busiest));
  const worstBound = Math.max(
    ...rows.map((r) => (r.boundShare > 0 ? r.ours.crossShare / r.boundShare : r.ours.crossShare === 0 ? 1 : Infinity)),
  );
  return [
    table,
    '',
    `- busiest ÷ ideal within moveTolerance of today's: worst ours ÷ today ${ratio(worstBalance)} (≤ ${ratio(1 + moveTolerance)}) → ${check(worstBalance <= 1 + moveTolerance + 1e-9)}`,
    `- cross-rack load ≤ 1.1 × the lower bound at that balance: worst ${ratio(worstBound)} → ${check(worstBound <= 1.1)}`,
  ].join('\n');
}
