import { createRandom } from '@load-aware/test-support';

/** One membership of the group: member id → subscribed topics. */
export type Membership = ReadonlyMap<string, ReadonlyArray<string>>;

/** A sequence of group memberships both assignors go through, each carrying its own previous result. */
export interface PeerCase {
  readonly id: string;
  readonly label: string;
  /** Measured repeats per step (the median is reported) and whole warm-up sequences before them. */
  readonly repeats: number;
  readonly warmups: number;
  /** Topic → partition count. */
  readonly topics: ReadonlyMap<string, number>;
  readonly steps: ReadonlyArray<{ readonly kind: string; readonly members: Membership }>;
  /**
   * Racks, as in Kafka's own assignor tests: one broker per rack (a, b, c, ...), partition `p` of
   * the k-th topic with its replicas on brokers `(p + j + first) % racks` for j below the
   * replication factor (`first`: the partitions of the topics before it), and member `m<n>` in
   * rack `n % racks`. Undefined: no racks.
   */
  readonly racks?: { readonly count: number; readonly replicationFactor: number } | undefined;
}

/** The rack of member `m<n>` and the racks of every partition, by the layout of {@link PeerCase.racks}. */
export function rackLayout(c: PeerCase): {
  readonly memberRack: (memberId: string) => string;
  readonly partitionRacks: ReadonlyMap<string, ReadonlyArray<string>>;
} {
  const count = c.racks?.count ?? 1;
  const rf = c.racks?.replicationFactor ?? 1;
  const name = (i: number): string => String.fromCharCode(97 + (i % count));
  const partitionRacks = new Map<string, string[]>();
  // One array per distinct list, as both adapters hand them to balance() (`SharedRackLists`).
  const lists = new Map<string, string[]>();
  let first = 0;
  for (const [topic, partitions] of c.topics) {
    for (let p = 0; p < partitions; p++) {
      const racks = new Set<string>();
      for (let j = 0; j < rf; j++) racks.add(name(p + j + first));
      const sorted = [...racks].sort();
      const key = sorted.join(',');
      if (!lists.has(key)) lists.set(key, sorted);
      partitionRacks.set(`${topic}:${String(p)}`, lists.get(key)!);
    }
    first += partitions;
  }
  return { memberRack: (memberId) => name(Number(memberId.slice(1))), partitionRacks };
}

/** Subscriptions of member `i`: every topic, or one of two overlapping halves. */
type Pattern = (i: number) => ReadonlyArray<string>;

function topicNames(count: number): string[] {
  return Array.from({ length: count }, (_, t) => `t${String(t)}`);
}

/**
 * Builds a case: from scratch, one member leaves, one joins, then `churnSteps` random leaves or
 * joins (seeded, so both sides and every run see the same sequence).
 */
function peerCase(
  shape: { id: string; label: string; topics: number; partitions: number; members: number; churnSteps: number },
  pattern: Pattern,
  timing: { repeats: number; warmups: number },
  racks?: PeerCase['racks'],
): PeerCase {
  const random = createRandom(0x5eed ^ shape.members ^ shape.topics);
  const topics = new Map(topicNames(shape.topics).map((t) => [t, shape.partitions]));
  let next = 0;
  const members = new Map<string, ReadonlyArray<string>>();
  const join = (): void => {
    const i = next++;
    members.set(`m${String(i).padStart(5, '0')}`, pattern(i));
  };
  const leave = (): void => {
    const ids = [...members.keys()];
    members.delete(ids[random.int(ids.length)]!);
  };
  for (let i = 0; i < shape.members; i++) join();
  const steps: Array<{ kind: string; members: Membership }> = [];
  const snapshot = (kind: string): void => {
    steps.push({ kind, members: new Map(members) });
  };
  snapshot('from scratch');
  leave();
  snapshot('one leaves');
  join();
  snapshot('one joins');
  for (let s = 0; s < shape.churnSteps; s++) {
    if (random.next() < 0.5 && members.size > 1) {
      leave();
      snapshot('churn: one leaves');
    } else {
      join();
      snapshot('churn: one joins');
    }
  }
  return { id: shape.id, label: shape.label, ...timing, topics, steps, racks };
}

/** The cases of `pnpm bench:peer`; `quick` keeps the small ones only (a smoke run). */
export function peerCases(quick: boolean): PeerCase[] {
  const all = (topics: number): Pattern => {
    const names = topicNames(topics);
    return () => names;
  };
  // Two overlapping subscription groups: Kafka's sticky assignors leave their fast path for this.
  const halves = (topics: number): Pattern => {
    const names = topicNames(topics);
    const cut = Math.ceil(topics * 0.7);
    return (i) => (i % 2 === 0 ? names.slice(0, cut) : names.slice(topics - cut));
  };
  const cases = [
    peerCase(
      {
        id: 'uniform-10k',
        label: '10k partitions / 100 members, all subscribe to all',
        topics: 10,
        partitions: 1000,
        members: 100,
        churnSteps: 10,
      },
      all(10),
      { repeats: 9, warmups: 3 },
    ),
    peerCase(
      {
        id: 'mixed-10k',
        label: '10k partitions / 100 members, two overlapping subscriptions',
        topics: 10,
        partitions: 1000,
        members: 100,
        churnSteps: 0,
      },
      halves(10),
      { repeats: 1, warmups: 1 },
    ),
    ...[1, 2].map((replicationFactor) =>
      peerCase(
        {
          id: `racks-rf${String(replicationFactor)}-10k`,
          label: `10k partitions / 99 members in 3 racks, replication factor ${String(replicationFactor)}`,
          topics: 10,
          partitions: 1000,
          members: 99,
          churnSteps: 3,
        },
        all(10),
        { repeats: 9, warmups: 3 },
        { count: 3, replicationFactor },
      ),
    ),
  ];
  if (quick) return cases;
  return [
    ...cases,
    peerCase(
      {
        id: 'uniform-100k',
        label: '100k partitions / 1,000 members, all subscribe to all',
        topics: 100,
        partitions: 1000,
        members: 1000,
        churnSteps: 3,
      },
      all(100),
      { repeats: 5, warmups: 2 },
    ),
  ];
}

/** The case file PeerBench.java reads. */
export function caseFile(cases: ReadonlyArray<PeerCase>): string {
  const lines: string[] = [];
  for (const c of cases) {
    lines.push(`case ${c.id} ${String(c.repeats)} ${String(c.warmups)}`);
    if (c.racks !== undefined) lines.push(`racks ${String(c.racks.count)} ${String(c.racks.replicationFactor)}`);
    for (const [topic, count] of c.topics) lines.push(`topic ${topic} ${String(count)}`);
    for (const step of c.steps) {
      lines.push(`step ${step.kind.replace(/[^a-z]+/g, '-')}`);
      for (const [member, topics] of step.members) lines.push(`member ${member} ${topics.join(',')}`);
    }
    lines.push('end');
  }
  return `${lines.join('\n')}\n`;
}
