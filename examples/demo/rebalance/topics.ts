/**
 * Topic and coordinator helpers of the rebalance benchmark: a topic whose every partition has a
 * leader before the run starts, the broker that coordinates the benchmark's groups, and a
 * replica layout that keeps the topic's leaders off that broker (so stopping it moves the
 * coordinator only, not the partitions the members fetch).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin } from 'kafkajs';
import { withTimeout } from '../phase.js';

/** An admin request that takes longer is given up (the loop tries again). */
const ADMIN_TIMEOUT_MS = 5000;
/** Longest wait for a new topic's partitions to have leaders, or for a coordinator to be known. */
const READY_LIMIT_MS = 60_000;

/** Partition leaders of `topic` by partition (-1: none), or undefined while unknown. */
export async function partitionLeaders(admin: Admin, topic: string): Promise<Map<number, number> | undefined> {
  try {
    const { topics } = await withTimeout(admin.fetchTopicMetadata({ topics: [topic] }), ADMIN_TIMEOUT_MS, 'metadata');
    return new Map((topics[0]?.partitions ?? []).map((p) => [p.partitionId, p.leader]));
  } catch {
    return undefined;
  }
}

/**
 * Creates `topic` (with `replicas[p]` as partition p's replica list when given, else
 * `partitions` partitions of one replica) and waits, bounded, until every partition has a leader.
 */
export async function createTopic(
  admin: Admin,
  topic: string,
  partitions: number,
  replicas?: readonly number[][],
): Promise<void> {
  const config =
    replicas === undefined
      ? { topic, numPartitions: partitions, replicationFactor: 1 }
      : { topic, replicaAssignment: replicas.map((r, partition) => ({ partition, replicas: [...r] })) };
  await admin.createTopics({ topics: [config], waitForLeaders: false });
  const deadline = Date.now() + READY_LIMIT_MS;
  while (Date.now() < deadline) {
    const leaders = await partitionLeaders(admin, topic);
    if (leaders !== undefined && leaders.size === partitions && [...leaders.values()].every((l) => l >= 0)) return;
    await sleep(300);
  }
  throw new Error(`topic ${topic}: partitions without a leader after ${String(READY_LIMIT_MS / 1000)} s`);
}

/**
 * The node coordinating every group: the leader of `__consumer_offsets` partition 0 (the local
 * brokers run `offsets.topic.num.partitions=1`). Describing `groupId` first makes the broker
 * create that topic if no group has used it yet.
 */
export async function coordinatorNode(admin: Admin, groupId: string): Promise<number> {
  await withTimeout(admin.describeGroups([groupId]), ADMIN_TIMEOUT_MS, 'describeGroups').catch(() => undefined);
  const deadline = Date.now() + READY_LIMIT_MS;
  while (Date.now() < deadline) {
    const leader = (await partitionLeaders(admin, '__consumer_offsets'))?.get(0);
    if (leader !== undefined && leader >= 0) return leader;
    await sleep(500);
  }
  throw new Error('no leader for __consumer_offsets-0 within 60 s');
}

/**
 * Replica lists for `partitions` partitions over `nodeIds` whose preferred leaders avoid
 * `avoid`: the other nodes lead in turn, `avoid` is last in every list.
 */
export function replicasAvoidingLeader(nodeIds: readonly number[], avoid: number, partitions: number): number[][] {
  const others = nodeIds.filter((n) => n !== avoid);
  if (others.length === 0) throw new Error(`no node other than ${String(avoid)} to lead`);
  return Array.from({ length: partitions }, (_, p) => {
    const rotated = [...others.slice(p % others.length), ...others.slice(0, p % others.length)];
    return nodeIds.includes(avoid) ? [...rotated, avoid] : rotated;
  });
}

/**
 * Waits, bounded, until the group coordinator answers: on a fresh cluster the first group makes
 * the broker create and load `__consumer_offsets`, and members that start meanwhile crash on
 * COORDINATOR_LOAD_IN_PROGRESS and restart, which re-times their heartbeats.
 */
export async function warmCoordinator(admin: Admin, groupId: string): Promise<void> {
  await coordinatorNode(admin, groupId);
  const deadline = Date.now() + READY_LIMIT_MS;
  while (Date.now() < deadline) {
    try {
      await withTimeout(admin.fetchOffsets({ groupId }), ADMIN_TIMEOUT_MS, 'fetchOffsets');
      return;
    } catch {
      await sleep(500);
    }
  }
}
