/**
 * The report: an observed group, its partitions, their weights and lags in; per instance and per
 * member loads, the busiest ÷ ideal ratio and `balance()`'s proposal out. Pure. Every rule is the
 * assignor's or the trigger's own (instances and capacity, effective weights, the ideal load), so
 * the numbers here are the numbers the assignor and the trigger act on.
 */
import {
  keyOfPartition,
  instanceCapacities,
  partitionLabel,
  isUsableWeight,
  DEFAULT_PARTITION_WEIGHT,
  DEFAULT_TARGET_UTILIZATION,
  placementAt,
  sizeGroup,
  groupLag,
  type BalanceResult,
  type DrainTime,
  type GroupLag,
  type LagUnmeasured,
  type PartitionWeight,
  type WeightedPartition,
  type TopicPartition,
} from '@load-aware/assignor/internal';
import {
  memberImbalance,
  planFromCurrent,
  resolveWeights,
  withWeights,
  type ObservedGroup,
  type ObservedMember,
} from '@load-aware/trigger/internal';
import { CliError } from './errors.js';
import type { SizingBasis } from './args.js';

/** Who a member's client is, as DescribeGroups reports it. */
export interface MemberClient {
  readonly clientId: string;
  readonly clientHost: string;
}

/** Everything read from the cluster for one report. */
export interface GroupSnapshot {
  readonly group: ObservedGroup;
  /** Client of each member id. */
  readonly clients: ReadonlyMap<string, MemberClient>;
  /** Every partition of the topics the group subscribes to, with its replica racks when known. */
  readonly partitions: ReadonlyArray<TopicPartition & Pick<WeightedPartition, 'racks'>>;
  /** What the weight source answered. */
  readonly weights: ReadonlyArray<PartitionWeight>;
  /** Records behind the end offset, by `keyOfPartition`; absent when the group committed nothing there. */
  readonly lags: ReadonlyMap<string, number>;
  /**
   * Topics members subscribe to or hold that the cluster does not know (deleted, or never
   * created). Left out of every figure: they have no partitions to weigh or move.
   */
  readonly missingTopics?: ReadonlyArray<string>;
}

/** Tuning of the proposal, as the assignor's options of the same names. */
export interface PlanOptions {
  readonly moveTolerance?: number | undefined;
  readonly maxMovesPerRebalance?: number | undefined;
  /** How members without load-aware userData are grouped; default by client host. */
  readonly instanceFrom?: 'host' | 'client-id' | undefined;
  /** Capacity of an instance without load-aware userData: a number (default 1), or its member count. */
  readonly foreignCapacity?: number | 'members' | undefined;
  /** Sizing: what one member processes at 100% busy, in the weights' units; undefined for none. */
  readonly memberCapacity?: number | undefined;
  /** Sizing: the share of `memberCapacity` a member may use (default 0.7). */
  readonly targetUtilization?: number | undefined;
  /** Sizing what-if: the busiest member's utilization with this many members. */
  readonly whatIfMembers?: number | undefined;
  /** What a derived capacity and target came from, carried into the report. */
  readonly sizingBasis?: SizingBasis | undefined;
}

/** How many members the group needs at the measured weights (`--member-capacity`). */
export interface SizingReport {
  readonly memberCapacity: number;
  readonly targetUtilization: number;
  /** What the capacity (and the target, with a latency SLA) was derived from; undefined when stated. */
  readonly basis: SizingBasis | undefined;
  /** The busiest member's load now ÷ `memberCapacity`. */
  readonly busiestUtilizationNow: number;
  /** The fewest members (one an instance) whose placement keeps every member at the target. */
  readonly desiredMembers: number;
  /** The fewest instances of `membersPerInstance` members that do the same. */
  readonly desiredInstances: number;
  /** The most members any instance runs now: how instances are counted. */
  readonly membersPerInstance: number;
  /** A partition alone is heavier than a member's target load: more members cannot help. */
  readonly futile: boolean;
  /** Those partitions, heaviest first, with their weights. */
  readonly futilePartitions: ReadonlyArray<{ readonly partition: string; readonly weight: number }>;
  /** With `--members N`: the busiest member's utilization at N members, one an instance. */
  readonly whatIf: { readonly members: number; readonly busiestUtilization: number } | undefined;
  /**
   * The slowest member's lag ÷ (`memberCapacity` − its arrival rate), in seconds: when the group
   * has drained at this load; `never` when a member with lag receives at or above its capacity.
   */
  readonly drainSeconds: DrainTime;
  /** The member the drain waits for; undefined when no member has lag. */
  readonly slowest:
    | { readonly memberId: string; readonly instanceId: string; readonly arrivalRate: number; readonly lag: number }
    | undefined;
}

/** Where an instance id came from. */
export type InstanceSource = 'userData' | 'clientHost' | 'clientId';

/** One instance now, and in the proposal. */
export interface InstanceReport {
  readonly instanceId: string;
  /** Its rack (the members' `rack` option); undefined without one. */
  readonly rack: string | undefined;
  /** `userData`: the load-aware assignor's; `clientHost` / `clientId`: the member has none, grouped by host or client id. */
  readonly source: InstanceSource;
  readonly capacity: number;
  readonly memberIds: ReadonlyArray<string>;
  readonly partitions: number;
  readonly load: number;
  /** Of the group's total load. */
  readonly share: number;
  /** Load per unit of capacity ÷ ideal load. */
  readonly ratio: number;
  /** Sum over its partitions with a committed offset; undefined when none has one. */
  readonly lag: number | undefined;
  /** The largest lag in seconds of its members (lag ÷ arrival rate); undefined when none is known. */
  readonly lagSeconds: number | undefined;
  readonly proposed: { readonly partitions: number; readonly load: number; readonly ratio: number };
}

/** One member now. */
export interface MemberReport {
  readonly memberId: string;
  readonly clientId: string;
  readonly clientHost: string;
  readonly instanceId: string;
  /** The member's rack (its `rack` option); undefined without one. */
  readonly rack: string | undefined;
  readonly partitions: ReadonlyArray<string>;
  readonly load: number;
  readonly share: number;
  readonly lag: number | undefined;
  /** Time behind at the current arrival rate: its partitions' largest lag ÷ rate; undefined when none is known. */
  readonly lagSeconds: number | undefined;
  /** Its lag ÷ (`--member-capacity` − its arrival rate); `never` at or above it; undefined without a capacity. */
  readonly drainSeconds: DrainTime | undefined;
  /** What the member's last rebalance cost it, as it reported in its userData; undefined before one. */
  readonly lastPause: { readonly generation: number; readonly seconds: number; readonly cause: string } | undefined;
}

/** One partition the proposal moves. */
export interface Move {
  readonly partition: string;
  readonly weight: number;
  readonly from: { readonly memberId: string; readonly instanceId: string } | undefined;
  readonly to: { readonly memberId: string; readonly instanceId: string };
}

/** One partition: its weight, current owner and lag. */
export interface PartitionReport {
  readonly partition: string;
  /** The weight it counts with: the source's, or the default weight when `weighed` is false. */
  readonly weight: number;
  readonly weighed: boolean;
  /** Current owner; undefined when no member holds it. */
  readonly memberId: string | undefined;
  readonly lag: number | undefined;
  /** Lag ÷ its weight as a rate; 0 without lag; undefined without a commit, a rate or an owner. */
  readonly lagSeconds: number | undefined;
}

/** What `inspect` and `plan` print. */
export interface GroupReport {
  readonly groupId: string;
  readonly state: string;
  readonly protocol: string;
  readonly partitionCount: number;
  /** Partitions with a weight from the source; the others count with the default weight. */
  readonly weighed: number;
  readonly defaulted: number;
  readonly totalLoad: number;
  /**
   * 1 unless the weights' sum would overflow; then every load here is the source's weight times
   * this factor (`balance()` scales them the same way), so loads, shares and ratios agree.
   */
  readonly weightScale: number;
  /** Load per unit of capacity if spread perfectly (`balance()`'s `idealLoad`). */
  readonly idealLoad: number;
  /** The current busiest instance's load per unit of capacity ÷ the ideal load (1 when no load). */
  readonly ratio: number;
  /** The same for the proposal. */
  readonly proposedRatio: number;
  /**
   * The member ratio the trigger judges (its `memberImbalance`): the largest, over instances with
   * two members or more, of the busiest member's load now ÷ after `balance()` re-places that
   * instance's partitions among its members; 1 with `instanceId` undefined when none was judged.
   */
  readonly memberRatio: { readonly ratio: number; readonly instanceId: string | undefined };
  /** Members without load-aware userData, grouped into instances by client host. */
  readonly membersWithoutUserData: number;
  readonly totalLag: number | undefined;
  /** The largest lag in seconds of any held partition (time behind at the current arrival rate). */
  readonly lagSeconds: number | undefined;
  /**
   * Held partitions left out of the lag (`no_commit`: the group committed nothing there) or of
   * its seconds (`no_rate`: messages wait and the weight, read as a rate, is 0 or unmeasured).
   */
  readonly lagUnmeasured: Readonly<Record<LagUnmeasured, number>>;
  readonly instances: ReadonlyArray<InstanceReport>;
  readonly members: ReadonlyArray<MemberReport>;
  /** Every partition weighed, in topic and partition order. */
  readonly partitions: ReadonlyArray<PartitionReport>;
  readonly moves: ReadonlyArray<Move>;
  /** Subscribed or held topics the cluster does not know; left out of every figure. */
  readonly missingTopics: ReadonlyArray<string>;
  /**
   * Share of the load fetched across racks now and in the proposal, and the least share any
   * placement as balanced as the proposal reaches; undefined when no member has a rack.
   */
  readonly crossRack: { readonly now: number; readonly proposed: number; readonly lowerBound: number } | undefined;
  /** How many members the group needs; undefined without `memberCapacity`. */
  readonly sizing: SizingReport | undefined;
}

/** Prefix of the instance id given to a member without load-aware userData. */
export const HOST_INSTANCE_PREFIX = 'host:';

/** Prefix of the instance id given to a member without load-aware userData, by client id. */
export const CLIENT_INSTANCE_PREFIX = 'client:';

/**
 * Refuses groups there is nothing to judge in, with a message that says why.
 *
 * @throws {@link CliError} for a dead (or unknown) group, an empty one, or one in a rebalance.
 */
export function checkGroup(group: ObservedGroup): void {
  if (group.state === 'Dead') throw new CliError(`group '${group.groupId}' does not exist (state Dead)`);
  if (group.members.length === 0) {
    throw new CliError(`group '${group.groupId}' has no members (state ${group.state})`);
  }
  // DescribeGroups returns members' metadata and assignments only while the group is Stable.
  if (group.state !== 'Stable') {
    throw new CliError(`group '${group.groupId}' is rebalancing (state ${group.state}); try again`);
  }
}

/**
 * Computes the report. Members without load-aware userData (another assignor's group, or an old
 * version) are grouped into instances by client host, since that is where they share a machine.
 *
 * @throws {@link CliError} when the source gave no usable weight for any partition.
 */
export function buildReport(snapshot: GroupSnapshot, options: PlanOptions = {}): GroupReport {
  const { group } = snapshot;
  checkGroup(group);
  const loadAware = new Set(group.loadAwareMemberIds);
  const byClientId = options.instanceFrom === 'client-id';
  const missing = new Set(snapshot.missingTopics ?? []);
  const grouped: ObservedMember[] = group.members.map((m) =>
    withoutTopics(
      loadAware.has(m.memberId) ? m : { ...m, instanceId: foreignInstanceId(snapshot.clients, m.memberId, byClientId) },
      missing,
    ),
  );
  const members = withForeignCapacity(grouped, loadAware, options.foreignCapacity ?? 1);
  const source = new Map(members.map((m) => [m.instanceId, instanceSource(loadAware, m, byClientId)]));

  const defaultWeight = DEFAULT_PARTITION_WEIGHT;
  const weights = resolveWeights(members, withWeights(snapshot.partitions, snapshot.weights), defaultWeight);
  if (weights.usableCount === 0) {
    throw new CliError(
      `no weights: the weight source measured none of the group's ${String(weights.partitions.length)} partitions`,
    );
  }
  const planOptions = {
    defaultWeight,
    moveTolerance: options.moveTolerance,
    maxMovesPerRebalance: options.maxMovesPerRebalance,
  };
  const { plan, currentMaxLoad } = planFromCurrent(members, weights, planOptions);
  // The trigger's own rule, with the same options, so inspect shows the ratio it fires on.
  const member = memberImbalance(members, weights, planOptions);
  const { idealLoad } = plan;
  // The plan's units: identical to the source's unless balance() scaled weights against overflow.
  const weightOf = (p: TopicPartition) => weights.weightOf(p) * plan.weightScale;
  const ratioOf = (loadPerCapacity: number) => (idealLoad > 0 ? loadPerCapacity / idealLoad : 1);
  const total = plan.totalWeight;
  const shareOf = (load: number) => (total > 0 ? load / total : 0);
  const lagOf = (held: ReadonlyArray<TopicPartition>) =>
    sumDefined(held.map((p) => snapshot.lags.get(keyOfPartition(p))));
  // Seconds and drain from the source's own rates: its weights before any scaling, unmeasured
  // ones as nothing. Every held partition was read: one missing from the lags has no commit.
  const lag = groupLag({
    members,
    lags: members.flatMap((m) => m.assigned.map((p) => ({ ...p, lag: snapshot.lags.get(keyOfPartition(p)) }))),
    rates: weights.partitions,
    memberCapacity: options.memberCapacity,
  });
  const lagOfMember = new Map(lag.members.map((m) => [m.memberId, m]));

  const memberReports: MemberReport[] = members
    .map((m) => {
      const load = sum(m.assigned.map(weightOf));
      const client = snapshot.clients.get(m.memberId);
      return {
        memberId: m.memberId,
        clientId: client?.clientId ?? '',
        clientHost: client?.clientHost ?? '',
        instanceId: m.instanceId,
        rack: m.rack,
        partitions: m.assigned.map(partitionLabel).sort(compareLabels),
        load,
        share: shareOf(load),
        lag: lagOf(m.assigned),
        lagSeconds: lagOfMember.get(m.memberId)?.lagSeconds,
        drainSeconds: lagOfMember.get(m.memberId)?.drainSeconds,
        lastPause:
          m.lastPause === undefined
            ? undefined
            : { generation: m.lastPause.generation, seconds: m.lastPause.pauseMs / 1000, cause: m.lastPause.cause },
      };
    })
    .sort((a, b) => a.instanceId.localeCompare(b.instanceId) || a.memberId.localeCompare(b.memberId));

  const capacity = instanceCapacities(members);
  const proposed = new Map(plan.instances.map((i) => [i.instanceId, i]));
  const instances: InstanceReport[] = [...capacity.keys()].sort().map((instanceId) => {
    const own = members.filter((m) => m.instanceId === instanceId);
    const held = own.flatMap((m) => m.assigned);
    const load = sum(held.map(weightOf));
    const cap = capacity.get(instanceId)!;
    const after = proposed.get(instanceId);
    return {
      instanceId,
      rack: after?.rack,
      source: source.get(instanceId)!,
      capacity: cap,
      memberIds: own.map((m) => m.memberId).sort(),
      partitions: held.length,
      load,
      share: shareOf(load),
      ratio: ratioOf(load / cap),
      lag: lagOf(held),
      lagSeconds: maxDefined(own.map((m) => lagOfMember.get(m.memberId)?.lagSeconds)),
      proposed: {
        partitions: after?.partitionCount ?? 0,
        load: after?.load ?? 0,
        ratio: ratioOf((after?.load ?? 0) / cap),
      },
    };
  });

  return {
    groupId: group.groupId,
    state: group.state,
    protocol: group.protocol,
    partitionCount: weights.partitions.length,
    weighed: weights.usableCount,
    defaulted: weights.partitions.length - weights.usableCount,
    totalLoad: total,
    weightScale: plan.weightScale,
    idealLoad,
    ratio: ratioOf(currentMaxLoad),
    proposedRatio: ratioOf(plan.maxInstanceLoad),
    memberRatio: { ratio: member.ratio, instanceId: member.instanceId },
    membersWithoutUserData: members.length - loadAware.size,
    totalLag: sumDefined([...snapshot.lags.values()]),
    lagSeconds: lag.lagSeconds,
    lagUnmeasured: lag.unmeasured,
    instances,
    members: memberReports,
    partitions: partitionsOf(members, weights.partitions, weightOf, snapshot.lags, lag),
    moves: movesOf(members, plan.assignments, weightOf),
    missingTopics: [...missing].sort(),
    crossRack: crossRackOf(members, weights.partitions, plan, weightOf),
    sizing: sizingOf(
      options,
      weights.partitions,
      (p) => weights.weightOf(p),
      plan.weightScale,
      memberReports,
      instances,
      lag,
    ),
  };
}

/**
 * The group's size at the measured weights (`sizeGroup()`), in the source's own units, with
 * instances counted as the group runs them now: as many members each as the largest instance.
 */
function sizingOf(
  options: PlanOptions,
  partitions: ReadonlyArray<WeightedPartition>,
  weightOf: (p: TopicPartition) => number,
  weightScale: number,
  members: ReadonlyArray<MemberReport>,
  instances: ReadonlyArray<InstanceReport>,
  lag: GroupLag,
): SizingReport | undefined {
  const memberCapacity = options.memberCapacity;
  if (memberCapacity === undefined) return undefined;
  const targetUtilization = options.targetUtilization ?? DEFAULT_TARGET_UTILIZATION;
  const membersPerInstance = Math.max(1, ...instances.map((i) => i.memberIds.length));
  // Sizing works in the source's units; member loads are in the plan's (× weightScale).
  const measured = partitions.map((p) => ({ topic: p.topic, partition: p.partition, weight: weightOf(p) }));
  const size = sizeGroup({ partitions: measured, memberCapacity, targetUtilization, membersPerInstance });
  const whatIf =
    options.whatIfMembers === undefined
      ? undefined
      : {
          members: options.whatIfMembers,
          busiestUtilization: placementAt(measured, options.whatIfMembers, 1, memberCapacity).busiestUtilization,
        };
  return {
    memberCapacity,
    targetUtilization,
    basis: options.sizingBasis,
    busiestUtilizationNow: Math.max(0, ...members.map((m) => m.load)) / weightScale / memberCapacity,
    desiredMembers: size.desiredMembers,
    desiredInstances: size.desiredInstances,
    membersPerInstance,
    futile: size.futile,
    futilePartitions: size.futilePartitions.map((p) => ({ partition: partitionLabel(p), weight: p.weight })),
    whatIf,
    // Measured with this capacity, so never undefined here.
    drainSeconds: lag.drainSeconds ?? 0,
    slowest:
      lag.slowest === undefined
        ? undefined
        : {
            memberId: lag.slowest.memberId,
            instanceId: lag.slowest.instanceId,
            arrivalRate: lag.slowest.arrivalRate,
            lag: lag.slowest.lag,
          },
  };
}

/**
 * Cross-rack shares now (each member judged by its instance's rack, as `balance()` judges it) and
 * in the proposal; undefined when no instance has a rack.
 */
function crossRackOf(
  members: ReadonlyArray<ObservedMember>,
  partitions: ReadonlyArray<WeightedPartition>,
  plan: BalanceResult,
  weightOf: (p: TopicPartition) => number,
): GroupReport['crossRack'] {
  const rackOf = new Map(
    plan.instances.flatMap((i) => (i.rack === undefined ? [] : [[i.instanceId, i.rack] as const])),
  );
  if (rackOf.size === 0) return undefined;
  const racksOf = new Map(partitions.map((p) => [keyOfPartition(p), p.racks ?? []]));
  let now = 0;
  for (const m of members) {
    const rack = rackOf.get(m.instanceId);
    if (rack === undefined) continue;
    for (const p of m.assigned) {
      const racks = racksOf.get(keyOfPartition(p)) ?? [];
      if (racks.length > 0 && !racks.includes(rack)) now += weightOf(p);
    }
  }
  const total = plan.totalWeight;
  const share = (w: number): number => (total > 0 ? w / total : 0);
  return { now: share(now), proposed: share(plan.crossRackWeight), lowerBound: share(plan.crossRackLowerBound) };
}

/**
 * Members without load-aware userData carry no capacity: give theirs from the option, the same
 * to every member of an instance (the assignor takes an instance's largest).
 */
function withForeignCapacity(
  members: ReadonlyArray<ObservedMember>,
  loadAware: ReadonlySet<string>,
  capacity: number | 'members',
): ObservedMember[] {
  const memberCount = new Map<string, number>();
  for (const m of members) memberCount.set(m.instanceId, (memberCount.get(m.instanceId) ?? 0) + 1);
  return members.map((m) =>
    loadAware.has(m.memberId)
      ? m
      : { ...m, capacity: capacity === 'members' ? memberCount.get(m.instanceId)! : capacity },
  );
}

/**
 * The member without the topics the cluster does not know: a deleted topic may linger in
 * subscriptions, and in assignments until the next rebalance.
 */
function withoutTopics(member: ObservedMember, topics: ReadonlySet<string>): ObservedMember {
  if (topics.size === 0) return member;
  return {
    ...member,
    topics: member.topics.filter((t) => !topics.has(t)),
    assigned: member.assigned.filter((p) => !topics.has(p.topic)),
  };
}

function partitionsOf(
  members: ReadonlyArray<ObservedMember>,
  partitions: ReadonlyArray<WeightedPartition>,
  weightOf: (p: TopicPartition) => number,
  lags: ReadonlyMap<string, number>,
  lag: GroupLag,
): PartitionReport[] {
  const owner = new Map<string, string>();
  for (const m of members) for (const p of m.assigned) owner.set(keyOfPartition(p), m.memberId);
  const seconds = new Map(lag.members.flatMap((m) => m.partitions.map((p) => [keyOfPartition(p), p.lagSeconds])));
  return partitions
    .map((p) => ({
      partition: partitionLabel(p),
      weight: weightOf(p),
      weighed: isUsableWeight(p.weight),
      memberId: owner.get(keyOfPartition(p)),
      lag: lags.get(keyOfPartition(p)),
      lagSeconds: seconds.get(keyOfPartition(p)),
    }))
    .sort((a, b) => compareLabels(a.partition, b.partition));
}

/** Partitions whose proposed owner differs from the current one, heaviest first. */
function movesOf(
  members: ReadonlyArray<ObservedMember>,
  proposed: ReadonlyMap<string, ReadonlyArray<TopicPartition>>,
  weightOf: (p: TopicPartition) => number,
): Move[] {
  const instanceOf = new Map(members.map((m) => [m.memberId, m.instanceId]));
  const owner = new Map<string, string>();
  for (const m of members) for (const p of m.assigned) owner.set(keyOfPartition(p), m.memberId);
  const moves: Move[] = [];
  for (const [memberId, partitions] of proposed) {
    for (const p of partitions) {
      const from = owner.get(keyOfPartition(p));
      if (from === memberId) continue;
      moves.push({
        partition: partitionLabel(p),
        weight: weightOf(p),
        from: from === undefined ? undefined : { memberId: from, instanceId: instanceOf.get(from)! },
        to: { memberId, instanceId: instanceOf.get(memberId)! },
      });
    }
  }
  return moves.sort((a, b) => b.weight - a.weight || compareLabels(a.partition, b.partition));
}

function hostOf(clients: ReadonlyMap<string, MemberClient>, memberId: string): string {
  // KafkaJS and the Java client report the host as "/10.0.0.1".
  return (clients.get(memberId)?.clientHost ?? 'unknown').replace(/^\//, '');
}

/** The instance of a member without load-aware userData: its client host, or its client id. */
function foreignInstanceId(clients: ReadonlyMap<string, MemberClient>, memberId: string, byClientId: boolean): string {
  return byClientId
    ? CLIENT_INSTANCE_PREFIX + (clients.get(memberId)?.clientId ?? 'unknown')
    : HOST_INSTANCE_PREFIX + hostOf(clients, memberId);
}

function instanceSource(loadAware: ReadonlySet<string>, m: ObservedMember, byClientId: boolean): InstanceSource {
  if (loadAware.has(m.memberId)) return 'userData';
  return byClientId ? 'clientId' : 'clientHost';
}

/** "topic:10" after "topic:9". */
function compareLabels(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

function sum(values: ReadonlyArray<number>): number {
  return values.reduce((s, v) => s + v, 0);
}

function maxDefined(values: ReadonlyArray<number | undefined>): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
}

function sumDefined(values: ReadonlyArray<number | undefined>): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : sum(known);
}
