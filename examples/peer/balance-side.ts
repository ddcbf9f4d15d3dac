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

/**
 * `balance()` through a case as Kafka's assignors go through it: every weight 1, each member its
 * own instance, the previous step's result as the owners. Warm-up sequences first, then the median
 * of the measured repeats per step.
 */
export function runBalanceSide(c: PeerCase): StepResult[] {
  const partitions: WeightedPartition[] = [];
  const layout = c.racks === undefined ? undefined : rackLayout(c);
  for (const [topic, count] of c.topics) {
    for (let p = 0; p < count; p++) {
      const racks = layout?.partitionRacks.get(`${topic}:${String(p)}`);
      partitions.push(
        racks === undefined ? { topic, partition: p, weight: 1 } : { topic, partition: p, weight: 1, racks },
      );
    }
  }
  const sequence = (report: boolean): StepResult[] => {
    const results: StepResult[] = [];
    let previous = new Map<string, ReadonlyArray<TopicPartition>>();
    c.steps.forEach((step, index) => {
      const members = [...step.members].map(([memberId, topics]) => ({
        memberId,
        instanceId: memberId,
        topics: [...topics],
        ...(layout === undefined ? {} : { rack: layout.memberRack(memberId) }),
      }));
      const times: number[] = [];
      let assignments = new Map<string, ReadonlyArray<TopicPartition>>();
      for (let r = 0; r < c.repeats; r++) {
        const started = performance.now();
        assignments = new Map(balance({ members, partitions, previous }).assignments);
        times.push(performance.now() - started);
      }
      if (report) {
        const counts = [...assignments.values()].map((list) => list.length);
        results.push({
          caseId: c.id,
          step: index,
          kind: step.kind,
          medianMs: times.sort((a, b) => a - b)[times.length >> 1]!,
          moved: movedCount(previous, assignments),
          maxCount: Math.max(...counts),
          minCount: Math.min(...counts),
          rackMismatches: rackMismatches(c, assignments),
        });
      }
      previous = assignments;
    });
    return results;
  };
  for (let w = 0; w < c.warmups; w++) sequence(false);
  return sequence(true);
}
