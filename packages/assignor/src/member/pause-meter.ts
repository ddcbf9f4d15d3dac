import type { Consumer } from 'kafkajs';

/** What the meter reports a measured pause to: the assigner the consumer uses. */
export interface PauseSink {
  /** One consumer's pause in the rebalance it just completed (s). */
  recordPause(groupId: string, memberId: string, seconds: number): void;
}

/** Consumers already measured, so attaching twice (the trigger does it too) counts once. */
const measured = new WeakSet<Consumer>();

/**
 * Measures what every rebalance costs this consumer: how long it processed nothing. Under
 * KafkaJS's eager protocol a consumer stops fetching when it learns of a rebalance, waits at the
 * join barrier for the slowest member, syncs, fetches its committed offsets, and only then
 * processes again. The edges, from KafkaJS's instrumentation events:
 *
 * - **start**: the later of the moment KafkaJS left its fetch loop for the rebalance (the
 *   `consumer.rebalancing` event, or the first JoinGroup request of the rebalance for a rejoin
 *   without one) and the end of the last batch it processed before the join completed. A member
 *   that keeps processing while the group prepares (it has not noticed yet) is not paused;
 * - **end**: the start of its first batch after `consumer.group_join`, or, when its first fetch
 *   after the join returns nothing, the start of that fetch: it was ready, nothing was waiting.
 *
 * The consumer's first join after `run()` is a start, not a pause. Each pause goes to
 * `sink.recordPause()`, which labels it with the cause the leader sent and exports it as
 * `load_aware_rebalance_pause_seconds`. Returns a function that detaches the listeners.
 */
export function measureRebalancePauses(consumer: Consumer, sink: PauseSink): () => void {
  if (measured.has(consumer)) return () => undefined;
  measured.add(consumer);
  const { events } = consumer;
  let member: { groupId: string; memberId: string } | undefined;
  let leftFetchAt: number | undefined;
  let lastBatchEnd = 0;
  let joinedAt: number | undefined;
  let pauseStart = 0;
  let fetchStartedAt: number | undefined;

  const reset = (): void => {
    member = undefined;
    leftFetchAt = undefined;
    joinedAt = undefined;
    fetchStartedAt = undefined;
  };
  const finish = (end: number): void => {
    const at = member;
    joinedAt = undefined;
    fetchStartedAt = undefined;
    leftFetchAt = undefined;
    if (at === undefined) return;
    sink.recordPause(at.groupId, at.memberId, Math.max(0, end - pauseStart) / 1000);
  };

  const removers = [
    consumer.on(events.REBALANCING, () => {
      leftFetchAt ??= Date.now();
    }),
    consumer.on(events.REQUEST, ({ payload }) => {
      if (payload.apiName !== 'JoinGroup' || joinedAt !== undefined) return;
      leftFetchAt = Math.min(leftFetchAt ?? payload.createdAt, payload.createdAt);
    }),
    consumer.on(events.END_BATCH_PROCESS, () => {
      if (joinedAt === undefined) lastBatchEnd = Date.now();
    }),
    consumer.on(events.GROUP_JOIN, ({ payload }) => {
      const now = Date.now();
      const wasMember = member !== undefined;
      member = { groupId: payload.groupId, memberId: payload.memberId };
      if (!wasMember) {
        // The first join of this run: nothing was being processed before it.
        leftFetchAt = undefined;
        return;
      }
      const left = leftFetchAt ?? now - payload.duration;
      pauseStart = Math.max(left, Math.min(lastBatchEnd, now));
      joinedAt = now;
    }),
    consumer.on(events.FETCH_START, () => {
      if (joinedAt !== undefined) fetchStartedAt ??= Date.now();
    }),
    consumer.on(events.FETCH, ({ payload }) => {
      if (joinedAt !== undefined && fetchStartedAt !== undefined && payload.numberOfBatches === 0) {
        finish(fetchStartedAt);
      }
    }),
    consumer.on(events.START_BATCH_PROCESS, () => {
      if (joinedAt !== undefined) finish(Date.now());
    }),
    consumer.on(events.STOP, reset),
    consumer.on(events.CRASH, reset),
    consumer.on(events.DISCONNECT, reset),
  ];
  return () => {
    for (const remove of removers) remove();
    measured.delete(consumer);
  };
}
