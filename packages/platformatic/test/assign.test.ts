import { Registry } from 'prom-client';
import { createAssignmentMemory, createAssignorMetrics, type WeightSource } from '@load-aware/assignor/portable';
import {
  assignSync,
  createPlatformaticMetrics,
  createWeightSnapshot,
  resolvePlatformaticOptions,
  type MemberSubscription,
  type SyncAssignContext,
  type Transfer,
} from '@load-aware/platformatic/internal';
import { recordingLogger, type RecordingLogger } from '@load-aware/test-support';
import { labelsOf, staticWeights, subscription, topicsMetadata } from './fakes';

const skewed = { 'orders:0': 100, 'orders:1': 10, 'orders:2': 10, 'orders:3': 10, 'orders:4': 10, 'orders:5': 10 };
const metadata = topicsMetadata({ orders: 6 });
const leaderTopics = new Set(['orders']);

interface Harness {
  ctx: SyncAssignContext;
  logger: RecordingLogger;
  registry: Registry;
  promises: Transfer[];
  causes: string[];
}

async function harness(
  options: { weights?: WeightSource; cooperative?: boolean; refresh?: boolean } = {},
): Promise<Harness> {
  const logger = recordingLogger();
  const registry = new Registry();
  const placement = resolvePlatformaticOptions({ logger, registry }).placement;
  const snapshot = createWeightSnapshot({
    source: options.weights ?? staticWeights(skewed),
    timeoutMs: 200,
    refreshMs: 0,
    maxAgeMs: 60_000,
    logger,
    serving: () => true,
  });
  const all = Array.from({ length: 6 }, (_, partition) => ({ topic: 'orders', partition }));
  if (options.refresh !== false) await snapshot.refresh('orders-group', all, 'join');
  const h: Harness = { logger, registry, promises: [], causes: [], ctx: undefined as never };
  const warned = new Set<string>();
  h.ctx = {
    groupId: 'orders-group',
    options: placement,
    logger,
    metrics: createAssignorMetrics(registry),
    warnOnce: (key) => !warned.has(key) && Boolean(warned.add(key)),
    memory: createAssignmentMemory(),
    snapshot,
    platformaticMetrics: createPlatformaticMetrics(registry),
    cooperativeOffered: options.cooperative ?? false,
    noteCause: (cause) => {
      h.causes.push(cause);
    },
    promises: {
      recall: () => h.promises,
      keep: (t) => {
        h.promises = t;
      },
    },
  };
  return h;
}

const group = (...subs: MemberSubscription[]) => new Map(subs.map((s) => [s.memberId, s]));

async function metricValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name);
  const values = (await metric?.get())?.values ?? [];
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
}

describe('the synchronous platformatic assignment', () => {
  it('places by weight across instances, every partition exactly once, and logs how old its weights were', async () => {
    const h = await harness();
    const out = assignSync(
      h.ctx,
      group(subscription('m1', 'pod-a'), subscription('m2', 'pod-b'), subscription('m3', 'pod-b')),
      leaderTopics,
      metadata,
    );
    const byMember = new Map(out.map((a) => [a.memberId, labelsOf(a)]));
    const all = [...byMember.values()].flat().sort();
    expect(all).toEqual(['orders:0', 'orders:1', 'orders:2', 'orders:3', 'orders:4', 'orders:5']);
    // 150 in all: the heavy partition alone is the best one instance can carry.
    expect(byMember.get('m1')).toEqual(['orders:0']);
    expect(
      h.logger
        .messages('info')
        .some((m) => /^weights: snapshot from \d+\.\d s ago \(refreshed at a join\), 6 of 6/.test(m)),
    ).toBe(true);
    expect(await metricValue(h.registry, 'load_aware_assignments_total', { result: 'load_aware' })).toBe(1);
    expect(await metricValue(h.registry, 'load_aware_defaulted_weights', { group: 'orders-group' })).toBe(0);
    // The cause goes to the members (platformatic sends one assignment userData to all).
    expect(h.causes).toEqual(['start']);
    expect(h.logger.messages('info').some((m) => m.startsWith('rebalance cause: start'))).toBe(true);
  });

  it("falls back to round-robin over each member's subscription when no weights were read, as the KafkaJS assigner does on a dead source", async () => {
    const h = await harness({ refresh: false });
    const out = assignSync(
      h.ctx,
      group(subscription('m1', 'pod-a'), subscription('m2', 'pod-b', { topics: ['payments'] })),
      new Set(['orders']),
      topicsMetadata({ orders: 6, payments: 2 }),
    );
    expect(labelsOf(out.find((a) => a.memberId === 'm1')!)).toHaveLength(6);
    expect(labelsOf(out.find((a) => a.memberId === 'm2')!)).toEqual(['payments:0', 'payments:1']);
    expect(
      h.logger
        .messages('warn')
        .some((m) => m.startsWith('load-aware assignment failed (Weight source failed: no weights read yet')),
    ).toBe(true);
    expect(await metricValue(h.registry, 'load_aware_assignments_total', { result: 'fallback' })).toBe(1);
  });

  it("reads members' owned partitions from their record and stays sticky, so a new leader moves nothing", async () => {
    const h = await harness();
    const first = assignSync(
      h.ctx,
      group(subscription('m1', 'pod-a'), subscription('m2', 'pod-b')),
      leaderTopics,
      metadata,
    );
    const ownedBy = (id: string) => ({
      generation: 3,
      partitions: labelsOf(first.find((a) => a.memberId === id)!).map((l) => ({
        topic: 'orders',
        partition: Number(l.split(':')[1]),
      })),
    });
    const fresh = await harness(); // another process: no memory of the first assignment
    const second = assignSync(
      fresh.ctx,
      group(
        subscription('m1', 'pod-a', { owned: ownedBy('m1') }),
        subscription('m2', 'pod-b', { owned: ownedBy('m2') }),
      ),
      leaderTopics,
      metadata,
    );
    expect(second.map(labelsOf)).toEqual(first.map(labelsOf));
    expect(await metricValue(fresh.registry, 'load_aware_partitions_moved', { group: 'orders-group' })).toBe(0);
  });

  describe('under cooperative-sticky', () => {
    const native = (partitions: number[], generationId = 4) => ({
      generationId,
      ownedPartitions: partitions.length === 0 ? [] : [{ topic: 'orders', partitions }],
    });
    /** m1 holds every partition; m2 just joined. */
    const ownerAndJoiner = () =>
      group(
        subscription('m1', 'pod-a', { version: 3, native: native([0, 1, 2, 3, 4, 5]) }),
        subscription('m2', 'pod-b', { version: 3 }),
      );

    it('revokes a moving partition in the first round and gives it to its new owner in the follow-up round', async () => {
      const h = await harness({ cooperative: true });
      const round1 = assignSync(h.ctx, ownerAndJoiner(), leaderTopics, metadata);
      const m1 = labelsOf(round1.find((a) => a.memberId === 'm1')!);
      expect(labelsOf(round1.find((a) => a.memberId === 'm2')!)).toEqual([]);
      const moving = h.promises.map((t) => `${t.topic}:${String(t.partition)}`).sort();
      expect(moving.length).toBeGreaterThan(0);
      expect([...m1, ...moving].sort()).toEqual([
        'orders:0',
        'orders:1',
        'orders:2',
        'orders:3',
        'orders:4',
        'orders:5',
      ]);
      expect(
        await metricValue(h.registry, 'load_aware_cooperative_withheld_partitions', { group: 'orders-group' }),
      ).toBe(moving.length);

      // m1 revoked and rejoined: it reports only what it kept.
      const round2 = assignSync(
        h.ctx,
        group(
          subscription('m1', 'pod-a', {
            version: 3,
            native: native(
              m1.map((l) => Number(l.split(':')[1])),
              5,
            ),
          }),
          subscription('m2', 'pod-b', { version: 3 }),
        ),
        leaderTopics,
        metadata,
      );
      expect(labelsOf(round2.find((a) => a.memberId === 'm1')!)).toEqual(m1);
      expect(labelsOf(round2.find((a) => a.memberId === 'm2')!)).toEqual(moving);
      expect(h.promises).toEqual([]);
    });

    it('lets the higher generation win a conflicting claim', async () => {
      const h = await harness({ cooperative: true });
      const out = assignSync(
        h.ctx,
        group(
          // m1 missed a rebalance and still claims 0, which m2 received in generation 7.
          subscription('m1', 'pod-a', { version: 3, native: native([0, 1, 2], 5) }),
          subscription('m2', 'pod-b', { version: 3, native: native([0, 3, 4, 5], 7) }),
        ),
        leaderTopics,
        metadata,
      );
      expect(labelsOf(out.find((a) => a.memberId === 'm1')!)).not.toContain('orders:0');
      expect(h.promises.every((t) => !(t.partition === 0 && t.from === 'm1'))).toBe(true);
    });

    it('warns about and counts a plain cooperative-sticky member and an eager-only member, once each', async () => {
      const h = await harness({ cooperative: true });
      const plain: MemberSubscription = {
        memberId: 'plain',
        version: 3,
        topics: ['orders'],
        ownedPartitions: [],
        generationId: -1,
      };
      const kafkajs = subscription('kjs', 'pod-k', { version: 0 });
      for (let i = 0; i < 2; i++) {
        assignSync(h.ctx, group(subscription('m1', 'pod-a', { version: 3 }), plain, kafkajs), leaderTopics, metadata);
      }
      const warnings = h.logger.messages('warn');
      expect(
        warnings.filter((m) => m.includes('member plain shares this cooperative group without load-aware')),
      ).toHaveLength(1);
      expect(
        warnings.filter((m) => m.includes('member kjs offers only the eager LoadAwareAssigner protocol')),
      ).toHaveLength(1);
      const kinds = { group: 'orders-group' };
      expect(
        await metricValue(h.registry, 'load_aware_cooperative_foreign_members_total', {
          ...kinds,
          kind: 'plain_cooperative_sticky',
        }),
      ).toBe(2);
      expect(
        await metricValue(h.registry, 'load_aware_cooperative_foreign_members_total', {
          ...kinds,
          kind: 'eager_member',
        }),
      ).toBe(2);
      // A version-0 member means the broker chose the eager protocol: nothing is withheld.
      expect(h.promises).toEqual([]);
    });

    it('keeps the contract in the round-robin fallback too', async () => {
      const h = await harness({ cooperative: true, refresh: false });
      const out = assignSync(h.ctx, ownerAndJoiner(), leaderTopics, metadata);
      expect(labelsOf(out.find((a) => a.memberId === 'm2')!)).toEqual([]);
      expect(h.promises.length).toBe(3);
    });
  });
});
