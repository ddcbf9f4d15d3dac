/**
 * What the demo's parent and its instance processes say to each other: the parent starts each
 * instance with a JSON {@link InstanceSpec} in argv, the instance answers with one JSON
 * {@link InstanceEvent} per stdout line. Its stdin is a lifeline: when it closes, the instance
 * disconnects and exits.
 */
import type { FastPreset } from '@load-aware/integration-tests/fast-preset';

/** The "fast preset" of load-aware: short windows so a demo shows it within a minute. */
export type { FastPreset };

/** Which assigner the consumers of a phase run. */
export type AssignerKind = 'round-robin' | 'load-aware';

/** What the parent asks one instance process to run. */
export interface InstanceSpec {
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
