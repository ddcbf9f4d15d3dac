import { AssignerProtocol, type GroupMember, type GroupMemberAssignment } from 'kafkajs';
import { Registry } from 'prom-client';
import { LoadAwareAssigner } from '@load-aware/assignor/internal';
import { recordingLogger } from '@load-aware/test-support';
import { buildMembers, fuzzCluster, fuzzSource, leaderTopicsOf, type Scenario } from './assign-scenarios.js';

/**
 * The contract of the leader's `assign()`, checked on one scenario: it resolves (never throws)
 * within its budget, with a valid assignment (every member present once; every partition of a
 * subscribed topic exactly once, only to a member subscribed to it), read back with KafkaJS's own
 * decoder; the round-robin fallback never itself fails (no ERROR log); and, when asked, a fresh
 * assigner given the same input answers the same bytes.
 */

/** What one checked `assign()` call came to. */
export interface CheckedRun {
  /** Broken promises, in words; empty when the run was fine. */
  readonly violations: string[];
  readonly elapsedMs: number;
  /** The budget the run was held to: weightsTimeoutMs, twice when metadata hangs as well. */
  readonly budgetMs: number;
  readonly fallback: boolean;
  readonly errorLogs: number;
}

/** How strictly a run is judged. */
export interface CheckOptions {
  /** Allowed on top of the budget: scheduling, not work (see the callers for their values). */
  readonly slackMs: number;
  /** Also run a fresh assigner on the same input and compare the bytes. */
  readonly determinism: boolean;
}

/** Runs `assign()` on the scenario with a fresh assigner and checks everything it promises. */
export async function checkScenario(s: Scenario, options: CheckOptions): Promise<CheckedRun> {
  const violations: string[] = [];
  const first = await runOnce(s);
  if (first.thrown !== undefined) {
    violations.push(`assign() threw: ${describeThrown(first.thrown)}`);
    return { violations, elapsedMs: first.elapsedMs, budgetMs: budgetOf(s), fallback: false, errorLogs: 0 };
  }
  const budgetMs = budgetOf(s);
  if (first.elapsedMs > budgetMs + options.slackMs) {
    violations.push(`took ${first.elapsedMs.toFixed(0)} ms, budget ${String(budgetMs)} + ${String(options.slackMs)}`);
  }
  if (first.errorLogs > 0) violations.push(`${String(first.errorLogs)} ERROR logs (the fallback failed)`);
  violations.push(...assignmentViolations(first.result!, first.members, leaderTopicsOf(s), first.visible));
  // A source that answers 30 ms after its budget races the budget's timer: on a loaded machine
  // Node can run both timers in one pass, the later list first, so whether the late answer
  // counts is timing, not input. Every other scenario must give the same bytes again.
  if (options.determinism && s.source.kind !== 'late') {
    const second = await runOnce(s);
    if (second.thrown !== undefined) violations.push(`second run threw: ${describeThrown(second.thrown)}`);
    else if (!sameBytes(first.result!, second.result!)) violations.push('not deterministic: a second run differs');
  }
  return { violations, elapsedMs: first.elapsedMs, budgetMs, fallback: first.fallback, errorLogs: first.errorLogs };
}

/** Metadata and weights are each time-boxed by weightsTimeoutMs (see RELIABILITY.md). */
function budgetOf(s: Scenario): number {
  return (s.targetTopics === 'hang' ? 2 : 1) * s.weightsTimeoutMs;
}

interface Run {
  readonly members: GroupMember[];
  readonly visible: Map<string, number>;
  readonly result: GroupMemberAssignment[] | undefined;
  readonly thrown: unknown;
  readonly elapsedMs: number;
  readonly fallback: boolean;
  readonly errorLogs: number;
}

async function runOnce(s: Scenario): Promise<Run> {
  const logger = recordingLogger();
  const registry = new Registry();
  const members = buildMembers(s);
  const { cluster, visible } = fuzzCluster(s);
  const factory = LoadAwareAssigner({
    weights: fuzzSource(s.source, s.weightsTimeoutMs + 30),
    weightsTimeoutMs: s.weightsTimeoutMs,
    defaultWeight: s.defaultWeight,
    logger,
    registry,
  });
  const assigner = factory({ cluster, groupId: 'fuzz', logger: undefined as never });
  const started = performance.now();
  let result: GroupMemberAssignment[] | undefined;
  let thrown: unknown;
  try {
    result = await assigner.assign({ members, topics: leaderTopicsOf(s) });
  } catch (err) {
    thrown = err ?? 'undefined';
  }
  const elapsedMs = performance.now() - started;
  const text = await registry.getSingleMetricAsString('load_aware_assignments_total');
  return {
    members,
    visible: visible(),
    result,
    thrown,
    elapsedMs,
    fallback: text.includes('result="fallback"} 1'),
    errorLogs: logger.records.filter((r) => r.level === 'error').length,
  };
}

/** The subscription the adapter must honour: decoded topics, or the leader's when unreadable. */
export function subscriptionOf(member: GroupMember, leaderTopics: string[]): string[] {
  if (!topicListInBounds(member.memberMetadata)) return leaderTopics;
  try {
    const decoded = AssignerProtocol.MemberMetadata.decode(member.memberMetadata) as { topics?: unknown } | null;
    const topics = decoded?.topics;
    if (Array.isArray(topics) && topics.every((t) => typeof t === 'string')) return topics;
  } catch {
    // unreadable: KafkaJS's round-robin assumption, the leader's topics
  }
  return leaderTopics;
}

/**
 * True when the topic list of subscription metadata (version int16, topic count int32, then that
 * many int16-length strings) lies inside its bytes, or is absent (count -1). KafkaJS's decoder
 * trusts a forged count: ten bytes announcing 50 million topics decode, in seconds, to 50 million
 * empty names (fuzz seed 204812). The adapter reads such metadata as unreadable, like any other
 * garbage, so the check does too.
 */
function topicListInBounds(bytes: Buffer): boolean {
  if (bytes.length < 6) return false;
  let remaining = bytes.readInt32BE(2);
  if (remaining === -1) return true;
  if (remaining < 0) return false;
  let at = 6;
  // Each topic advances `at` by two bytes or more, so this ends within the buffer's length.
  for (; remaining > 0; remaining--) {
    if (at + 2 > bytes.length || bytes.readInt16BE(at) < 0) return false;
    at += 2 + bytes.readInt16BE(at);
    if (at > bytes.length) return false;
  }
  return true;
}

/**
 * Everything wrong with `assign()`'s answer, read back with KafkaJS's decoder: a member twice or
 * missing, an undecodable assignment, a partition twice, one that does not exist or whose topic
 * nobody subscribes to, one given to a member not subscribed to its topic, or one left out.
 */
export function assignmentViolations(
  result: ReadonlyArray<GroupMemberAssignment>,
  members: ReadonlyArray<GroupMember>,
  leaderTopics: string[],
  visible: ReadonlyMap<string, number>,
): string[] {
  const violations: string[] = [];
  const decoded = new Map<string, Array<[string, number]>>();
  for (const { memberId, memberAssignment } of result) {
    if (decoded.has(memberId)) violations.push(`member ${JSON.stringify(memberId)} answered twice`);
    const assignment = AssignerProtocol.MemberAssignment.decode(memberAssignment);
    if (assignment === null) {
      violations.push(`member ${JSON.stringify(memberId)}: undecodable assignment`);
      continue;
    }
    const list: Array<[string, number]> = [];
    for (const [topic, partitions] of Object.entries(assignment.assignment)) {
      for (const p of partitions) list.push([topic, p]);
    }
    decoded.set(memberId, list);
  }
  const answered = [...decoded.keys()].sort().join('\n');
  const expectedMembers = members
    .map((m) => m.memberId)
    .sort()
    .join('\n');
  if (answered !== expectedMembers) violations.push('the answered members are not the group members');

  const subscriptions = new Map(members.map((m) => [m.memberId, new Set(subscriptionOf(m, leaderTopics))]));
  const subscribed = new Set([...subscriptions.values()].flatMap((s) => [...s]));
  const expected = new Set<string>();
  for (const [topic, count] of visible) {
    if (!subscribed.has(topic)) continue;
    for (let p = 0; p < count; p++) expected.add(`${topic}\0${String(p)}`);
  }
  const seen = new Set<string>();
  for (const [memberId, list] of decoded) {
    for (const [topic, partition] of list) {
      const key = `${topic}\0${String(partition)}`;
      const label = `${JSON.stringify(topic)}:${String(partition)}`;
      if (seen.has(key)) violations.push(`${label} assigned more than once`);
      seen.add(key);
      if (!expected.has(key)) violations.push(`${label} is not a partition of a subscribed topic`);
      if (subscriptions.get(memberId)?.has(topic) !== true) {
        violations.push(`${label} given to ${JSON.stringify(memberId)}, not subscribed to it`);
      }
    }
  }
  if (seen.size !== expected.size) {
    violations.push(`${String(seen.size)} partitions assigned, ${String(expected.size)} expected`);
  }
  return violations;
}

function sameBytes(a: ReadonlyArray<GroupMemberAssignment>, b: ReadonlyArray<GroupMemberAssignment>): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => x.memberId === b[i]!.memberId && x.memberAssignment.equals(b[i]!.memberAssignment))
  );
}

function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return `${thrown.name}: ${thrown.message}`;
  // JSON.stringify answers undefined for undefined, functions and symbols, despite its type.
  const json: unknown = JSON.stringify(thrown);
  return typeof json === 'string' ? json : typeof thrown;
}
