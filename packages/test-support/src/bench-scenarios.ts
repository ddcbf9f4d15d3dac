import type { BalanceMember, PartitionWeight, WeightedPartition } from '@load-aware/assignor';
import { createRandom, type Random } from './random.js';

/** One benchmark input: a consumer group, its topics and a measured weight for every partition. */
export interface Scenario {
  readonly id: string;
  readonly label: string;
  readonly topics: ReadonlyArray<string>;
  /** Partition count of each entry of `topics`. */
  readonly partitionsPerTopic: number;
  readonly instanceCount: number;
  readonly members: ReadonlyArray<BalanceMember>;
  /** Weight of partition `p` of `topics[t]` is `weights[t][p]`. */
  readonly weights: ReadonlyArray<Float64Array>;
}

/** The shape of a scenario; everything else is drawn from `seed`. */
interface ScenarioShape {
  readonly id: string;
  readonly label: string;
  readonly partitionCount: number;
  readonly memberCount: number;
  readonly instanceCount: number;
  readonly topicCount: number;
  /** Every member subscribes to every topic, or each to its own random subset of 1–3 topics. */
  readonly subscriptions: 'all' | 'mixed';
  readonly seed: number;
}

/**
 * Within a topic, partition weights are log-normal with this sigma: the heaviest of 10k
 * partitions is about 40× the median, which is what key skew looks like in practice.
 */
const WEIGHT_SIGMA = 1;

const SHAPES: ReadonlyArray<ScenarioShape> = [
  {
    id: 'a',
    label: '10k p / 1k m / 100 i',
    partitionCount: 10_000,
    memberCount: 1000,
    instanceCount: 100,
    topicCount: 5,
    subscriptions: 'all',
    seed: 1,
  },
  {
    id: 'b',
    label: '100k p / 1k m / 100 i',
    partitionCount: 100_000,
    memberCount: 1000,
    instanceCount: 100,
    topicCount: 5,
    subscriptions: 'all',
    seed: 2,
  },
  {
    id: 'c',
    label: '(a), mixed subscriptions',
    partitionCount: 10_000,
    memberCount: 1000,
    instanceCount: 100,
    topicCount: 5,
    subscriptions: 'mixed',
    seed: 1,
  },
];

/** Ids of the scenarios, in the order they are run and printed. */
export const SCENARIO_IDS: ReadonlyArray<string> = SHAPES.map((s) => s.id);

/** Builds scenario `id` deterministically; throws for an unknown id. */
export function buildScenario(id: string): Scenario {
  const shape = SHAPES.find((s) => s.id === id);
  if (shape === undefined) throw new Error(`Unknown scenario: ${id} (expected one of ${SCENARIO_IDS.join(', ')})`);
  // Weights come from their own stream, so (a) and (c) share their weights exactly and differ
  // only in who subscribes to what.
  const weightRandom = createRandom(shape.seed);
  const memberRandom = createRandom(shape.seed + 1000);
  const topics = Array.from({ length: shape.topicCount }, (_, t) => `topic-${String(t)}`);
  const partitionsPerTopic = Math.floor(shape.partitionCount / shape.topicCount);
  // Topic traffic is Zipf-like (topic t carries 1/(t+1) of topic 0's average load), and within
  // a topic partitions are log-normal.
  const weights = topics.map((_, t) =>
    Float64Array.from({ length: partitionsPerTopic }, () => weightRandom.logNormal(0, WEIGHT_SIGMA) / (t + 1)),
  );
  const members: BalanceMember[] = Array.from({ length: shape.memberCount }, (_, m) => ({
    memberId: kafkaJsLikeMemberId(memberRandom),
    // Members are spread evenly over instances; their random ids make the sorted member order
    // (which KafkaJS's round-robin deals by) interleave instances arbitrarily, as in production.
    instanceId: `pod-${String(m % shape.instanceCount).padStart(3, '0')}`,
    topics: shape.subscriptions === 'all' ? topics : randomSubset(memberRandom, topics),
  }));
  return {
    id: shape.id,
    label: shape.label,
    topics,
    partitionsPerTopic,
    instanceCount: shape.instanceCount,
    members,
    weights,
  };
}

/** KafkaJS member ids are `<clientId>-<uuid v4>`. */
function kafkaJsLikeMemberId(random: Random): string {
  return `bench-${random.hex(8)}-${random.hex(4)}-4${random.hex(3)}-${random.hex(4)}-${random.hex(12)}`;
}

/** 1 to 3 distinct topics, in topic order. */
function randomSubset(random: Random, topics: ReadonlyArray<string>): string[] {
  const size = 1 + random.int(3);
  const chosen = new Set<number>();
  while (chosen.size < size) chosen.add(random.int(topics.length));
  return [...chosen].sort((x, y) => x - y).map((t) => topics[t]!);
}

/** Every partition of `scenario` with its weight, in topic then partition order. */
export function scenarioPartitions(scenario: Scenario): Array<WeightedPartition & PartitionWeight> {
  return scenario.topics.flatMap((topic, t) =>
    Array.from(scenario.weights[t]!, (weight, partition) => ({ topic, partition, weight })),
  );
}
