import { PartitionAssigners } from 'kafkajs';
import { balance, LoadAwareAssigner, type PartitionWeight, type TopicPartition } from '@load-aware/assignor';
import {
  decodeAssignedPartitions as decodeAssignments,
  fakeCluster,
  silentKafkaLogger,
  scenarioPartitions,
  type Scenario,
} from '@load-aware/test-support';
import { groupMembers } from './kafka-fakes.js';

/**
 * What is timed: KafkaJS's round-robin, our pure core, or our whole KafkaJS adapter. (The
 * threshold trigger's check has a benchmark of its own in the trigger package.)
 */
export type PathId = 'kafkajs-rr' | 'balance' | 'adapter';

/** Ids of the paths, in the order they are run and printed (the baseline first). */
export const PATH_IDS: ReadonlyArray<PathId> = ['kafkajs-rr', 'balance', 'adapter'];

/** How each path is named in the table. */
export const PATH_LABELS: Readonly<Record<PathId, string>> = {
  'kafkajs-rr': 'KafkaJS roundRobin.assign',
  balance: 'balance()',
  adapter: 'LoadAwareAssigner.assign',
};

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
