import type { Cluster } from 'kafkajs';
import type { TopicPartition } from '../core/types.js';
import type { DescribeGroup } from '../inputs/sibling-groups.js';
import type { ReplicaRackMode } from '../inputs/partition-racks.js';
import { describeThrough } from './describe-group.js';
import { progressThrough, type ReadProgress } from './group-progress.js';
import { observeOwnAssignment, type OwnAssignment } from './own-assignment.js';
import type { ConsumerRejoinSwitch, RejoinSwitchboard } from './rejoin.js';
import { installStaticMembership, type StaticMember, type StaticMembershipContext } from './static-membership.js';
import { topicPartitionsThrough, type ReadTopicPartitions } from './topic-partitions.js';
import { replicaRacksThrough } from './broker-racks.js';

/** What one consumer's interceptions need from the assigner. */
export interface InterceptSettings {
  readonly groupId: string;
  /** The assigner's switchboard: the consumer's rejoin switch is installed on it. */
  readonly rejoins: RejoinSwitchboard;
  /** Which replicas make a partition local to a rack (the `replicaRacks` option). */
  readonly replicaRacks: ReplicaRackMode;
  /** Static membership's context; undefined when the option is off. */
  readonly staticMembership?: StaticMembershipContext;
}

/** One consumer, as the assigner sees it once its cluster is intercepted. */
export interface InterceptedConsumer {
  /** Told when KafkaJS builds JoinGroup metadata; see `rejoin.ts`. */
  readonly rejoin: ConsumerRejoinSwitch;
  /** The consumer's static identity; undefined without static membership. */
  readonly staticMember: StaticMember | undefined;
  /** What the consumer learns of its own membership. */
  readonly own: OwnAssignment;
  /** DescribeGroups of any group, past every interception. */
  readonly describe: DescribeGroup | undefined;
  /** Committed and end offsets of the consumer's group. */
  readonly readProgress: ReadProgress | undefined;
  /** Fresh partition lists of topics. */
  readonly readTopicPartitions: ReadTopicPartitions | undefined;
  /** The racks holding a replica of each partition, from the consumer's metadata. */
  readonly replicaRacks: (partitions: ReadonlyArray<TopicPartition>) => Array<ReadonlyArray<string> | undefined>;
}

/**
 * Installs every interception of one consumer's cluster, in the only order that works. Each
 * later step wraps what the earlier ones left in place, so the last is the outermost:
 *
 * 1. **Readers** take what they call first. DescribeGroups binds KafkaJS's own coordinator lookup
 *    before anything wraps it: sibling groups' answers are not the observer's business.
 * 2. **Rejoin switch** wraps `refreshMetadataIfNecessary`, `connect` and `disconnect`.
 * 3. **Static membership** wraps `findGroupCoordinator` (a broker view whose four group calls
 *    carry the group instance id), `connect` and `disconnect`.
 * 4. **Own-assignment observer** wraps `findGroupCoordinator` and `disconnect` last, so it sees
 *    the answers to the requests static membership sends.
 *
 * A cluster that lacks one of these was reported by name before this runs (`internals.ts`);
 * each step then installs what it can and leaves the rest as KafkaJS has it.
 */
export function interceptConsumerCluster(cluster: Cluster, settings: InterceptSettings): InterceptedConsumer {
  const { groupId } = settings;
  const canFind = typeof cluster.findGroupCoordinator === 'function';
  const describe = canFind ? describeThrough(cluster.findGroupCoordinator.bind(cluster)) : undefined;
  const readProgress =
    canFind && typeof cluster.fetchTopicsOffset === 'function' ? progressThrough(cluster, groupId) : undefined;
  const readTopicPartitions = canFind ? topicPartitionsThrough(cluster, groupId) : undefined;
  const replicaRacks = replicaRacksThrough(cluster, settings.replicaRacks);
  const rejoin = settings.rejoins.install(cluster, groupId);
  const staticMember =
    settings.staticMembership === undefined ? undefined : installStaticMembership(cluster, settings.staticMembership);
  const own = observeOwnAssignment(cluster);
  return { rejoin, staticMember, own, describe, readProgress, readTopicPartitions, replicaRacks };
}
