/**
 * The latency-SLA benchmark's three assignors as plans over the exact produce rates: what each
 * would give N members, so the benchmark can say how busy each one's busiest member is before it
 * runs anything, skip group sizes where that member gets more than it can process (its latency
 * then grows without bound, whatever the SLA), and pin the count-balanced sticky plan into a live
 * group. Pure: no clock, no I/O.
 */
import { balance, placementAt, type BalanceMember, type TopicPartition } from '@load-aware/assignor';

/** The assignors compared. */
export type SlaAssigner = 'round-robin' | 'sticky' | 'load-aware';

/** Every assignor, in the order the tables show them: the baseline first. */
export const SLA_ASSIGNERS: readonly SlaAssigner[] = ['round-robin', 'sticky', 'load-aware'];

/** The name a report gives each. */
export const ASSIGNER_LABEL: Readonly<Record<SlaAssigner, string>> = {
  'round-robin': 'round-robin',
  sticky: 'count-balanced sticky',
  'load-aware': 'load-aware',
};

/**
 * KafkaJS's round-robin on one topic: partitions in order, dealt to the members sorted by member
 * id, so slot i gets every partition p with p mod N = i.
 */
export function roundRobinPlan(partitions: number, members: number): number[][] {
  const plan = Array.from({ length: members }, () => [] as number[]);
  for (let p = 0; p < partitions; p++) plan[p % members]!.push(p);
  return plan;
}

/**
 * Kafka's count-balanced sticky rule as a group reaches N members by scaling out one at a time
 * from one: every partition weighs the same, and each new member takes only what evening out the
 * counts requires, the rest staying where it was. Emulated with `balance()` at weight 1 and the
 * previous plan, which moves as many partitions per join as Kafka's StickyAssignor
 * (`pnpm bench:peer`); which ones move is arbitrary with respect to the rates in both.
 */
export function stickyGrowthPlan(partitions: number, members: number): number[][] {
  const topic = 'sla';
  const weighted = Array.from({ length: partitions }, (_, partition) => ({ topic, partition, weight: 1 }));
  const id = (i: number): string => `m${String(i).padStart(3, '0')}`;
  let previous: Map<string, TopicPartition[]> | undefined;
  for (let n = 1; n <= members; n++) {
    const group: BalanceMember[] = Array.from({ length: n }, (_, i) => ({
      memberId: id(i),
      instanceId: id(i),
      topics: [topic],
    }));
    previous = balance({
      members: group,
      partitions: weighted,
      ...(previous === undefined ? {} : { previous }),
    }).assignments;
  }
  return Array.from({ length: members }, (_, i) =>
    (previous?.get(id(i)) ?? []).map((tp) => tp.partition).sort((a, b) => a - b),
  );
}

/** The busiest member's load ÷ `memberRate` under `plan` (slot → partitions), by `rates`. */
export function busiestUtilization(
  plan: readonly (readonly number[])[],
  rates: readonly number[],
  memberRate: number,
): number {
  const loads = plan.map((partitions) => partitions.reduce((sum, p) => sum + (rates[p] ?? 0), 0));
  return Math.max(0, ...loads) / memberRate;
}

/**
 * The busiest member's utilization `assigner` would give `members` members by the exact rates:
 * round-robin's and the sticky plan exactly; load-aware's as `balance()` places the exact rates
 * (live, it places the rates it measures, which are close).
 */
export function predictedUtilization(
  assigner: SlaAssigner,
  rates: readonly number[],
  members: number,
  memberRate: number,
): number {
  if (assigner === 'round-robin') return busiestUtilization(roundRobinPlan(rates.length, members), rates, memberRate);
  if (assigner === 'sticky') return busiestUtilization(stickyGrowthPlan(rates.length, members), rates, memberRate);
  const partitions = rates.map((weight, partition) => ({ topic: 'sla', partition, weight }));
  return placementAt(partitions, members, 1, memberRate).busiestUtilization;
}
