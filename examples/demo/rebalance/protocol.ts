/**
 * What the rebalance benchmark's parent and its member processes say to each other. The parent
 * starts each member with a JSON {@link MemberSpec} in argv and sends {@link MemberCommand} lines
 * on its stdin; the member answers with one JSON {@link MemberEvent} per stdout line. stdin is
 * also the lifeline: when it closes, the member disconnects (LeaveGroup) and exits.
 */

/**
 * Which assigner the member's consumer runs: KafkaJS with `LoadAwareAssigner` or KafkaJS's
 * round-robin, or a @platformatic/kafka consumer with `@load-aware/platformatic` in eager or
 * cooperative mode (`--client platformatic`).
 */
export type AssignerKind = 'load-aware' | 'round-robin' | 'platformatic-eager' | 'platformatic-cooperative';

/** True for the kinds a @platformatic/kafka member runs. */
export function isPlatformatic(kind: AssignerKind): boolean {
  return kind === 'platformatic-eager' || kind === 'platformatic-cooperative';
}

/**
 * How a proactive fire is made. `background`: `bumpEpoch` + `startRebalance`, what the trigger
 * does (the fire's JoinGroup on a side connection, the member keeps processing). `immediate`:
 * `bumpEpoch` + `requestRejoin`, the firing member rejoins at once (the trigger's way before).
 * The parent passes the mode through unchanged.
 */
export type FireMode = 'background' | 'immediate';

/** The consumer settings a run compares (see tuning.ts). */
export interface ConsumerTuning {
  heartbeatInterval: number;
  maxWaitTimeInMs: number;
  sessionTimeout: number;
  rebalanceTimeout: number;
  /** undefined: KafkaJS's default (1 MB per partition, 10 MB per fetch). */
  maxBytesPerPartition: number | undefined;
  maxBytes: number | undefined;
}

/** How each message is made to cost time in the handler. */
export type WorkMode = 'sleep' | 'busy';

/** What the parent asks one member process to run. */
export interface MemberSpec {
  brokers: string[];
  groupId: string;
  topic: string;
  /** Also the KafkaJS client id, so round-robin orders members a, b, c, d. */
  instanceId: string;
  assigner: AssignerKind;
  tuning: ConsumerTuning;
  /**
   * Wall-clock ms at which `consumer.run()` is called (KafkaJS times heartbeats from there);
   * null: connect, then wait for a `run` command (a member that joins on cue).
   */
  runAt: number | null;
  workMs: number;
  workMode: WorkMode;
  fireMode: FireMode;
  /** load-aware: also attach the proactive trigger (checks every `triggerCheckIntervalMs`). */
  trigger: boolean;
  triggerCheckIntervalMs: number;
  /** How often processed timestamps are flushed to the parent. */
  flushIntervalMs: number;
  /** Safety net: the process exits after this long even if the parent never closes stdin. */
  lifetimeMs: number;
}

/** A command line the parent writes to a member's stdin. */
export type MemberCommand =
  /** Call `consumer.run()` now (a member started with `runAt: null`). */
  | { cmd: 'run' }
  | { cmd: 'fire'; mode: FireMode }
  /** Disconnect cleanly (LeaveGroup), report `left`, exit. */
  | { cmd: 'leave' }
  /** Report the pause histogram now (a `pauseMetric` line). */
  | { cmd: 'report' };

/** One series of the `load_aware_rebalance_pause_seconds` histogram: its labels, count and sum. */
export interface PauseSeries {
  labels: Record<string, string>;
  count: number;
  sumSeconds: number;
}

/** A line a member prints. `at` is the wall clock in ms (fractional). */
export type MemberEvent =
  | { event: 'connected'; instanceId: string; at: number }
  /** `consumer.run()` was called (for the joining member: the cause of the rebalance). */
  | { event: 'running'; instanceId: string; at: number }
  /** Messages processed since the last flush: finish times and their partitions, index by index. */
  | { event: 'processed'; instanceId: string; t: number[]; p: number[] }
  /** Every HEARTBEAT KafkaJS sent, with the generation it carried. */
  | { event: 'heartbeat'; instanceId: string; generationId: number; at: number }
  /** GROUP_JOIN: the member has its assignment of a new generation. */
  | { event: 'join'; instanceId: string; isLeader: boolean; partitions: number[]; at: number }
  /** REBALANCING: KafkaJS's runner saw a rebalance and is rejoining. */
  | { event: 'rebalancing'; instanceId: string; at: number }
  /** JoinGroup / SyncGroup / LeaveGroup requests, as KafkaJS's REQUEST events report them. */
  | { event: 'request'; instanceId: string; api: string; sentAt: number; durationMs: number }
  | { event: 'fired'; instanceId: string; mode: FireMode; epoch: number; asked: number; at: number }
  | { event: 'leaving'; instanceId: string; at: number }
  | { event: 'left'; instanceId: string; at: number }
  /** The pause histogram, or `available: false` when the assigner registers none. */
  | { event: 'pauseMetric'; instanceId: string; available: boolean; series: PauseSeries[]; at: number }
  | { event: 'crash'; instanceId: string; message: string; at: number }
  | { event: 'warn'; instanceId: string; message: string; at: number };
