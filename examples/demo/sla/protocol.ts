/**
 * What the latency-SLA benchmark's parent and its member processes say to each other: the
 * parent starts each process with a JSON {@link SlaProcessSpec} in argv, the process answers with
 * one JSON {@link SlaEvent} per stdout line. Its stdin is the parent's lifeline (instances.ts)
 * and carries {@link SlaCommand} lines.
 */
import type { FastPreset } from '@load-aware/integration-tests/fast-preset';
import type { Tallies } from './latency.js';
import type { SlaAssigner } from './plans.js';

/** What one process runs: some of the group's members, each its own KafkaJS consumer. */
export interface SlaProcessSpec {
  brokers: string[];
  groupId: string;
  topic: string;
  partitions: number;
  assigner: SlaAssigner;
  /** Group-wide numbers of the members this process runs; each is its own load-aware instance. */
  members: number[];
  /** Processing cost of one message, paced (pacer.ts): capacity 1000 / workMs messages/s. */
  workMs: number;
  slaMs: number;
  /** `sticky` only: slot → partitions, dealt by member id (pinned-assigner.ts). */
  pinnedPlan?: number[][];
  /** load-aware only: run the proactive trigger (packages/trigger) beside each member. */
  trigger: boolean;
  /** load-aware's offset-rate window and the trigger's settings. */
  preset: FastPreset;
  /** Messages/s one member processes, for the trigger's sizing and the sizing read-out. */
  memberRate: number;
  statsIntervalMs: number;
  /** Safety net: the process exits after this long even if the parent never closes stdin. */
  lifetimeMs: number;
}

/** A line the parent writes to a member process's stdin. */
export interface SlaCommand {
  /**
   * The group has formed: messages produced before this (epoch ms) are passed over at no cost,
   * those after it processed and timed. Before the first command, every message is passed over.
   */
  startAt: number;
}

/** A line a member process prints. `at` is the wall clock in ms. */
export type SlaEvent =
  | { event: 'ready'; at: number }
  | {
      /** A member joined a generation and was given `partitions`. */
      event: 'joined';
      member: number;
      partitions: number[];
      at: number;
    }
  | {
      /** Latencies of what the process processed since its previous line, by produce second. */
      event: 'stats';
      tallies: Tallies;
      /**
       * The p99 of the process's event-loop delay since its previous line, ms: how late its
       * timers ran. Past the pacer's catch-up (pacer.ts) the machine, not the assignment, is
       * holding the members back.
       */
      loopDelayP99Ms: number;
      at: number;
    }
  | {
      /**
       * load-aware only: what `sizeGroup` answers for the rates this process's weight source
       * measures, at the default target utilization.
       */
      event: 'sizing';
      desiredMembers: number;
      /**
       * What the trigger's `sizing: { latencySla, measured }` answers: the member capacity derived
       * from the process's busy time and the target the SLA allows at the work a message cost.
       * Undefined before a message was measured.
       */
      fromBusyTime:
        | { desiredMembers: number; memberCapacity: number; targetUtilization: number; secondsPerMessage: number }
        | undefined;
      at: number;
    }
  | { event: 'trigger'; message: string; at: number }
  | { event: 'warn'; message: string; at: number };
