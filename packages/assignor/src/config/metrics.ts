import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { SiblingReading } from '../inputs/sibling-groups.js';

/** What the assignor records after each assignment. */
export interface AssignorMetrics {
  /** Counts one assignment by result. */
  assignment(groupId: string, result: 'load_aware' | 'fallback', durationSeconds: number): void;
  /** Records the shape of a load-aware assignment. */
  quality(groupId: string, defaultedWeights: number, maxLoadToIdeal: number): void;
  /** Records how close a load-aware assignment is to optimal and how many partitions it moved. */
  placement(groupId: string, optimalityRatio: number, movedPartitions: number): void;
  /**
   * Records the share of the group's load fetched across racks in the last assignment (0–1), and
   * the least share possible at that balance. Not set for groups whose members have no rack.
   */
  racks(groupId: string, crossRackShare: number, crossRackShareLowerBound: number): void;
  /** Records a cross-group assignment: the combined load ratio and how each sibling counted. */
  crossGroup(groupId: string, combinedLoadRatio: number, siblings: ReadonlyArray<SiblingReading>): void;
  /** Counts a static consumer of this process fenced by another process with its group instance id. */
  fenced(groupId: string): void;
  /** Records what one rebalance cost one consumer of this process: how long it processed nothing. */
  pause(groupId: string, cause: string, seconds: number): void;
  /** The leader's view: the group's paused member-seconds in the latest rebalance members reported. */
  groupPause(groupId: string, pausedMemberSeconds: number): void;
  /** Records whether one KafkaJS internal the assignor reaches was found (see the seam's catalogue). */
  kafkaJsInternal(internal: string, missing: boolean): void;
}

/** Metrics that go nowhere, for when no registry is given. */
const noopMetrics: AssignorMetrics = {
  assignment: () => undefined,
  quality: () => undefined,
  placement: () => undefined,
  racks: () => undefined,
  crossGroup: () => undefined,
  fenced: () => undefined,
  pause: () => undefined,
  groupPause: () => undefined,
  kafkaJsInternal: () => undefined,
};

/**
 * Creates the assignor's metrics on `registry`, or reuses them when another assignor already
 * registered them there (two consumers of one process share one registry). Label `group` only:
 * member ids would make the series unbounded.
 */
export function createAssignorMetrics(registry: Registry | undefined): AssignorMetrics {
  if (registry === undefined) return noopMetrics;
  const assignments = reuse(
    registry,
    'load_aware_assignments_total',
    (name) =>
      new Counter({
        name,
        help: 'Assignments computed by this member as group leader, by result (load_aware or fallback).',
        labelNames: ['group', 'result'],
        registers: [registry],
      }),
  );
  const duration = reuse(
    registry,
    'load_aware_assignment_duration_seconds',
    (name) =>
      new Histogram({
        name,
        help: 'Time to compute one assignment, weights included.',
        labelNames: ['group'],
        buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
  );
  const defaulted = reuse(
    registry,
    'load_aware_defaulted_weights',
    (name) =>
      new Gauge({
        name,
        help: 'Partitions without a usable weight in the last assignment (given the default weight).',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const crossRack = reuse(
    registry,
    'load_aware_cross_rack_load_ratio',
    (name) =>
      new Gauge({
        name,
        help: 'Share of the group load on members outside every rack holding a replica (fetched across racks), last assignment.',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const crossRackBound = reuse(
    registry,
    'load_aware_cross_rack_load_ratio_lower_bound',
    (name) =>
      new Gauge({
        name,
        help: 'Least share of the group load any placement as balanced as the last one fetches across racks.',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const maxLoad = reuse(
    registry,
    'load_aware_max_instance_load_ratio',
    (name) =>
      new Gauge({
        name,
        help: 'Max instance load (per unit of capacity) divided by the ideal even share, last assignment.',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const optimality = reuse(
    registry,
    'load_aware_optimality_ratio',
    (name) =>
      new Gauge({
        name,
        help: 'Max instance load (per unit of capacity) divided by a lower bound no placement can beat, last assignment; 1 is provably optimal.',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const moved = reuse(
    registry,
    'load_aware_partitions_moved',
    (name) =>
      new Gauge({
        name,
        help: 'Partitions that changed owner in the last assignment, compared with the previous assignment this leader computed.',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const movedTotal = reuse(
    registry,
    'load_aware_partitions_moved_total',
    (name) =>
      new Counter({
        name,
        help: 'Partitions that changed owner, summed over the assignments this member computed as leader.',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const combined = reuse(
    registry,
    'load_aware_combined_load_ratio',
    (name) =>
      new Gauge({
        name,
        help: 'Cross-group: max combined instance load (this group plus the load its instances carry from the other groups, per unit of capacity) divided by the combined ideal, last assignment.',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const siblingReads = reuse(
    registry,
    'load_aware_sibling_group_reads_total',
    (name) =>
      new Counter({
        name,
        help: 'Cross-group: sibling groups read by this leader, by how they counted (stable: read now; stale: a recent Stable reading stood in; left_out: not counted).',
        labelNames: ['group', 'sibling', 'status'],
        registers: [registry],
      }),
  );
  const fenced = reuse(
    registry,
    'load_aware_static_members_fenced_total',
    (name) =>
      new Counter({
        name,
        help: 'Static membership: consumers of this process stopped because another process joined with their group instance id.',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const pauses = reuse(
    registry,
    'load_aware_rebalance_pause_seconds',
    (name) =>
      new Histogram({
        name,
        help: 'Per consumer and rebalance: how long the consumer processed nothing, from KafkaJS leaving its fetch loop for the rebalance to its first batch after it, by the leader-reported cause.',
        labelNames: ['group', 'cause'],
        buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60],
        registers: [registry],
      }),
  );
  const groupPaused = reuse(
    registry,
    'load_aware_rebalance_paused_member_seconds',
    (name) =>
      new Gauge({
        name,
        help: "Leader: the group's paused member-seconds (sum of every member's pause) in the latest rebalance its members reported.",
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const internalMissing = reuse(
    registry,
    'load_aware_kafkajs_internal_missing',
    (name) =>
      new Gauge({
        name,
        help: 'KafkaJS internals the assignor reaches: 1 when the installed KafkaJS lacks this one (an ERROR names the features lost), 0 when it was found.',
        labelNames: ['internal'],
        registers: [registry],
      }),
  );
  return {
    kafkaJsInternal(internal, missing) {
      internalMissing.set({ internal }, missing ? 1 : 0);
    },
    fenced(group) {
      fenced.inc({ group });
    },
    pause(group, cause, seconds) {
      pauses.observe({ group, cause }, seconds);
    },
    groupPause(group, pausedMemberSeconds) {
      groupPaused.set({ group }, pausedMemberSeconds);
    },
    crossGroup(group, combinedLoadRatio, siblings) {
      combined.set({ group }, combinedLoadRatio);
      for (const s of siblings) siblingReads.inc({ group, sibling: s.groupId, status: s.status });
    },
    assignment(group, result, durationSeconds) {
      assignments.inc({ group, result });
      duration.observe({ group }, durationSeconds);
    },
    quality(group, defaultedWeights, maxLoadToIdeal) {
      defaulted.set({ group }, defaultedWeights);
      maxLoad.set({ group }, maxLoadToIdeal);
    },
    racks(group, share, bound) {
      crossRack.set({ group }, share);
      crossRackBound.set({ group }, bound);
    },
    placement(group, optimalityRatio, movedPartitions) {
      optimality.set({ group }, optimalityRatio);
      moved.set({ group }, movedPartitions);
      movedTotal.inc({ group }, movedPartitions);
    },
  };
}

/**
 * Returns the metric `name` already registered on `registry`, or creates it. Lets several
 * assigners, samplers or triggers of one process share a registry without "already registered"
 * errors.
 */
export function reuse<T>(registry: Registry, name: string, create: (name: string) => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create(name);
}
