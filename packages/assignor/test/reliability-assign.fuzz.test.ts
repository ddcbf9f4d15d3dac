import fc from 'fast-check';
import { AssignerProtocol, type Cluster, type GroupMember, type GroupMemberAssignment } from 'kafkajs';
import { Registry } from 'prom-client';
import { encodeUserData, LoadAwareAssigner, type WeightSource } from '@load-aware/assignor/internal';
import { partitionMetadata, recordingLogger } from '@load-aware/test-support';

/**
 * Bad input, end to end: `assign()` as KafkaJS calls it on the leader, with arbitrary member
 * metadata buffers, topic names, partition counts, cluster metadata behaviour and weight sources
 * (NaN, ±Inf, negative, huge, missing, duplicated, malformed, failing, hanging). Whatever comes
 * in, it must resolve (never throw) within the time budget with a valid assignment: every
 * partition of a subscribed topic exactly once, only to a member subscribed to it, every member
 * present. Assignments are read back with KafkaJS's own AssignerProtocol decoder.
 */

// Each property runs hundreds of assignments, some of which wait out the weights budget.
jest.setTimeout(120_000);

/**
 * Generous correctness bound on top of the budget: not a benchmark, a "did it hang" check. 3 s:
 * on a 2-core machine under a parallel Kafka test run, one trivial assignment was seen taking
 * 1.7 s of wall time (scheduling, not work); a hang is unbounded.
 */
const SLACK_MS = 3000;

/**
 * Names that are legal Kafka topics but also keys of `Object.prototype`: a plain `{}` keyed by
 * topic would hand back an inherited function for them. (`__proto__` is excluded on purpose:
 * KafkaJS's own `MemberAssignment.decode` assigns topics with `Object.assign`, which turns a
 * `__proto__` key into a prototype change, so no assignor can deliver such a topic to a KafkaJS
 * consumer; see RELIABILITY.md.)
 */
const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];

const topicName = fc
  .oneof(
    { weight: 4, arbitrary: fc.constantFrom('orders', 'payments.v2', 'a', 'A', 'a-b_c.d') },
    { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
    { weight: 1, arbitrary: fc.constant('x'.repeat(249)) },
    // fast-check's string generators produce "__proto__" on purpose; it is excluded as said above.
  )
  .filter((name) => name !== '__proto__');

/** How the fake cluster answers for one topic. */
type TopicMetadata =
  | { kind: 'known'; partitions: number }
  | { kind: 'hidden'; partitions: number } // visible once addMultipleTargetTopics asks for it
  | { kind: 'unknown' } // [] like KafkaJS for a topic not in the metadata
  | { kind: 'throws' }; // KafkaJSTopicMetadataNotLoaded and the like

const topicMetadata: fc.Arbitrary<TopicMetadata> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('known' as const), partitions: fc.nat({ max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('hidden' as const), partitions: fc.nat({ max: 20 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'throws' as const }) },
);

type TargetTopicsBehaviour = 'resolve' | 'reject' | 'hang' | 'throw';

/** A weight value from the whole zoo a source might answer with. */
const weirdWeight: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    -1,
    -0,
    0,
    1e308,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.MAX_SAFE_INTEGER,
    2 ** 53 + 1,
  ),
  fc.double(),
  fc.double({ min: 0, max: 1e6, noNaN: true }),
  fc.integer(),
  fc.constantFrom('7', null, undefined, true, {}, []),
  fc.bigInt(),
);

/** One entry a source answers with, addressed by an index into the requested partitions. */
const entrySpec = fc.record({
  index: fc.nat({ max: 200 }),
  weight: weirdWeight,
  // Mangled addressing: another topic, a fractional or negative partition, a string partition.
  mangle: fc.constantFrom('none', 'none', 'none', 'none', 'topic', 'fraction', 'negative', 'string'),
});

type SourceSpec =
  | { kind: 'entries'; entries: Array<{ index: number; weight: unknown; mangle: string }>; junk: unknown[] }
  | { kind: 'reject' | 'throw' | 'hang' | 'late' }
  | { kind: 'not-a-list'; value: unknown };

const sourceSpec: fc.Arbitrary<SourceSpec> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('entries' as const),
      entries: fc.array(entrySpec, { maxLength: 120 }),
      junk: fc.array(fc.anything(), { maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('reject' as const, 'throw' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('hang' as const, 'late' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('not-a-list' as const),
      value: fc.anything().filter((v) => !Array.isArray(v)),
    }),
  },
);

/** What one member sends in JoinGroup. */
type MetadataSpec =
  | { kind: 'valid'; topics: number[]; userData: UserDataSpec }
  | { kind: 'raw'; bytes: Uint8Array }
  | { kind: 'truncated'; topics: number[]; cut: number };

type UserDataSpec =
  | { kind: 'load-aware'; instance: number; capacity: number; epoch: number }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'magic'; tail: Uint8Array }
  | { kind: 'none' };

const userDataSpec: fc.Arbitrary<UserDataSpec> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('load-aware' as const),
      instance: fc.nat({ max: 5 }),
      capacity: fc.oneof(
        fc.constantFrom(1, 2, 1e-9, 1e9, Number.MIN_VALUE),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
      ),
      epoch: fc.nat({ max: 0xffffffff }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('magic' as const), tail: fc.uint8Array({ maxLength: 40 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
);

const metadataSpec: fc.Arbitrary<MetadataSpec> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('valid' as const),
      topics: fc.array(fc.nat({ max: 5 }), { maxLength: 6 }),
      userData: userDataSpec,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('raw' as const), bytes: fc.uint8Array({ maxLength: 64 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('truncated' as const),
      topics: fc.array(fc.nat({ max: 5 }), { maxLength: 3 }),
      cut: fc.nat({ max: 40 }),
    }),
  },
);

const scenario = fc.record({
  topics: fc.uniqueArray(topicName, { minLength: 1, maxLength: 6 }),
  metadata: fc.array(topicMetadata, { minLength: 6, maxLength: 6 }),
  targetTopics: fc.constantFrom<TargetTopicsBehaviour>('resolve', 'resolve', 'resolve', 'reject', 'hang', 'throw'),
  memberIds: fc.uniqueArray(
    fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom(...PROTOTYPE_NAMES), fc.uuid()),
    { minLength: 1, maxLength: 12 },
  ),
  members: fc.array(metadataSpec, { minLength: 12, maxLength: 12 }),
  leaderTopics: fc.array(fc.nat({ max: 5 }), { maxLength: 6 }),
  source: sourceSpec,
  weightsTimeoutMs: fc.integer({ min: 20, max: 60 }),
  defaultWeight: fc.constantFrom(0, 1, 1e6),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** The subscription the adapter must honour: decoded topics, or the leader's when unreadable. */
function subscriptionOf(member: GroupMember, leaderTopics: string[]): string[] {
  try {
    const decoded = AssignerProtocol.MemberMetadata.decode(member.memberMetadata) as { topics?: unknown } | null;
    const topics = decoded?.topics;
    if (Array.isArray(topics) && topics.every((t) => typeof t === 'string')) return topics;
  } catch {
    // unreadable: KafkaJS's round-robin assumption, the leader's topics
  }
  return leaderTopics;
}

function buildMembers(s: Scenario): GroupMember[] {
  const pick = (indexes: number[]): string[] => indexes.map((i) => s.topics[i % s.topics.length]!);
  return s.memberIds.map((memberId, i) => {
    const spec = s.members[i]!;
    if (spec.kind === 'raw') return { memberId, memberMetadata: Buffer.from(spec.bytes) };
    if (spec.kind === 'truncated') {
      const full = AssignerProtocol.MemberMetadata.encode({
        version: 0,
        topics: pick(spec.topics),
        userData: encodeUserData({ instanceId: 'cut', capacity: 1, epoch: 0 }),
      });
      return { memberId, memberMetadata: full.subarray(0, Math.min(spec.cut, full.length - 1)) };
    }
    const u = spec.userData;
    const userData =
      u.kind === 'load-aware'
        ? encodeUserData({ instanceId: `pod-${String(u.instance)}`, capacity: u.capacity, epoch: u.epoch })
        : u.kind === 'bytes'
          ? Buffer.from(u.bytes)
          : u.kind === 'magic'
            ? Buffer.concat([Buffer.from('LA'), Buffer.from(u.tail)])
            : Buffer.alloc(0);
    return {
      memberId,
      memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics: pick(spec.topics), userData }),
    };
  });
}

/** A stand-in for the KafkaJS cluster with every misbehaviour the adapter has to survive. */
function fuzzCluster(s: Scenario): { cluster: Cluster; visible: () => Map<string, number> } {
  const byTopic = new Map(s.topics.map((t, i) => [t, s.metadata[i]!]));
  const shown = new Set(s.topics.filter((t) => byTopic.get(t)!.kind !== 'hidden'));
  const cluster = {
    addMultipleTargetTopics(topics: string[]): Promise<void> {
      switch (s.targetTopics) {
        case 'resolve':
          for (const t of topics) if (byTopic.has(t)) shown.add(t);
          return Promise.resolve();
        case 'reject':
          return Promise.reject(
            Object.assign(new Error('This server does not host this topic-partition'), {
              type: 'UNKNOWN_TOPIC_OR_PARTITION',
            }),
          );
        case 'hang':
          return new Promise<void>(() => undefined);
        case 'throw':
          throw new TypeError('synchronous failure inside KafkaJS');
      }
    },
    findTopicPartitionMetadata(topic: string) {
      const m = byTopic.get(topic);
      if (m?.kind === 'throws') throw new Error('Topic metadata not loaded');
      if (m === undefined || m.kind === 'unknown' || !shown.has(topic)) return [];
      return partitionMetadata(m.partitions);
    },
  };
  const visible = (): Map<string, number> => {
    const out = new Map<string, number>();
    for (const [topic, m] of byTopic) {
      if ((m.kind === 'known' || m.kind === 'hidden') && shown.has(topic)) out.set(topic, m.partitions);
    }
    return out;
  };
  return { cluster: cluster as unknown as Cluster, visible };
}

function fuzzSource(spec: SourceSpec, lateMs: number): WeightSource {
  return {
    getWeights(partitions) {
      switch (spec.kind) {
        case 'reject':
          return Promise.reject(new Error('weight source down'));
        case 'throw':
          throw new Error('weight source threw synchronously');
        case 'hang':
          return new Promise(() => undefined);
        case 'late':
          return new Promise((resolve) =>
            setTimeout(() => {
              resolve([]);
            }, lateMs).unref(),
          );
        case 'not-a-list':
          return Promise.resolve(spec.value as never);
        case 'entries': {
          if (partitions.length === 0) return Promise.resolve(spec.junk as never);
          const out: unknown[] = [...spec.junk];
          for (const e of spec.entries) {
            const p = partitions[e.index % partitions.length]!;
            const partition =
              e.mangle === 'fraction'
                ? p.partition + 0.5
                : e.mangle === 'negative'
                  ? -1 - p.partition
                  : e.mangle === 'string'
                    ? String(p.partition)
                    : p.partition;
            out.push({ topic: e.mangle === 'topic' ? `${p.topic}-other` : p.topic, partition, weight: e.weight });
          }
          return Promise.resolve(out as never);
        }
      }
    },
  };
}

/** Reads assign()'s answer back with KafkaJS's decoder: member id → "topic\0partition" list. */
function decodeAll(result: GroupMemberAssignment[]): Map<string, Array<[string, number]>> {
  const out = new Map<string, Array<[string, number]>>();
  for (const { memberId, memberAssignment } of result) {
    expect(out.has(memberId)).toBe(false);
    const decoded = AssignerProtocol.MemberAssignment.decode(memberAssignment);
    expect(decoded).not.toBeNull();
    const list: Array<[string, number]> = [];
    for (const [topic, partitions] of Object.entries(decoded!.assignment)) {
      for (const p of partitions) list.push([topic, p]);
    }
    out.set(memberId, list);
  }
  return out;
}

/** The validity contract of assign(). */
function expectValid(
  result: GroupMemberAssignment[],
  members: GroupMember[],
  leaderTopics: string[],
  visible: Map<string, number>,
): void {
  const decoded = decodeAll(result);
  expect([...decoded.keys()].sort()).toEqual(members.map((m) => m.memberId).sort());
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
      expect(seen.has(key)).toBe(false); // exactly once
      seen.add(key);
      expect(expected.has(key)).toBe(true); // an existing partition of a subscribed topic
      expect(subscriptions.get(memberId)!.has(topic)).toBe(true); // only to a subscriber
    }
  }
  expect(seen.size).toBe(expected.size); // every partition
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

  it('always resolves within the budget with a valid assignment, never throws', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const logger = recordingLogger();
        const registry = new Registry();
        const members = buildMembers(s);
        const leaderTopics = [...new Set(s.leaderTopics.map((i) => s.topics[i % s.topics.length]!))];
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
        const result = await assigner.assign({ members, topics: leaderTopics });
        const elapsed = performance.now() - started;
        // Metadata and weights are each time-boxed by weightsTimeoutMs (see RELIABILITY.md).
        const budget = (s.targetTopics === 'hang' ? 2 : 1) * s.weightsTimeoutMs;
        expect(elapsed).toBeLessThanOrEqual(budget + SLACK_MS);
        expectValid(result, members, leaderTopics, visible());
        stats.runs++;
        stats.maxOverBudgetMs = Math.max(stats.maxOverBudgetMs, elapsed - s.weightsTimeoutMs);
        stats.errors += logger.records.filter((r) => r.level === 'error').length;
        const text = await registry.getSingleMetricAsString('load_aware_assignments_total');
        if (text.includes('result="fallback"} 1')) stats.fallback++;
        else stats.loadAware++;
      }),
      { numRuns: 400 },
    );
    // Round-robin is the safety net, not the error path: it must never itself fail.
    expect(stats.errors).toBe(0);
  });

  it.each(PROTOTYPE_NAMES)('delivers the partitions of a topic named %s', async (topic) => {
    const factory = LoadAwareAssigner({ logger: recordingLogger() });
    const cluster = fuzzCluster({
      topics: [topic],
      metadata: [{ kind: 'known', partitions: 3 }],
      targetTopics: 'resolve',
    } as unknown as Scenario).cluster;
    const assigner = factory({ cluster, groupId: 'proto', logger: undefined as never });
    const members = ['m1', 'm2'].map((memberId, i) => ({
      memberId,
      memberMetadata: AssignerProtocol.MemberMetadata.encode({
        version: 0,
        topics: [topic],
        userData: encodeUserData({ instanceId: `pod-${String(i)}`, capacity: 1, epoch: 0 }),
      }),
    }));
    const decoded = decodeAll(await assigner.assign({ members, topics: [topic] }));
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
    } as unknown as Scenario);
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
