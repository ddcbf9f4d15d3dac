import {
  bindLogger,
  errorMessageOf,
  escapeLogText,
  fetchWeights,
  siblingPartitions,
  turnOf,
  withTimeout,
  type Logger,
  type WeightedPartition,
} from '@load-aware/assignor/internal';
import { setTimeout as sleep } from 'node:timers/promises';
import { awayMembers } from '../judge/away-members.js';
import { logDecision } from './check-log.js';
import { checkedDecision, isThresholdEvaluation, thresholdEvaluations } from '../triggers/decision.js';
import { electCoordinator } from './election.js';
import { CheckTimeoutError } from '../contract/errors.js';
import { createTriggerMetrics, type CheckOutcome } from './metrics.js';
import { heldPartitions, siblingLoad, withWeights } from '../judge/load.js';
import { seconds } from '../contract/text.js';
import type { ObservedGroup } from './observe.js';
import {
  MAX_UNHELD_RETRY_MS,
  resolveControllerOptions,
  type TriggerControllerDeps,
  type TriggerControllerOptions,
} from '../config/options.js';
import { createThresholdTrigger } from '../triggers/threshold-trigger.js';
import { createUnheldCheck } from './unheld-check.js';
import { createSizingCheck } from './sizing-check.js';
import { createCapacityCheck, type UsedCapacity } from './capacity-check.js';
import { createLagCheck, readGroupProgress, type ProgressRead } from './lag-check.js';
import type { TriggerAssigner } from '../contract/target.js';
import { isTrigger, type Trigger } from '../contract/trigger.js';
import { TRIGGER_OUTCOMES, type Evaluation, type SiblingLoad, type TriggerDecision } from '../contract/types.js';

/** What one check did. `D` is the decision of the controller's trigger. */
export interface CheckResult<D extends TriggerDecision = Evaluation> {
  /**
   * `skipped`: this consumer is not in the group, or this member is not the coordinator;
   * `unheld_partitions`: subscribed partitions no member held forced a rebalance, without the trigger.
   */
  readonly outcome: CheckOutcome | 'skipped';
  /** The trigger's decision; undefined when the check was skipped, failed or forced a rebalance for unheld partitions. */
  readonly evaluation: D | undefined;
}

/** The running trigger of one consumer; see {@link createTriggerController}. */
export interface TriggerController<D extends TriggerDecision = Evaluation> {
  /** True while this consumer's member is the group's trigger coordinator. */
  readonly isCoordinator: boolean;
  /** Runs a check now; while one is in flight, returns that one instead of starting another. */
  checkNow(): Promise<CheckResult<D>>;
  /** Stops checking, drops the coordinator role and removes its listeners. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Attaches the proactive-rebalance trigger to a KafkaJS consumer. Run it on every member of the
 * group: each checks every `checkIntervalMs`, one of them (the smallest member id of the Stable
 * group) is elected coordinator and evaluates. On `fired` the coordinator bumps the epoch in its
 * userData and makes its own consumer rejoin, so the broker rebalances the whole group — whether
 * or not that member is the leader. With `advise: true` it only logs and counts.
 *
 * The group is read through the consumer's own connection (`consumer.describeGroup()`), so TLS
 * and SASL settings apply and there is no extra client to close. Attach before or after
 * `consumer.run()`: the member id comes from the consumer's join and heartbeat events.
 *
 * Consumers of another client are passed as `{ target }`, a `TriggerTarget` their adapter
 * builds (`@load-aware/platformatic`: `assigner.triggerTarget(consumer, admin)`); the controller
 * then describes, follows membership and rebalances through it, and skips the checks the target
 * has no reader for (unheld partitions, static members away, cross-group).
 *
 * The decision is the threshold trigger's by default (`trigger: { threshold, ... }`); pass any
 * {@link Trigger} as `trigger` — `createPeriodicTrigger`, `createCompositeTrigger` or your own —
 * to decide otherwise. The controller acts on its `fired` alike.
 *
 * @example
 * ```ts
 * const assigner = LoadAwareAssigner({ weights, registry, logger });
 * const consumer = kafka.consumer({ groupId: 'orders', partitionAssigners: [assigner, PartitionAssigners.roundRobin] });
 * const trigger = createTriggerController({ target: assigner.triggerTarget(consumer) }, { registry, logger });
 * await consumer.connect();
 * await consumer.subscribe({ topic: 'orders' });
 * await consumer.run({ eachMessage });
 * // on shutdown
 * await trigger.stop();
 * await consumer.disconnect();
 * ```
 */
export function createTriggerController<D extends TriggerDecision = Evaluation>(
  deps: TriggerControllerDeps,
  options: TriggerControllerOptions<D> = {},
): TriggerController<D> {
  const resolved = resolveControllerOptions(deps, options);
  const { target } = resolved;
  const { assigner } = target;
  const o = resolved.options;
  const logger = bindLogger(o.logger, { component: 'trigger' });
  // The group id is learned from the consumer's events, not given, so its logger is bound once it
  // is known (and again only if it changes), instead of every line repeating it.
  let bound: { readonly groupId: string; readonly logger: Logger } | undefined;
  const loggerOf = (id: string | undefined): Logger => {
    if (id === undefined) return logger;
    if (bound?.groupId !== id) bound = { groupId: id, logger: bindLogger(logger, { groupId: id }) };
    return bound.logger;
  };
  // Options without `evaluate` were threshold options: resolved (with the assigner's settings) in
  // resolveControllerOptions. A trigger object was checked to have evaluate() there too.
  const trigger = (isTrigger(o.trigger) ? o.trigger : createThresholdTrigger(o.trigger)) as Trigger<D>;
  // Cross-group adds two outcomes whatever the trigger: held for the turn, siblings unknown.
  // Static membership adds one: held while a static member is away.
  const staticMembers = assigner.staticMembership;
  const extraOutcomes = [
    ...(assigner.crossGroup === undefined ? [] : (['not_due', 'siblings_unavailable'] as const)),
    ...(staticMembers ? (['member_away'] as const) : []),
  ];
  const outcomes =
    extraOutcomes.length === 0
      ? trigger.outcomes
      : [...new Set([...(trigger.outcomes ?? TRIGGER_OUTCOMES), ...extraOutcomes])];
  const metrics = createTriggerMetrics(o.registry, outcomes);
  const sizing = o.sizing === undefined ? undefined : createSizingCheck(o.sizing, metrics);
  const capacityCheck = o.sizing === undefined ? undefined : createCapacityCheck(o.sizing, metrics);
  /** The capacity the last sizing used: the lag check's time to drain runs at it too. */
  let capacity: UsedCapacity | undefined;
  const lag = o.lag ? createLagCheck({ memberCapacity: () => capacity?.memberCapacity }, metrics) : undefined;
  /** This controller's identity in the process-wide coordinator gauge. */
  const owner = {};

  let memberId: string | undefined;
  let isLeader = false;
  /** This consumer's completed joins: each rebalance it takes part in adds one. */
  let joins = 0;
  let groupId: string | undefined;
  let coordinator = false;
  let elected: string | undefined;
  let stopped = false;
  let inFlight: Promise<CheckResult<D>> | undefined;
  let timer: NodeJS.Timeout | undefined;
  // Read through a function: `stopped` changes under a pending await, which narrowing cannot see.
  const isStopped = (): boolean => stopped;
  // Subscribed partitions no member holds force a rebalance at once (backing off if it did not help).
  const unheld = createUnheldCheck({
    assigner,
    metrics,
    advise: o.advise,
    retryMs: o.unheldRetryMs,
    maxRetryMs: MAX_UNHELD_RETRY_MS,
    rebalances: () => joins,
  });

  const setRole = (next: boolean, reason: string): void => {
    if (next === coordinator || groupId === undefined) return;
    coordinator = next;
    metrics.coordinator(groupId, owner, next);
    loggerOf(groupId).info(
      { memberId, coordinatorId: elected, isLeader },
      next
        ? 'this member is now the trigger coordinator of the group'
        : `this member is no longer the trigger coordinator (${reason})`,
    );
  };
  const leaveGroup = (reason: string): void => {
    memberId = undefined;
    isLeader = false;
    setRole(false, reason);
  };
  // Every member runs the controller: it measures what each rebalance costs this member, so the
  // fires can be priced (a target that cannot measure reports nothing: fires assume 1 s a member).
  const unmeasure = target.measurePauses?.() ?? (() => undefined);
  const listeners = [
    unmeasure,
    target.onMembership((event) => {
      switch (event.kind) {
        case 'join':
          ({ memberId, isLeader, groupId } = event);
          joins++;
          break;
        case 'heartbeat':
          ({ memberId, groupId } = event);
          break;
        case 'leave':
          leaveGroup(event.reason);
          break;
      }
    }),
  ];

  /** Describe, elect, weigh, evaluate, act. `live()` turns false once the check is abandoned. */
  const evaluateOnce = async (self: string, live: () => boolean): Promise<CheckResult<D>> => {
    const started = performance.now();
    const group = await target.describeGroup();
    if (!live()) return skipped;
    groupId = group.groupId;
    if (group.state === 'Stable') {
      const winner = electCoordinator(group);
      if (winner !== elected) {
        loggerOf(groupId).info(
          { memberId: self, coordinatorId: winner, thisMember: winner === self },
          // Member ids embed the client id each member chose: escape them in message text.
          winner === undefined
            ? 'the group has no trigger coordinator'
            : `trigger coordinator is member ${escapeLogText(winner)}`,
        );
        elected = winner;
      }
      setRole(winner === self, `member ${escapeLogText(String(winner))} was elected`);
    }
    if (!coordinator) return skipped;

    let partitions: WeightedPartition[] = [];
    let siblings: SiblingLoad | undefined;
    let progress: Promise<ProgressRead> | undefined;
    if (group.state === 'Stable') {
      const budgetMs = (): number => Math.max(1, o.checkTimeoutMs - (performance.now() - started));
      // Partitions nobody consumes come first, and are not judged as load: a forced rebalance
      // fixes them whatever the trigger would say, and the trigger is not consulted meanwhile.
      const log = loggerOf(group.groupId);
      if (await unheld.check({ group, memberId: self, isLeader, logger: log, budgetMs, live })) {
        metrics.evaluation(group.groupId, 'unheld_partitions', undefined, (performance.now() - started) / 1000);
        return { outcome: 'unheld_partitions', evaluation: undefined };
      }
      if (!live()) return skipped;
      // Read exactly as the leader reads them, through this consumer's connections.
      // (An assigner from an older version has no readSiblings: cross-group is off for it.)
      const readings =
        typeof assigner.readSiblings === 'function'
          ? await assigner.readSiblings(group.groupId, budgetMs())
          : undefined;
      if (!live()) return skipped;
      const held = heldPartitions(group.members);
      // Alongside the weights, with half the budget left: a slow read must not time out the
      // check, whose decision does not depend on it. It never rejects.
      if (lag !== undefined) {
        progress = readGroupProgress(assigner, group.groupId, held, Math.max(1, Math.floor(budgetMs() / 2)));
      }
      const extra = readings === undefined ? [] : siblingPartitions(readings);
      try {
        const weights = await fetchWeights(o.weights, extra.length === 0 ? held : [...held, ...extra], budgetMs());
        partitions = withRacks(withWeights(held, weights), assigner, group.groupId);
        if (readings !== undefined) siblings = siblingLoad(readings, weights, assigner.defaultWeight);
      } catch (err) {
        if (live()) metrics.samplerError(group.groupId);
        throw err;
      }
    }
    if (!live()) return skipped;
    if (sizing !== undefined && capacityCheck !== undefined && group.state === 'Stable') {
      capacity = capacityCheck(group.groupId, loggerOf(group.groupId));
      if (capacity !== undefined) sizing(group, partitions, capacity, loggerOf(group.groupId));
    }
    if (lag !== undefined && progress !== undefined) {
      const read = await progress;
      if (!live()) return skipped;
      lag(group, partitions, read, loggerOf(group.groupId));
    }
    const observation = { state: group.state, members: group.members, partitions, siblings };
    const turned = awaitTurn(checkedDecision(trigger.evaluate(observation)) as D, group.groupId);
    const decision = await holdWhileAway(turned, group, started);
    if (!live()) return skipped;
    // The gauges describe load: they come from the threshold evaluation, inside a composite too.
    const load = thresholdEvaluations(decision)[0];
    metrics.evaluation(group.groupId, decision.outcome, load, (performance.now() - started) / 1000);
    const ctx = {
      groupId: group.groupId,
      memberId: self,
      protocol: group.protocol,
      foreignMembers: group.members.length - group.loadAwareMemberIds.length,
    };
    logDecision(loggerOf(group.groupId), ctx, decision);
    if (decision.outcome === 'fired') initiateRebalance(group, self, decision);
    return { outcome: decision.outcome, evaluation: decision };
  };

  /**
   * Cross-group: a fire outside this group's turn is held (the trigger's streak stands, so it fires
   * in its turn if the imbalance lasts) and reported as `not_due`.
   */
  const awaitTurn = (decision: D, id: string): D => {
    const cross = assigner.crossGroup;
    if (decision.outcome !== 'fired' || cross === undefined) return decision;
    const turn = turnOf(cross, id, Date.now());
    if (turn.open) return decision;
    trigger.settle?.(false);
    const reason =
      `${decision.reason}; held for this group's cross-group turn (now group ${turn.holder}'s, ` +
      `this group's opens in ${seconds(turn.opensInMs)})`;
    return { ...decision, outcome: 'not_due', reason: escapeLogText(reason) };
  };

  /**
   * Static membership: a fire is held while a static member of the group is away (its process is
   * down but its place is kept), because the rebalance would wait at the join barrier for it and
   * stop every member meanwhile (docs/deploys.md). Two progress readings `awayProbeMs` apart tell:
   * an away member's partitions have messages waiting and none of its committed offsets moves.
   */
  const holdWhileAway = async (decision: D, group: ObservedGroup, started: number): Promise<D> => {
    if (decision.outcome !== 'fired' || !staticMembers || assigner.readProgress === undefined) return decision;
    const partitions = heldPartitions(group.members);
    // Half the check's budget at most, so both readings fit in it whatever the settings.
    const probeMs = Math.min(o.awayProbeMs, Math.floor(o.checkTimeoutMs / 2));
    const budgetMs = (): number => Math.max(1, o.checkTimeoutMs - (performance.now() - started));
    const before = await assigner.readProgress(group.groupId, partitions, budgetMs());
    if (before === undefined) return decision;
    await sleep(probeMs);
    const after = (await assigner.readProgress(group.groupId, partitions, budgetMs())) ?? [];
    const away = awayMembers(group.members, before, after);
    if (away.length === 0) return decision;
    trigger.settle?.(false);
    const names = away.map((m) => `${m.instanceId} (${String(m.stalledPartitions)} partitions waiting)`).join(', ');
    const reason =
      `${decision.reason}; held: static member(s) away, nothing consumed in ${seconds(probeMs)}: ${names}; ` +
      'a rebalance now would wait for them at the join barrier';
    loggerOf(group.groupId).info(
      { awayMembers: away.map((m) => m.memberId), awayInstances: away.map((m) => m.instanceId) },
      escapeLogText(`rebalance held while a static member is away: ${names}`),
    );
    return { ...decision, outcome: 'member_away', reason: escapeLogText(reason) };
  };

  const initiateRebalance = (group: ObservedGroup, self: string, d: TriggerDecision): void => {
    const log = loggerOf(group.groupId);
    // The threshold trigger's lines stay as they were; other triggers say why in their reason.
    const fields = isThresholdEvaluation(d)
      ? {
          memberId: self,
          isLeader,
          level: d.level,
          ratio: d.ratio,
          threshold: d.threshold,
          memberRatio: d.memberRatio,
          memberThreshold: d.memberThreshold,
        }
      : { memberId: self, isLeader, trigger: d.kind, reason: d.reason };
    if (o.advise) {
      metrics.rebalance(group.groupId, true);
      const why = !isThresholdEvaluation(d)
        ? escapeLogText(d.reason)
        : d.level === 'member'
          ? `member ratio ${String(d.memberRatio)}`
          : `ratio ${String(d.ratio)}`;
      log.info(fields, `advise mode: would initiate a group rebalance (${why})`);
      return;
    }
    const epoch = assigner.bumpEpoch(group.groupId);
    const asked = assigner.startRebalance(group.groupId);
    metrics.rebalance(group.groupId, false);
    log.info(
      { ...fields, epoch, consumersAsked: asked },
      `rebalance initiated: epoch bumped to ${String(epoch)} and a JoinGroup sent for this member, so the whole group rebalances`,
    );
    if (asked === 0) {
      log.warn(
        fields,
        'no consumer of this assigner is in the group to rejoin; the new epoch applies at its next join',
      );
    }
  };

  const checkOnce = async (): Promise<CheckResult<D>> => {
    const self = memberId;
    if (self === undefined || stopped) return skipped;
    const started = performance.now();
    let abandoned = false;
    const work = evaluateOnce(self, () => !abandoned && !isStopped() && memberId === self);
    try {
      return await withTimeout(work, o.checkTimeoutMs, () => new CheckTimeoutError(o.checkTimeoutMs));
    } catch (err) {
      abandoned = true;
      const log = loggerOf(groupId);
      const fields = { memberId: self, err, code: (err as { code?: unknown }).code };
      if (coordinator && groupId !== undefined && !isStopped()) {
        metrics.evaluation(groupId, 'error', undefined, (performance.now() - started) / 1000);
        log.warn(fields, escapeLogText(`trigger check failed: ${errorMessageOf(err)}`));
      } else {
        log.debug(fields, 'trigger check failed');
      }
      // One check at a time: an abandoned check may still be waiting on KafkaJS; let it settle.
      await work.catch(() => undefined);
      return { outcome: 'error', evaluation: undefined };
    }
  };

  const checkNow = (): Promise<CheckResult<D>> => {
    inFlight ??= checkOnce().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      const started = performance.now();
      void checkNow().finally(() => {
        schedule(Math.max(0, o.checkIntervalMs - (performance.now() - started)));
      });
    }, delayMs);
    // A trigger must never keep a process alive on its own.
    timer.unref();
  };
  schedule(o.checkIntervalMs);

  return {
    get isCoordinator() {
      return coordinator;
    },
    checkNow,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      for (const remove of listeners) remove();
      // A check stuck in KafkaJS can no longer act (it sees `stopped`); wait for it, but boundedly.
      if (inFlight !== undefined) {
        await withTimeout(inFlight, o.checkTimeoutMs, () => new CheckTimeoutError(o.checkTimeoutMs)).catch(
          () => undefined,
        );
      }
      setRole(false, 'trigger stopped');
    },
  };
}

const skipped: CheckResult<never> = Object.freeze({ outcome: 'skipped', evaluation: undefined });

/**
 * The partitions with the replica racks the leader places with, read from this consumer's own
 * metadata (an assigner from an older version knows no racks: the plan then ignores them, as the
 * leader of that version does).
 */
function withRacks(partitions: WeightedPartition[], assigner: TriggerAssigner, groupId: string): WeightedPartition[] {
  if (typeof assigner.replicaRacksOf !== 'function') return partitions;
  const racks = assigner.replicaRacksOf(groupId, partitions);
  if (racks === undefined || !racks.some((r) => r !== undefined)) return partitions;
  return partitions.map((p, i) => {
    const r = racks[i];
    return r === undefined ? p : { ...p, racks: r };
  });
}
