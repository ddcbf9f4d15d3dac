import { balance, type TopicPartition, type WeightedPartition } from '@load-aware/assignor';
import { rackLayout, type PeerCase } from './peer-cases.js';

/** What one assignor did on one step. */
export interface StepResult {
  readonly caseId: string;
  readonly step: number;
  readonly kind: string;
  readonly medianMs: number;
  /** Partitions whose owner changed although that owner is still in the group. */
  readonly moved: number;
  /** Largest and smallest partition count of a member. */
  readonly maxCount: number;
  readonly minCount: number;
  /** Partitions on a member whose rack holds none of their replicas; undefined for cases without racks. */
  readonly rackMismatches?: number | undefined;
  /** Median ms of the same step with the racks left out (cases with racks, our side only). */
  readonly withoutRacksMs?: number | undefined;
}

/** Partitions placed on a member whose rack holds none of their replicas (Kafka's count). */
export function rackMismatches(
  c: PeerCase,
  assignments: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
): number | undefined {
  if (c.racks === undefined) return undefined;
  const layout = rackLayout(c);
  let mismatched = 0;
  for (const [member, partitions] of assignments) {
    const rack = layout.memberRack(member);
    for (const p of partitions) {
      if (!(layout.partitionRacks.get(`${p.topic}:${String(p.partition)}`) ?? []).includes(rack)) mismatched++;
    }
  }
  return mismatched;
}

/** Partitions whose owner changed although that owner is still in the group. */
export function movedCount(
  before: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  after: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
): number {
  const owner = new Map<string, string>();
  for (const [member, partitions] of before)
    for (const p of partitions) owner.set(`${p.topic}:${String(p.partition)}`, member);
  let moved = 0;
  for (const [member, partitions] of after) {
    for (const p of partitions) {
      const was = owner.get(`${p.topic}:${String(p.partition)}`);
      if (was !== undefined && was !== member && after.has(was)) moved++;
    }
  }
  return moved;
}

/** One step's input to `balance()`. */
type StepInput = Parameters<typeof balance>[0];

/**
 * `balance()` through a case as Kafka's assignors go through it: every weight 1, each member its
 * own instance, the previous step's result as the owners. Warm-up sequences first, then the median
 * of the measured repeats per step. A case with racks also goes through the same steps with the
 * racks left out (today's placement, carrying its own previous owners); each repeat times one
 * call of each, alternating, so both see the same machine.
 */
export function runBalanceSide(c: PeerCase): StepResult[] {
  const layout = c.racks === undefined ? undefined : rackLayout(c);
  const withRacks = stepInputs(c, layout);
  const withoutRacks = layout === undefined ? undefined : stepInputs(c, undefined);
  for (let w = 0; w < c.warmups; w++) {
    for (const input of withRacks) balance(input);
    for (const input of withoutRacks ?? []) balance(input);
  }
  return c.steps.map((step, index) => {
    const times: number[] = [];
    const plainTimes: number[] = [];
    let assignments = new Map<string, ReadonlyArray<TopicPartition>>();
    for (let r = 0; r < c.repeats; r++) {
      const started = performance.now();
      assignments = new Map(balance(withRacks[index]!).assignments);
      times.push(performance.now() - started);
      if (withoutRacks === undefined) continue;
      const plainStarted = performance.now();
      balance(withoutRacks[index]!);
      plainTimes.push(performance.now() - plainStarted);
    }
    const counts = [...assignments.values()].map((list) => list.length);
    return {
      caseId: c.id,
      step: index,
      kind: step.kind,
      medianMs: median(times),
      moved: movedCount(withRacks[index]!.previous ?? new Map(), assignments),
      maxCount: Math.max(...counts),
      minCount: Math.min(...counts),
      rackMismatches: rackMismatches(c, assignments),
      withoutRacksMs: withoutRacks === undefined ? undefined : median(plainTimes),
    };
  });
}

/** The input of every step, each with the previous step's result (on these inputs) as its owners. */
function stepInputs(c: PeerCase, layout: ReturnType<typeof rackLayout> | undefined): StepInput[] {
  const partitions: WeightedPartition[] = [];
  for (const [topic, count] of c.topics) {
    for (let p = 0; p < count; p++) {
      const racks = layout?.partitionRacks.get(`${topic}:${String(p)}`);
      partitions.push(
        racks === undefined ? { topic, partition: p, weight: 1 } : { topic, partition: p, weight: 1, racks },
      );
    }
  }
  let previous: ReadonlyMap<string, ReadonlyArray<TopicPartition>> = new Map();
  return c.steps.map((step) => {
    const members = [...step.members].map(([memberId, topics]) => ({
      memberId,
      instanceId: memberId,
      topics: [...topics],
      ...(layout === undefined ? {} : { rack: layout.memberRack(memberId) }),
    }));
    const input = { members, partitions, previous };
    previous = new Map(balance(input).assignments);
    return input;
  });
}

function median(values: number[]): number {
  return values.sort((a, b) => a - b)[values.length >> 1]!;
}
