import type { BalanceMember, WeightedPartition } from '@load-aware/assignor';
import { createRng, type Rng } from './rng.js';

/** One seeded group to score: members, partitions and their weights. */
export interface QualityCase {
  readonly id: string;
  /** What is special about it, for the table. */
  readonly label: string;
  readonly topics: ReadonlyArray<string>;
  readonly members: ReadonlyArray<BalanceMember>;
  readonly partitions: ReadonlyArray<WeightedPartition & { readonly weight: number }>;
}

/** How partition weights are drawn. */
type WeightKind = 'uniform' | 'zipf' | 'lognormal' | 'heavy-lognormal' | 'hot' | 'bimodal' | 'zero-mix';

interface CaseShape {
  readonly id: string;
  readonly label: string;
  readonly partitions: number;
  readonly topics: number;
  readonly instances: number;
  /** Members of instance i. */
  readonly membersOf: (i: number) => number;
  readonly weights: WeightKind | ReadonlyArray<number>;
  /** Every member subscribes to every topic, or each to 1–3 of them. */
  readonly subscriptions?: 'all' | 'mixed';
  /** Capacity of instance i (default 1). */
  readonly capacityOf?: (i: number) => number;
  /** Topic t's weights are scaled by 1/(t+1): a few busy topics and a long tail. */
  readonly zipfTopics?: boolean;
}

const SHAPES: ReadonlyArray<CaseShape> = [
  {
    id: 'classic-11',
    label: '9,9,8,8,7,7,6,6,5,5,5 (greedy 19, optimum 15)',
    partitions: 11,
    topics: 1,
    instances: 5,
    membersOf: () => 1,
    weights: [9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 5],
  },
  {
    id: 'uniform-10',
    label: 'uniform, 10 partitions',
    partitions: 10,
    topics: 1,
    instances: 3,
    membersOf: () => 1,
    weights: 'uniform',
  },
  {
    id: 'lognormal-40',
    label: 'log-normal σ=1.5, few big partitions',
    partitions: 40,
    topics: 2,
    instances: 6,
    membersOf: () => 2,
    weights: 'heavy-lognormal',
  },
  {
    id: 'zipf-100',
    label: 'Zipf (1/rank)',
    partitions: 100,
    topics: 2,
    instances: 8,
    membersOf: () => 2,
    weights: 'zipf',
  },
  {
    id: 'bimodal-200',
    label: 'bimodal: 85% ~1, 15% ~20',
    partitions: 200,
    topics: 4,
    instances: 12,
    membersOf: () => 2,
    weights: 'bimodal',
  },
  {
    id: 'hot-1k',
    label: 'one hot partition (25% of the total)',
    partitions: 1000,
    topics: 2,
    instances: 10,
    membersOf: () => 3,
    weights: 'hot',
  },
  {
    id: 'zero-mix-1k',
    label: 'half the partitions weigh zero',
    partitions: 1000,
    topics: 2,
    instances: 10,
    membersOf: () => 2,
    weights: 'zero-mix',
  },
  {
    id: 'uneven-1k',
    label: 'instances of 1 to 10 members',
    partitions: 1000,
    topics: 3,
    instances: 10,
    membersOf: (i) => i + 1,
    weights: 'lognormal',
  },
  {
    id: 'capacity-1k',
    label: 'capacities 1, 2 and 4',
    partitions: 1000,
    topics: 3,
    instances: 9,
    membersOf: () => 3,
    weights: 'lognormal',
    capacityOf: (i) => [1, 2, 4][i % 3]!,
  },
  {
    id: 'mixed-10k',
    label: 'mixed subscriptions (1–3 of 5 topics)',
    partitions: 10_000,
    topics: 5,
    instances: 100,
    membersOf: () => 10,
    weights: 'lognormal',
    subscriptions: 'mixed',
    zipfTopics: true,
  },
  {
    id: 'lognormal-10k',
    label: 'log-normal × Zipf topics',
    partitions: 10_000,
    topics: 5,
    instances: 100,
    membersOf: () => 10,
    weights: 'lognormal',
    zipfTopics: true,
  },
  {
    id: 'uniform-100k',
    label: 'uniform',
    partitions: 100_000,
    topics: 5,
    instances: 100,
    membersOf: () => 10,
    weights: 'uniform',
  },
  {
    id: 'lognormal-100k',
    label: 'log-normal × Zipf topics',
    partitions: 100_000,
    topics: 5,
    instances: 100,
    membersOf: () => 10,
    weights: 'lognormal',
    zipfTopics: true,
  },
  {
    // Issue 27's leave: one of 50 instances goes, and its partitions should go where they are needed.
    id: 'leave-2k',
    label: 'log-normal, 50 instances (for the leave)',
    partitions: 2000,
    topics: 4,
    instances: 50,
    membersOf: () => 3,
    weights: 'lognormal',
  },
];

/** Ids of every case, in table order. */
export const CASE_IDS: ReadonlyArray<string> = SHAPES.map((s) => s.id);

/** Builds case `id` from its seed (its position); throws for an unknown id. */
export function buildCase(id: string): QualityCase {
  const index = SHAPES.findIndex((s) => s.id === id);
  const shape = SHAPES[index];
  if (shape === undefined) throw new Error(`Unknown case: ${id} (expected one of ${CASE_IDS.join(', ')})`);
  const rng = createRng(1000 + index);
  const topics = Array.from({ length: shape.topics }, (_, t) => `topic-${String(t)}`);
  const weights = typeof shape.weights === 'string' ? drawWeights(shape.weights, shape.partitions, rng) : shape.weights;
  const perTopic = Math.ceil(shape.partitions / shape.topics);
  const partitions = weights.map((weight, p) => {
    const t = Math.floor(p / perTopic);
    return {
      topic: topics[t]!,
      partition: p % perTopic,
      weight: shape.zipfTopics === true ? weight / (t + 1) : weight,
    };
  });
  const members: BalanceMember[] = [];
  for (let i = 0; i < shape.instances; i++) {
    const capacity = shape.capacityOf?.(i) ?? 1;
    for (let k = 0; k < shape.membersOf(i); k++) {
      members.push({
        // Random ids, as KafkaJS's are: sorting them interleaves instances.
        memberId: `m-${rng.next().toString(36).slice(2, 10)}`,
        instanceId: `pod-${String(i).padStart(3, '0')}`,
        topics: shape.subscriptions === 'mixed' ? subset(rng, topics) : topics,
        capacity,
      });
    }
  }
  return { id: shape.id, label: shape.label, topics, members, partitions };
}

function drawWeights(kind: WeightKind, n: number, rng: Rng): number[] {
  switch (kind) {
    case 'uniform':
      return Array.from({ length: n }, () => 0.5 + rng.next());
    case 'lognormal':
      return Array.from({ length: n }, () => rng.logNormal(1));
    case 'heavy-lognormal':
      return Array.from({ length: n }, () => rng.logNormal(1.5));
    case 'zipf':
      return shuffle(
        rng,
        Array.from({ length: n }, (_, r) => 100 / (r + 1)),
      );
    case 'bimodal':
      return Array.from({ length: n }, () => (rng.next() < 0.15 ? 15 + 10 * rng.next() : 0.5 + rng.next()));
    case 'hot': {
      const weights = Array.from({ length: n }, () => 0.5 + rng.next());
      // Total of the others is about n − 1; the hot one is a quarter of everything.
      weights[rng.int(n)] = (n - 1) / 3;
      return weights;
    }
    case 'zero-mix':
      return Array.from({ length: n }, () => (rng.next() < 0.5 ? 0 : rng.logNormal(1)));
  }
}

function shuffle(rng: Rng, values: number[]): number[] {
  for (let i = values.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [values[i], values[j]] = [values[j]!, values[i]!];
  }
  return values;
}

/** 1 to 3 distinct topics. */
function subset(rng: Rng, topics: ReadonlyArray<string>): string[] {
  const size = 1 + rng.int(3);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(size, topics.length)) chosen.add(rng.int(topics.length));
  return [...chosen].sort((a, b) => a - b).map((t) => topics[t]!);
}
