import fc from 'fast-check';
import { AssignerProtocol, type GroupMember, type GroupMemberAssignment } from 'kafkajs';
import { encodeUserData, LoadAwareAssigner } from '@load-aware/assignor/internal';
import { recordingLogger } from '@load-aware/test-support';
import { fuzzCluster, PROTOTYPE_NAMES, scenarioArbitrary } from '../bench/fuzz/assign-scenarios';
import { assignmentViolations, checkScenario } from '../bench/fuzz/assign-check';

/**
 * Bad input, end to end: `assign()` as KafkaJS calls it on the leader, with arbitrary member
 * metadata buffers (truncated, padded and hostile userData records included), topic names,
 * partition counts, cluster metadata behaviour and weight sources (NaN, ±Inf, negative, huge,
 * tiny, missing, duplicated, malformed, mutating their argument, failing, hanging). Whatever comes
 * in, it must resolve (never throw) within the time budget with a valid assignment: every
 * partition of a subscribed topic exactly once, only to a member subscribed to it, every member
 * present, the same bytes again for the same input. Assignments are read back with KafkaJS's own
 * AssignerProtocol decoder. The generators and checks live in bench/fuzz, shared with `pnpm fuzz`,
 * which runs the same space at volume; this is the short slice CI runs.
 */

// Each property runs hundreds of assignments, some of which wait out the weights budget.
jest.setTimeout(120_000);

/**
 * Generous correctness bound on top of the budget: not a benchmark, a "did it hang" check. 3 s:
 * on a 2-core machine under a parallel Kafka test run, one trivial assignment was seen taking
 * 1.7 s of wall time (scheduling, not work); a hang is unbounded.
 */
const SLACK_MS = 3000;

const scenario = scenarioArbitrary({ min: 20, max: 60 });

/** Reads assign()'s answer and fails the test on any broken promise. */
function expectValid(
  result: GroupMemberAssignment[],
  members: GroupMember[],
  leaderTopics: string[],
  visible: Map<string, number>,
): void {
  expect(assignmentViolations(result, members, leaderTopics, visible)).toEqual([]);
}

function decodeAll(result: GroupMemberAssignment[]): Map<string, Array<[string, number]>> {
  const out = new Map<string, Array<[string, number]>>();
  for (const { memberId, memberAssignment } of result) {
    const decoded = AssignerProtocol.MemberAssignment.decode(memberAssignment);
    out.set(
      memberId,
      Object.entries(decoded!.assignment).flatMap(([topic, ps]) => ps.map((p) => [topic, p] as [string, number])),
    );
  }
  return out;
}

describe('assign() under arbitrary input (fuzz)', () => {
  const stats = { runs: 0, fallback: 0, loadAware: 0, errors: 0, maxOverBudgetMs: Number.NEGATIVE_INFINITY };

  afterAll(() => {
    process.stdout.write(
      `assign fuzz: ${String(stats.runs)} assignments, ${String(stats.loadAware)} load-aware, ` +
        `${String(stats.fallback)} round-robin fallbacks, ${String(stats.errors)} ERROR logs, ` +
        `slowest ${stats.maxOverBudgetMs.toFixed(1)} ms past weightsTimeoutMs\n`,
    );
  });

  it('always resolves within the budget with a valid, deterministic assignment, never throws', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const run = await checkScenario(s, { slackMs: SLACK_MS, determinism: true });
        expect(run.violations).toEqual([]);
        stats.runs++;
        stats.maxOverBudgetMs = Math.max(stats.maxOverBudgetMs, run.elapsedMs - s.weightsTimeoutMs);
        stats.errors += run.errorLogs;
        if (run.fallback) stats.fallback++;
        else stats.loadAware++;
      }),
      { numRuns: 400 },
    );
    // Round-robin is the safety net, not the error path: it must never itself fail.
    expect(stats.errors).toBe(0);
  });

  it.each(PROTOTYPE_NAMES)('delivers the partitions of a topic named %s', async (topic) => {
    const factory = LoadAwareAssigner({ logger: recordingLogger() });
    const fake = fuzzCluster({
      topics: [topic],
      metadata: [{ kind: 'known', partitions: 3 }],
      targetTopics: 'resolve',
    });
    const assigner = factory({ cluster: fake.cluster, groupId: 'proto', logger: undefined as never });
    const members = ['m1', 'm2'].map((memberId, i) => ({
      memberId,
      memberMetadata: AssignerProtocol.MemberMetadata.encode({
        version: 0,
        topics: [topic],
        userData: encodeUserData({ instanceId: `pod-${String(i)}`, capacity: 1, epoch: 0 }),
      }),
    }));
    const result = await assigner.assign({ members, topics: [topic] });
    expectValid(result, members, [topic], fake.visible());
    const decoded = decodeAll(result);
    expect(
      [...decoded.values()]
        .flat()
        .map(([, p]) => p)
        .sort(),
    ).toEqual([0, 1, 2]);
  });

  it('keeps metadata and weights each within weightsTimeoutMs when both hang (worst case: twice the budget)', async () => {
    const logger = recordingLogger();
    const factory = LoadAwareAssigner({
      weights: { getWeights: () => new Promise(() => undefined) },
      weightsTimeoutMs: 300,
      logger,
    });
    const cluster = fuzzCluster({
      topics: ['lead', 'other'],
      metadata: [
        { kind: 'known', partitions: 4 },
        { kind: 'hidden', partitions: 4 },
      ],
      targetTopics: 'hang',
    });
    const assigner = factory({ cluster: cluster.cluster, groupId: 'slow', logger: undefined as never });
    const members = [
      {
        memberId: 'm1',
        memberMetadata: AssignerProtocol.MemberMetadata.encode({
          version: 0,
          topics: ['lead'],
          userData: Buffer.alloc(0),
        }),
      },
      {
        memberId: 'm2',
        memberMetadata: AssignerProtocol.MemberMetadata.encode({
          version: 0,
          topics: ['other'],
          userData: Buffer.alloc(0),
        }),
      },
    ];
    const started = performance.now();
    const result = await assigner.assign({ members, topics: ['lead'] });
    const elapsed = performance.now() - started;
    expectValid(result, members, ['lead'], cluster.visible());
    expect(elapsed).toBeGreaterThanOrEqual(590);
    expect(elapsed).toBeLessThan(600 + SLACK_MS);
    expect(logger.messages('warn').some((m) => m.includes('could not load metadata'))).toBe(true);
    expect(logger.messages('warn').some((m) => m.includes('weightsTimeoutMs=300'))).toBe(true);
    process.stdout.write(`assign with hanging metadata and weights (budget 300 ms): ${elapsed.toFixed(0)} ms\n`);
  });
});
