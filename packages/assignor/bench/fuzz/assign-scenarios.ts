import fc from 'fast-check';
import { AssignerProtocol, type Cluster, type GroupMember } from 'kafkajs';
import { encodeUserData, type WeightSource } from '@load-aware/assignor/internal';
import { partitionMetadata, unconnectedClusterShape } from '@load-aware/test-support';

/**
 * Hostile input for the leader's `assign()`, as KafkaJS hands it over: member metadata buffers,
 * topic names, partition counts, cluster metadata behaviour and weight sources. Shared by the
 * jest property test (a short slice in CI) and the `pnpm fuzz` runner (hundreds of thousands of
 * runs), so both explore the same space.
 */

/**
 * Names that are legal Kafka topics but also keys of `Object.prototype`: a plain `{}` keyed by
 * topic would hand back an inherited function for them. (`__proto__` is excluded on purpose:
 * KafkaJS's own `MemberAssignment.decode` assigns topics with `Object.assign`, which turns a
 * `__proto__` key into a prototype change, so no assignor can deliver such a topic to a KafkaJS
 * consumer; see RELIABILITY.md.)
 */
export const PROTOTYPE_NAMES = [
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
];

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
export type TopicMetadata =
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

export type TargetTopicsBehaviour = 'resolve' | 'reject' | 'hang' | 'throw';

/** Weights at the edges of the doubles: overflowing sums, denormals, the integer limit. */
const EXTREME_WEIGHTS = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  -0,
  0,
  1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e-300,
  Number.MAX_SAFE_INTEGER,
  2 ** 53 + 1,
];

/** A weight value from the whole zoo a source might answer with. */
const weirdWeight: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...EXTREME_WEIGHTS),
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

/** How a source mutates the list it is given before answering. */
export type Mutation = 'drain' | 'reverse' | 'extend' | 'rename' | 'freeze-then-push';

/** What the weight source does. */
export type SourceSpec =
  | { kind: 'entries'; entries: Array<{ index: number; weight: unknown; mangle: string }>; junk: unknown[] }
  | { kind: 'uniform'; weight: unknown } // every partition the same weight (MAX_VALUE: sums overflow)
  | { kind: 'mutate'; mutation: Mutation; weight: unknown; thenThrow: boolean }
  | { kind: 'reject' | 'throw' | 'hang' | 'late' | 'sync-array' }
  | { kind: 'throw-value'; value: unknown } // throws something that is not an Error
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
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('uniform' as const), weight: weirdWeight }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mutate' as const),
      mutation: fc.constantFrom<Mutation>('drain', 'reverse', 'extend', 'rename', 'freeze-then-push'),
      weight: weirdWeight,
      thenThrow: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('reject' as const, 'throw' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('hang' as const, 'late' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sync-array' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('throw-value' as const),
      value: fc.constantFrom(undefined, null, 'a string', 42, { code: 'X' }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('not-a-list' as const),
      value: fc.anything().filter((v) => !Array.isArray(v)),
    }),
  },
);

/** What one member sends in JoinGroup. */
export type MetadataSpec =
  | { kind: 'valid'; topics: number[]; userData: UserDataSpec }
  | { kind: 'raw'; bytes: Uint8Array }
  | { kind: 'truncated'; topics: number[]; cut: number };

/** The userData inside a member's metadata. */
export type UserDataSpec =
  | {
      kind: 'load-aware';
      instance: number;
      capacity: number;
      epoch: number;
      // Version 2: partitions the member claims to own, possibly of other topics, other members'
      // or nonexistent ones.
      owned: { generation: number; partitions: Array<{ topic: number; partition: number }> } | null;
      // Cut the record short (a truncated version-2 record) or pad it (a newer, larger version).
      cut: number | null;
      padding: number;
    }
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
        { weight: 3, arbitrary: fc.constantFrom(1, 2, 1e-9, 1e9, 1e300, Number.MIN_VALUE, Number.MAX_VALUE) },
        { weight: 3, arbitrary: fc.double({ min: 1e-6, max: 1e6, noNaN: true }) },
        { weight: 4, arbitrary: fc.constant(1) },
      ),
      epoch: fc.nat({ max: 0xffffffff }),
      owned: fc.option(
        fc.record({
          generation: fc.integer({ min: -1, max: 0x7fffffff }),
          partitions: fc.array(fc.record({ topic: fc.nat({ max: 5 }), partition: fc.nat({ max: 45 }) }), {
            maxLength: 30,
          }),
        }),
        { freq: 3 },
      ),
      cut: fc.option(fc.nat({ max: 80 }), { freq: 8 }),
      padding: fc.oneof(
        { weight: 8, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.nat({ max: 64 }) },
        { weight: 1, arbitrary: fc.constant(1 << 16) },
      ),
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

/** One whole `assign()` call: the group, the cluster's behaviour, the source and the options. */
export interface Scenario {
  readonly topics: string[];
  readonly metadata: TopicMetadata[];
  readonly targetTopics: TargetTopicsBehaviour;
  readonly memberIds: string[];
  readonly members: MetadataSpec[];
  readonly leaderTopics: number[];
  readonly source: SourceSpec;
  readonly weightsTimeoutMs: number;
  readonly defaultWeight: number;
}

/**
 * Scenarios with `weightsTimeoutMs` in the given range: the jest slice uses 20–60 ms, the fuzz
 * runner less, since hanging sources and metadata cost a whole budget each.
 */
export function scenarioArbitrary(timeout: { min: number; max: number }): fc.Arbitrary<Scenario> {
  return fc.record({
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
    weightsTimeoutMs: fc.integer(timeout),
    defaultWeight: fc.constantFrom(0, 1, 1e6),
  });
}

/** The leader's own subscription, as topic names. */
export function leaderTopicsOf(s: Scenario): string[] {
  return [...new Set(s.leaderTopics.map((i) => s.topics[i % s.topics.length]!))];
}

/** The JoinGroup members of a scenario, encoded with KafkaJS's own protocol codec. */
export function buildMembers(s: Scenario): GroupMember[] {
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
    return {
      memberId,
      memberMetadata: AssignerProtocol.MemberMetadata.encode({
        version: 0,
        topics: pick(spec.topics),
        userData: userDataBytes(s, spec.userData),
      }),
    };
  });
}

function userDataBytes(s: Scenario, u: UserDataSpec): Buffer {
  switch (u.kind) {
    case 'load-aware': {
      const owned =
        u.owned === null
          ? undefined
          : {
              generation: u.owned.generation,
              partitions: u.owned.partitions.map((p) => ({
                topic: s.topics[p.topic % s.topics.length]!,
                partition: p.partition,
              })),
            };
      let record: Buffer;
      try {
        record = encodeUserData({
          instanceId: `pod-${String(u.instance)}`,
          capacity: u.capacity,
          epoch: u.epoch,
          owned,
        });
      } catch {
        // A claim the encoder refuses (e.g. a negative generation): send it without the claim.
        record = encodeUserData({ instanceId: `pod-${String(u.instance)}`, capacity: u.capacity, epoch: u.epoch });
      }
      if (u.cut !== null) record = record.subarray(0, Math.min(u.cut, record.length));
      return u.padding > 0 ? Buffer.concat([record, Buffer.alloc(u.padding, 0xa5)]) : record;
    }
    case 'bytes':
      return Buffer.from(u.bytes);
    case 'magic':
      return Buffer.concat([Buffer.from('LA'), Buffer.from(u.tail)]);
    case 'none':
      return Buffer.alloc(0);
  }
}

/** A stand-in for the KafkaJS cluster with every misbehaviour the adapter has to survive. */
export function fuzzCluster(s: Pick<Scenario, 'topics' | 'metadata' | 'targetTopics'>): {
  cluster: Cluster;
  visible: () => Map<string, number>;
} {
  const byTopic = new Map(s.topics.map((t, i) => [t, s.metadata[i]!]));
  const shown = new Set(s.topics.filter((t) => byTopic.get(t)!.kind !== 'hidden'));
  const cluster = {
    ...unconnectedClusterShape(),
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

/** A weight source behaving as `spec` says; `lateMs` is when a 'late' source answers. */
export function fuzzSource(spec: SourceSpec, lateMs: number): WeightSource {
  return {
    getWeights(partitions) {
      switch (spec.kind) {
        case 'reject':
          return Promise.reject(new Error('weight source down'));
        case 'throw':
          throw new Error('weight source threw synchronously');
        case 'throw-value':
          throw spec.value;
        case 'hang':
          return new Promise(() => undefined);
        case 'late':
          return new Promise((resolve) =>
            setTimeout(() => {
              resolve([]);
            }, lateMs).unref(),
          );
        case 'sync-array':
          // Not a promise at all, though the type says so.
          return partitions.map((p) => ({ ...p, weight: 2 })) as never;
        case 'not-a-list':
          return Promise.resolve(spec.value as never);
        case 'uniform':
          return Promise.resolve(partitions.map((p) => ({ ...p, weight: spec.weight })) as never);
        case 'mutate':
          return mutatingAnswer(partitions as Array<{ topic: string; partition: number }>, spec);
        case 'entries':
          return Promise.resolve(entriesAnswer(partitions, spec) as never);
      }
    },
  };
}

/** Mutates the list it was given (as batching code does), then answers or throws. */
function mutatingAnswer(
  partitions: Array<{ topic: string; partition: number }>,
  spec: Extract<SourceSpec, { kind: 'mutate' }>,
): Promise<never> {
  const answer = partitions.map((p) => ({ ...p, weight: spec.weight }));
  switch (spec.mutation) {
    case 'drain':
      partitions.splice(0, partitions.length);
      break;
    case 'reverse':
      partitions.reverse();
      break;
    case 'extend':
      partitions.push({ topic: 'injected', partition: 0 }, { topic: partitions[0]?.topic ?? 'x', partition: 9999 });
      break;
    case 'rename':
      for (const p of partitions) {
        p.topic = `${p.topic}-renamed`;
        p.partition += 1;
      }
      break;
    case 'freeze-then-push':
      Object.freeze(partitions);
      try {
        partitions.push({ topic: 'frozen', partition: 0 });
      } catch {
        // Frozen: the push fails, as in a strict-mode source.
      }
      break;
  }
  if (spec.thenThrow) throw new Error('source failed after mutating its argument');
  return Promise.resolve(answer as never);
}

function entriesAnswer(
  partitions: ReadonlyArray<{ topic: string; partition: number }>,
  spec: Extract<SourceSpec, { kind: 'entries' }>,
): unknown[] {
  if (partitions.length === 0) return spec.junk;
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
  return out;
}
