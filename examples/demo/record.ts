/**
 * What one phase of the demo records: plain data, written to result.json as is and read by the
 * analysis, the chart and the live view. Times `t` are seconds since the phase's consumers were
 * started.
 */
import type { AssignerKind } from './protocol.js';

/** One instance at one sample. */
export interface InstanceSample {
  /** Messages/s processed, over the instance's last stats interval. */
  consumedPerSec: number;
  /** Messages produced but not yet processed on the partitions it holds. */
  lag: number;
  /** Produce rate of the partitions it holds: the load it is asked to carry. */
  offeredPerSec: number;
  partitions: number;
  /** False while its process is stopped (the rolling-restart benchmark); it then holds nothing. */
  running: boolean;
}

/** The group at one sample (one per second). */
export interface Sample {
  t: number;
  producedPerSec: number;
  /** Lag over every partition, held or not. */
  totalLag: number;
  /** Partitions some instance reports holding; below the partition count during a rebalance. */
  assignedPartitions: number;
  instances: Record<string, InstanceSample>;
}

/** One generation of the group, as its members reported it after joining. */
export interface GenerationRecord {
  generationId: number;
  /** When the first member reported joining it. */
  t: number;
  leaderInstance: string | undefined;
  /** Member id of the leader (a restarted process has new member ids). */
  leaderMemberId: string | undefined;
  /**
   * `groupInstanceId`: static members only (KIP-345). A static member that comes back within its
   * session replaces its old member id in the same generation (no rebalance), so its entry here
   * is replaced too rather than added.
   */
  members: Array<{ memberId: string; instanceId: string; partitions: number[]; groupInstanceId?: string }>;
}

/** A static member that took its place back in the current generation, without a rebalance. */
export interface StaticRejoinRecord {
  t: number;
  instanceId: string;
  groupInstanceId: string;
  generationId: number;
  /** The partitions it got back were the ones its previous member id held. */
  samePartitions: boolean;
}

/** One assignment a leader computed. */
export interface AssignmentRecord {
  t: number;
  instanceId: string;
  result: string;
  durationMs: number;
  /** load-aware: partitions that had no usable weight and were given the default. */
  defaulted?: number;
  /** load-aware: partitions whose previous owner the leader's memory knew. */
  previouslyOwned?: number;
  /** load-aware: partitions it placed on another member than that previous owner. */
  movedFromKnownOwner?: number;
}

/** Everything measured in one phase. */
export interface PhaseRecord {
  assigner: AssignerKind;
  topic: string;
  groupId: string;
  startedAt: string;
  durationSeconds: number;
  moveAtSeconds: number;
  instances: Array<{ instanceId: string; members: number }>;
  partitions: number;
  eventsPerSecond: number;
  backlogMessages: number;
  producedMessages: number;
  consumedMessages: number;
  samples: Sample[];
  generations: GenerationRecord[];
  /** Each assignment a leader computed (round-robin timed around KafkaJS's own, load-aware from its log). */
  assignments: AssignmentRecord[];
  /** Times the load-aware trigger initiated a rebalance. */
  triggers: number[];
  warnings: Array<{ t: number; instanceId: string; message: string }>;
  /** Static members that rejoined without a rebalance (the rolling-restart benchmark's static run). */
  staticRejoins?: StaticRejoinRecord[];
  /** The CLI's `plan` at the end of the phase: busiest ÷ ideal then, and in the proposal. */
  cli?: { ratio: number; proposedRatio: number; moves: number };
}

/** The parts of a {@link PhaseRecord} that say what runs; everything observed starts empty. */
export type PhaseSetup = Pick<
  PhaseRecord,
  | 'assigner'
  | 'topic'
  | 'groupId'
  | 'startedAt'
  | 'durationSeconds'
  | 'moveAtSeconds'
  | 'instances'
  | 'partitions'
  | 'eventsPerSecond'
> &
  Partial<Pick<PhaseRecord, 'backlogMessages' | 'producedMessages'>>;

/** A record before anything was observed: no samples, generations, assignments or warnings. */
export function emptyPhaseRecord(setup: PhaseSetup): PhaseRecord {
  return {
    backlogMessages: 0,
    producedMessages: 0,
    ...setup,
    consumedMessages: 0,
    samples: [],
    generations: [],
    assignments: [],
    triggers: [],
    warnings: [],
  };
}
