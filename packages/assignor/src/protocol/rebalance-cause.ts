/**
 * Why a group rebalanced, as the leader tells it. Only the leader can tell: it sees every member's
 * subscription and remembers the previous generation. It sends the cause to every member in its
 * assignment's userData, so each member can label the pause the rebalance cost it.
 */

/**
 * The causes. Their index is the code the leader sends (never reorder; append). The leader checks
 * them in the order of the list below {@link RebalanceCause}: the first that applies wins.
 */
export const REBALANCE_CAUSES = ['start', 'fire', 'metadata', 'join', 'leave', 'coordinator_move', 'unknown'] as const;

/**
 * Why a group rebalanced, in the order the leader checks:
 * - `start`: the group formed (no previous assignment known, no member reports owning anything);
 * - `metadata`: the subscribed topics or their partition counts changed;
 * - `fire`: a member's rebalance epoch went up (a proactive fire);
 * - `join`: a member id the previous generation did not have;
 * - `leave`: a member id of the previous generation is missing;
 * - `coordinator_move`: none of the above, and the member saw its group coordinator change just
 *   before (only members can tell: the leader answers `unknown` and each member refines it);
 * - `unknown`: nothing of the above.
 */
export type RebalanceCause = (typeof REBALANCE_CAUSES)[number];

/** What the leader knew of the previous generation, for {@link classifyRebalance}. */
export interface PreviousGeneration {
  readonly memberIds: ReadonlySet<string>;
  /** Member id → the epoch it advertised. */
  readonly epochs: ReadonlyMap<string, number>;
  /** Topic → partition count. */
  readonly partitionCounts: ReadonlyMap<string, number>;
}

/** The generation being assigned, as the leader decoded it. */
export interface CurrentGeneration {
  readonly members: ReadonlyArray<{ readonly memberId: string; readonly epoch: number }>;
  readonly partitionCounts: ReadonlyMap<string, number>;
  /** True when some member reports owning partitions: the group existed before this leader. */
  readonly ownersReported: boolean;
}

/** Classifies one rebalance; pure. */
export function classifyRebalance(
  previous: PreviousGeneration | undefined,
  current: CurrentGeneration,
): RebalanceCause {
  if (previous === undefined) return current.ownersReported ? 'unknown' : 'start';
  // Metadata first: added partitions make the trigger (or the leader's late metadata) bump an
  // epoch too, and what changed is the partitions.
  if (!sameCounts(previous.partitionCounts, current.partitionCounts)) return 'metadata';
  for (const m of current.members) {
    const before = previous.epochs.get(m.memberId);
    if (before !== undefined && before !== m.epoch) return 'fire';
  }
  if (current.members.some((m) => !previous.memberIds.has(m.memberId))) return 'join';
  const now = new Set(current.members.map((m) => m.memberId));
  if ([...previous.memberIds].some((id) => !now.has(id))) return 'leave';
  return 'unknown';
}

function sameCounts(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [topic, count] of a) if (b.get(topic) !== count) return false;
  return true;
}

/**
 * The leader's note in each member's assignment userData: "LA", a version byte, the cause's index
 * in {@link REBALANCE_CAUSES}. KafkaJS and other assigners ignore assignment userData.
 */
const NOTE_VERSION = 1;

/** Encodes the note the leader puts in every member's assignment. */
export function encodeAssignmentNote(cause: RebalanceCause): Buffer {
  return Buffer.from([0x4c, 0x41, NOTE_VERSION, REBALANCE_CAUSES.indexOf(cause)]);
}

/** The cause in an assignment's userData; undefined when there is no readable note. Never throws. */
export function decodeAssignmentNote(bytes: Buffer | null | undefined): RebalanceCause | undefined {
  if (!Buffer.isBuffer(bytes) || bytes.length < 4 || bytes[0] !== 0x4c || bytes[1] !== 0x41) return undefined;
  if (bytes[2]! < NOTE_VERSION) return undefined;
  return REBALANCE_CAUSES[bytes[3]!];
}
