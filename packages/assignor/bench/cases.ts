import { PartitionAssigners } from 'kafkajs';
import {
  balance,
  LoadAwareAssigner,
  type PartitionWeight,
  type TopicPartition,
  type WeightedPartition,
} from '@load-aware/assignor';
import {
  decodeAssignedPartitions as decodeAssignments,
  fakeCluster,
  silentKafkaLogger,
} from '@load-aware/test-support';
import { createThresholdTrigger } from '@load-aware/trigger';
import { groupMembers } from './kafka-fakes.js';
import type { Scenario } from './scenarios.js';

/**
 * What is timed: KafkaJS's round-robin, our pure core, our whole KafkaJS adapter, or one check
 * of the threshold trigger (which runs balance() on the group, then on each instance's members).
 */
export type PathId = 'kafkajs-rr' | 'balance' | 'adapter' | 'trigger';

/** Ids of the paths, in the order they are run and printed (the baseline first). */
export const PATH_IDS: ReadonlyArray<PathId> = ['kafkajs-rr', 'balance', 'adapter', 'trigger'];

/** How each path is named in the table. */
export const PATH_LABELS: Readonly<Record<PathId, string>> = {
  'kafkajs-rr': 'KafkaJS roundRobin.assign',
  balance: 'balance()',
  adapter: 'LoadAwareAssigner.assign',
  trigger: 'threshold trigger evaluate',
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
      const input = { members: scenario.members, partitions: weightedPartitions(scenario) };
      return {
        run: () => balance(input),
        assignments: () => Promise.resolve(balance(input).assignments),
      };
    }
    case 'adapter': {
      // The weight source answers instantly from memory: this times the adapter, not a metrics query.
      const known: ReadonlyArray<PartitionWeight> = weightedPartitions(scenario);
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
    case 'trigger': {
      // A Stable group holding what balance() gives it: the check a trigger runs every
      // `checkIntervalMs` while nothing is wrong, the common case. A fresh trigger per call, so
      // hysteresis state never changes what one call does.
      const partitions = weightedPartitions(scenario);
      const held = balance({ members: scenario.members, partitions }).assignments;
      const observation = {
        state: 'Stable',
        members: scenario.members.map((m) => ({ ...m, assigned: held.get(m.memberId) ?? [] })),
        partitions,
      };
      const evaluate = () => createThresholdTrigger().evaluate(observation);
      return {
        run: evaluate,
        assignments: () => Promise.resolve(evaluate().plan?.assignments ?? new Map()),
      };
    }
  }
}

function weightedPartitions(scenario: Scenario): Array<WeightedPartition & PartitionWeight> {
  return scenario.topics.flatMap((topic, t) =>
    Array.from(scenario.weights[t]!, (weight, partition) => ({ topic, partition, weight })),
  );
}
