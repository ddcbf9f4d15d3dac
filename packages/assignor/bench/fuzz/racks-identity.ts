/**
 * `pnpm fuzz:racks [--runs N] [--seed S]`: rack matching must change nothing where it cannot help.
 * For every seeded scenario of the fuzz corpus (assign-scenarios.ts, the inputs `pnpm fuzz`
 * feeds the leader), the group as the leader would balance it (members decoded from their
 * JoinGroup metadata, the partitions of their topics, the source's weights where it gives
 * numbers) is placed by balance() five ways: without racks, with member racks only, with
 * partition racks only, with every partition on every member rack, and with partition racks no
 * member is in; then again with the first placement as the previous owners. Every placement must
 * be byte-identical to the one without racks (the rack tallies aside). Prints the first
 * differences with the seed that reproduces them; exits 1 on any.
 */
import fc from 'fast-check';
import {
  balance,
  decodeMember,
  type BalanceMember,
  type BalanceResult,
  type TopicPartition,
  type WeightedPartition,
} from '@load-aware/assignor/internal';
import { buildMembers, fuzzCluster, leaderTopicsOf, scenarioArbitrary, type Scenario } from './assign-scenarios.js';

const RACKS = ['a', 'b', 'c'];

function argsOf(argv: ReadonlyArray<string>): { runs: number; seed: number } {
  const value = (key: string, fallback: number): number => {
    const at = argv.indexOf(key);
    const n = at < 0 ? fallback : Number(argv[at + 1]);
    if (!Number.isSafeInteger(n)) throw new Error(`usage: fuzz:racks [--runs N] [--seed S]; bad ${key}`);
    return n;
  };
  return { runs: value('--runs', 20_000), seed: value('--seed', 1) };
}

/** The members and partitions the leader would hand balance() for scenario `s`. */
function groupOf(s: Scenario): { members: BalanceMember[]; partitions: WeightedPartition[] } {
  const leader = leaderTopicsOf(s);
  const members = buildMembers(s).map((m) => {
    const d = decodeMember(m);
    return { memberId: d.memberId, instanceId: d.instanceId, topics: d.topics ?? leader, capacity: d.capacity };
  });
  const counts = fuzzCluster(s).visible();
  const subscribed = [...new Set(members.flatMap((m) => m.topics))].sort();
  const listed: TopicPartition[] = subscribed.flatMap((topic) =>
    Array.from({ length: counts.get(topic) ?? 0 }, (_, partition) => ({ topic, partition })),
  );
  const weightAt = (i: number): number | undefined => {
    const spec = s.source;
    const raw =
      spec.kind === 'entries'
        ? spec.entries.find((e) => e.index === i)?.weight
        : spec.kind === 'uniform'
          ? spec.weight
          : undefined;
    return typeof raw === 'number' ? raw : undefined;
  };
  const partitions = listed.map((p, i) => {
    const weight = weightAt(i);
    return weight === undefined ? p : { ...p, weight };
  });
  return { members, partitions };
}

/** A placement as bytes, the rack tallies and instance racks aside. */
function bytesOf(r: BalanceResult): string {
  const {
    crossRackWeight: _w,
    crossRackPartitions: _p,
    crossRackLowerBound: _b,
    crossRackForcedWeight: _f,
    ...rest
  } = r;
  const instances = rest.instances.map(({ rack: _r, ...i }) => i);
  return JSON.stringify({ ...rest, instances, assignments: [...rest.assignments] });
}

/**
 * Differences from the placement without racks, by variant name; empty when all are identical.
 * `matched` says whether rack matching, switched on (each partition in one rack), moved anything:
 * the control that shows the comparison can see a difference.
 */
function check(s: Scenario): { problems: string[]; placed: boolean; matched: boolean } {
  const { members, partitions } = groupOf(s);
  const racked = members.map((m, i) => ({ ...m, rack: RACKS[hash(m.instanceId, i) % RACKS.length]! }));
  const variants: Record<string, { members: BalanceMember[]; partitions: WeightedPartition[] }> = {
    'member racks only': { members: racked, partitions },
    'partition racks only': {
      members,
      partitions: partitions.map((p, i) => ({ ...p, racks: [RACKS[i % RACKS.length]!] })),
    },
    'every partition on every rack': { members: racked, partitions: partitions.map((p) => ({ ...p, racks: RACKS })) },
    'no rack overlap': { members: racked, partitions: partitions.map((p) => ({ ...p, racks: ['x', 'y'] })) },
  };
  const problems: string[] = [];
  const options = { defaultWeight: s.defaultWeight };
  const plain = balance({ members, partitions }, options);
  const previous = plain.assignments;
  const plainAgain = bytesOf(balance({ members, partitions, previous }, options));
  for (const [name, input] of Object.entries(variants)) {
    if (bytesOf(balance(input, options)) !== bytesOf(plain)) problems.push(name);
    if (bytesOf(balance({ ...input, previous }, options)) !== plainAgain) problems.push(`${name}, sticky`);
  }
  const on = balance({ members: racked, partitions: variants['partition racks only']!.partitions }, options);
  return { problems, placed: plain.partitionCount > 0, matched: bytesOf(on) !== bytesOf(plain) };
}

/** A rack per instance that does not depend on member order (members of one instance share it). */
function hash(instanceId: string, _index: number): number {
  let h = 0;
  for (let i = 0; i < instanceId.length; i++) h = (h * 31 + instanceId.charCodeAt(i)) >>> 0;
  return h;
}

function main(): number {
  const { runs, seed } = argsOf(process.argv.slice(2));
  const arbitrary = scenarioArbitrary({ min: 5, max: 20 });
  const started = performance.now();
  let failing = 0;
  let placed = 0;
  let matched = 0;
  for (let i = 0; i < runs; i++) {
    const scenario = fc.sample(arbitrary, { seed: seed + i, numRuns: 1 })[0]!;
    const result = check(scenario);
    const { problems } = result;
    if (result.placed) placed++;
    if (result.matched) matched++;
    if (problems.length === 0) continue;
    if (failing++ < 20) process.stdout.write(`DIFFERENT seed ${String(seed + i)}: ${problems.join('; ')}\n`);
  }
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${String(runs)} scenarios (seeds ${String(seed)}–${String(seed + runs - 1)}), ${String(failing)} with a difference, ` +
      `${seconds.toFixed(1)} s; ${String(placed)} placed partitions, and rack matching switched on changed ` +
      `${String(matched)} of them (the control)\n`,
  );
  return failing === 0 ? 0 : 1;
}

process.exitCode = main();
