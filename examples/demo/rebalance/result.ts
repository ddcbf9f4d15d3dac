/** What one run of the rebalance benchmark measured (result.json keeps every run). */
import type { MemberGapStats } from './analysis.js';
import type { PauseObservations } from './member-metrics.js';
import type { TimelineEntry } from './recorder.js';
import type { Cause } from './options.js';
import type { AssignerKind } from './protocol.js';
import type { TuningName } from './tuning.js';

/** One (cause, assigner, tuning) run on its own topic, group and processes. */
export interface RunResult {
  cause: Cause;
  assigner: AssignerKind;
  tuning: TuningName;
  repeat: number;
  topic: string;
  groupId: string;
  /** Whether the group settled (Stable, every partition held, steady) before the cause. */
  settled: boolean;
  causeAt: number;
  endAt: number;
  /** recovered: every member processed steadily again; limit: the window's time limit passed. */
  endReason: 'recovered' | 'limit';
  /** Members a, b and c (the ones present before and after the cause). */
  members: MemberGapStats[];
  groupLongestGapMs: number;
  pausedMemberSeconds: number;
  /** Generation changes in the window; undefined when no heartbeat preceded the cause. */
  rebalances: number | undefined;
  /** How the group formed: GROUP_JOIN events per member before the cause, and the generation at the cause. */
  formation: { joins: Record<string, number>; generation: number | undefined };
  /** GROUP_JOIN events per member after the cause. */
  joinsAfterCause: Record<string, number>;
  /** Each member's heartbeat phase at the cause (relative to a) and when its next one was due. */
  phases: Array<{ instanceId: string; phaseMs: number | undefined; dueInMs: number | undefined }>;
  /** metadata: ms from the cause to the first processed message of an added partition; null: not within the window. */
  addedFirstConsumedAfterMs?: number | null;
  /** coordinator: the stopped node, the node coordinating after, and topic partition leaders on the stopped node. */
  coordinator?: { stoppedNode: number; newCoordinator: number | undefined; leadersOnStoppedNode: number };
  /** Observations of `load_aware_rebalance_pause_seconds` in the window, over a, b, c; undefined: no such metric. */
  pauseHistogram?: PauseObservations | undefined;
  /** The producer's sends, and its longest gap between successful sends in the window (a stall of its own). */
  producer: { sent: number; failedSends: number; longestGapMs: number };
  /** Where the run's time went (ms): from the first start to settled, to the cause, to the window's end. */
  timings: { settleMs: number; causeMs: number; windowMs: number };
  notes: string[];
  /** Group events from 1 s before the cause to the window's end (ms after the cause). */
  timeline: TimelineEntry[];
}
