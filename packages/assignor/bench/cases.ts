import { PartitionAssigners } from 'kafkajs';
import {
  balance,
  LoadAwareAssigner,
  type BalanceInput,
  type PartitionWeight,
  type TopicPartition,
} from '@load-aware/assignor';
import {
  createRandom,
  decodeAssignedPartitions as decodeAssignments,
  fakeCluster,
  silentKafkaLogger,
  scenarioPartitions,
  type Scenario,
} from '@load-aware/test-support';
import { groupMembers } from './kafka-fakes.js';

/**
 * What is timed: KafkaJS's round-robin, our pure core, our whole KafkaJS adapter, or the core on
 * the same group with racks (replication factor 1 or 2). (The threshold trigger's check has a
 * benchmark of its own in the trigger package.)
 */
export type PathId = 'kafkajs-rr' | 'balance' | 'adapter' | 'racks-rf1' | 'racks-rf2';

/** Ids of the paths, in the order they are run and printed (the baseline first). */
export const PATH_IDS: ReadonlyArray<PathId> = ['kafkajs-rr', 'balance', 'adapter', 'racks-rf1', 'racks-rf2'];

/** The rack paths, compared with `balance` on the same group rather than with round-robin. */
export const RACK_PATHS: ReadonlySet<PathId> = new Set(['racks-rf1', 'racks-rf2']);

/** How each path is named in the table. */
export const PATH_LABELS: Readonly<Record<PathId, string>> = {
  'kafkajs-rr': 'KafkaJS roundRobin.assign',
  balance: 'balance()',
  adapter: 'LoadAwareAssigner.assign',
  'racks-rf1': 'balance(), racks RF 1',
  'racks-rf2': 'balance(), racks RF 2',
};

const RACKS = ['a', 'b', 'c'];

/**
 * `scenario`'s group with racks: instances spread over three racks in id order, each partition's
 * replicas in one seeded rack, or two distinct ones.
 */
function withRacks(scenario: Scenario, replicationFactor: 1 | 2): BalanceInput {
  const instances = [...new Set(scenario.members.map((m) => m.instanceId))].sort();
  const rackOf = new Map(instances.map((id, i) => [id, RACKS[i % RACKS.length]!]));
  const random = createRandom(replicationFactor);
  // One array per distinct rack list, as the adapters hand them over (`SharedRackLists`).
  const shared = new Map<string, string[]>();
  return {
    members: scenario.members.map((m) => ({ ...m, rack: rackOf.get(m.instanceId)! })),
    partitions: scenarioPartitions(scenario).map((p) => {
      const first = RACKS[random.int(RACKS.length)]!;
      const listed =
        replicationFactor === 1
          ? [first]
          : [first, RACKS[(RACKS.indexOf(first) + 1 + random.int(RACKS.length - 1)) % RACKS.length]!].sort();
      const key = listed.join(',');
      const racks = shared.get(key) ?? listed;
      shared.set(key, racks);
      // A literal, as the adapter builds them: spread copies of objects whose weights are small
      // integers in some and doubles in others get maps of their own, and reading 100k objects
      // of many maps would time V8's property caches rather than rack matching.
      return { topic: p.topic, partition: p.partition, weight: p.weight, racks };
    }),
  };
}

/** A path ready to run on one scenario: all input is built up front, outside the timing. */
export interface PreparedCase {
  /** One timed call. */
  run(): unknown;
  /** One more call, with its result decoded into partitions per member, for judging quality. */
  assignments(): Promise<ReadonlyMap<string, ReadonlyArray<TopicPartition>>>;
}

const GROUP_ID = 'bench';

/** Builds the input `path` needs for `scenario`. */
export function prepareCase(scenario: Scenario, path: PathId): PreparedCase {
  const cluster = fakeCluster(Object.fromEntries(scenario.topics.map((t) => [t, scenario.partitionsPerTopic])));
  const logger = silentKafkaLogger();
  const topics = [...scenario.topics];
  switch (path) {
    case 'kafkajs-rr': {
      const assigner = PartitionAssigners.roundRobin({ cluster, groupId: GROUP_ID, logger });
      const group = { members: groupMembers(scenario, false), topics };
      return {
        run: () => assigner.assign(group),
        assignments: async () => decodeAssignments(await assigner.assign(group)),
      };
    }
    case 'balance': {
      const input = { members: scenario.members, partitions: scenarioPartitions(scenario) };
      return {
        run: () => balance(input),
        assignments: () => Promise.resolve(balance(input).assignments),
      };
    }
    case 'racks-rf1':
    case 'racks-rf2': {
      const input = withRacks(scenario, path === 'racks-rf1' ? 1 : 2);
      return {
        run: () => balance(input),
        assignments: () => Promise.resolve(balance(input).assignments),
      };
    }
    case 'adapter': {
      // The weight source answers instantly from memory: this times the adapter, not a metrics query.
      const known: ReadonlyArray<PartitionWeight> = scenarioPartitions(scenario);
      const assigner = LoadAwareAssigner({ weights: { getWeights: () => Promise.resolve(known) } })({
        cluster,
        groupId: GROUP_ID,
        logger,
      });
      const group = { members: groupMembers(scenario, true), topics };
      return {
        run: () => assigner.assign(group),
        assignments: async () => decodeAssignments(await assigner.assign(group)),
      };
    }
  }
}
