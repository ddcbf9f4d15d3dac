/**
 * What the demo's parent and its instance processes say to each other: the parent starts each
 * instance with a JSON {@link InstanceSpec} in argv, the instance answers with one JSON
 * {@link InstanceEvent} per stdout line. Its stdin is a lifeline: when it closes, the instance
 * disconnects and exits.
 */
import type { FastPreset } from '@load-aware/integration-tests/fast-preset';

/** The "fast preset" of load-aware: short windows so a demo shows it within a minute. */
export type { FastPreset };

/**
 * Which assigner the consumers of a phase run. The sustainable-throughput stage only, each a
 * fixed plan held by a pinned assigner (pinned-assigner.ts): `oracle`, the best static
 * assignment (oracle.ts); `load-aware-pinned`, the plan load-aware's `balance()` makes of the
 * workload's exact rates, which tells its plan apart from how it runs live (measured weights,
 * trigger, rebalances).
 */
export type AssignerKind = 'round-robin' | 'load-aware' | 'oracle' | 'load-aware-pinned';

/** The assigners that hold a fixed plan. */
export type PinnedKind = Extract<AssignerKind, 'oracle' | 'load-aware-pinned'>;

/** Whether `assigner` holds a fixed plan. */
export function isPinned(assigner: AssignerKind): assigner is PinnedKind {
  return assigner === 'oracle' || assigner === 'load-aware-pinned';
}

/** Which Kafka client the instance processes run (`--client`). */
export type ClientKind = 'kafkajs' | 'platformatic';

/** What the parent asks one instance process to run. */
export interface InstanceSpec {
  /**
   * `platformatic`: @platformatic/kafka consumers (instance-platformatic-main.ts: platformatic's
   * round-robin, or `@load-aware/platformatic`); absent: KafkaJS consumers.
   */
  client?: ClientKind;
  brokers: string[];
  groupId: string;
  topic: string;
  /** Partitions of the topic; load-aware samples their rates from the start. */
  partitions: number;
  instanceId: string;
  /** KafkaJS consumers (group members) in this process. */
  members: number;
  assigner: AssignerKind;
  /** Fixed latency of each message (simulated I/O); members process their messages one at a time. */
  workMs: number;
  /** CPU burnt per message on top of the latency. */
  cpuMs: number;
  /** How often a `stats` line is printed. */
  statsIntervalMs: number;
  /** Safety net: the process exits after this long even if the parent never closes stdin. */
  lifetimeMs: number;
  /** Small fetches keep batches short, so a rebalance never waits long for a busy member. */
  maxBytesPerPartition: number;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  preset: FastPreset;
  /**
   * load-aware only. true (the demo): sample every partition from process start and wait up to
   * 5 s for their first rates before joining. false (the README's wiring, the rolling-restart
   * benchmark): the weight source samples only what an assignment or the trigger asked for, so
   * a process that never led has no rates when it first leads.
   */
  trackAllPartitions: boolean;
  /**
   * load-aware only: join as static members (KIP-345) with group instance ids derived from
   * `instanceId`, so a restarted process takes its members' places back within
   * `sessionTimeoutMs` without a rebalance. SIGTERM is then a deploy restart (disconnect, no
   * LeaveGroup); a closed stdin or the lifetime's end leaves the group (the process is gone for
   * good). Absent: dynamic members, as KafkaJS joins.
   */
  staticMembership?: boolean;
  /** `oracle` only: member slot (by member id) → partitions, handed out as is by every leader. */
  pinnedPlan?: number[][];
  /** JoinGroup's rebalance timeout; absent: `sessionTimeoutMs` (the demo's wiring). */
  rebalanceTimeoutMs?: number;
  /**
   * When set, `stats` lines also say where processing paused for longer than this (per member
   * and for the whole process), when the process processed its first message, and which offsets
   * it processed (for lost and duplicate counts). Absent: the demo's plain stats lines.
   */
  pauseThresholdMs?: number;
}

/** A stretch without a processed message, in wall-clock ms. */
export interface ProcessingPause {
  /** The last message before it, or the moment the process was ready. */
  from: number;
  /** The next message; for an open pause, the time of the stats line that reported it. */
  to: number;
  /** Still going when reported: a later line may report it again with a later `to`. */
  open?: true;
}

/** What a `stats` line adds with {@link InstanceSpec.pauseThresholdMs}. */
export interface ProcessingReport {
  /** Pauses longer than the threshold, per member (index in creation order). */
  memberPauses: Array<ProcessingPause & { member: number }>;
  /** Pauses longer than the threshold with no member of the process processing anything. */
  instancePauses: ProcessingPause[];
  /** Longest stretch without a message of the process that ended since the previous line (ms), any length. */
  longestGapMs: number;
  /** When this process processed its first message (wall clock ms); absent before that. */
  firstProcessedAt?: number;
  /** Partition → offset ranges `[from, to)` processed since the previous line, in order. */
  processed: Record<string, Array<[number, number]>>;
}

/** A line an instance process prints. `at` is the wall clock in ms. */
export type InstanceEvent =
  | { event: 'ready'; instanceId: string; at: number }
  | {
      /** Once a member heartbeats with a new generation: what it was given when it joined. */
      event: 'generation';
      instanceId: string;
      memberId: string;
      generationId: number;
      isLeader: boolean;
      /** The member's group instance id when it joined as a static member. */
      groupInstanceId?: string;
      joinedAt: number;
      partitions: number[];
      at: number;
    }
  | {
      event: 'stats';
      instanceId: string;
      /** Messages processed since the previous `stats` line. */
      consumed: number;
      /** Partition → next offset to process, for every partition this process has processed. */
      offsets: Record<string, number>;
      /** Partitions the members of this process hold now. */
      assigned: number[];
      /** With {@link InstanceSpec.pauseThresholdMs} only. */
      processing?: ProcessingReport;
      at: number;
    }
  | {
      /** The leader computed an assignment (round-robin timed by a wrapper, load-aware from its log). */
      event: 'assignment';
      instanceId: string;
      result: string;
      durationMs: number;
      /** load-aware: partitions without a usable weight (given the default), from the same log line. */
      defaulted?: number;
      at: number;
    }
  | {
      /** load-aware: the leader's "moves" log line, right after its assignment line. */
      event: 'placement';
      instanceId: string;
      /** Partitions it placed on another member than its memory's previous owner. */
      moved: number;
      /** Partitions whose previous owner its memory knew. */
      previouslyOwned: number;
      at: number;
    }
  | { event: 'trigger'; instanceId: string; message: string; at: number }
  | { event: 'warn'; instanceId: string; message: string; at: number };
