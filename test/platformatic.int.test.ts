import { setTimeout as sleep } from 'node:timers/promises';
import { uniqueName } from './support';
import { runInBackground } from './support/background-loop';
import { waitForStableGroup, type ObservedGroup } from './support/group';
import { startInstance } from './support/instance-process';
import { usePlatformaticFleet, type PlatformaticInstance } from './support/platformatic-fleet';
import type { WindowMember } from './fixtures/platformatic-instance';

/**
 * @load-aware/platformatic on the real broker (issue 29): placement by load beside platformatic's
 * own round-robin, stickiness through a leader change, the fallback on a dead weight source, a
 * mixed KafkaJS + platformatic group, static membership through `groupInstanceId`, and the
 * cooperative mode's pause through a proactive rebalance. Each platformatic instance runs in a
 * process of its own (platformatic is ESM only and needs Node >= 22.22 or >= 24.6; CI runs this
 * file in the Node 24 integration pass and skips it, visibly, on Node 20).
 */

const fleet = usePlatformaticFleet('platformatic');
const { brokers, kafka, shared, describeOnSupportedNode, reason } = fleet;

type Instance = PlatformaticInstance;
/** KafkaJS instances of the mixed-group tests; the fleet stops its own. */
const running: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.allSettled(running.splice(0).map((p) => p.stop()));
});

const startPlatformatic = (spec: Parameters<typeof fleet.start>[0]): Instance => fleet.start(spec);
const ready = (i: Instance) => fleet.ready(i);
/** When this instance last wrote the leader's assignment summary (0: never). */
const lastSummaryAt = (i: Instance): number =>
  i.last((e) => (e.event === 'log' && e.msg.startsWith('load-aware assignment:') ? e.at : undefined), 0);

/** Zipf-like weights, partition p weighing round(1000 / (p + 1)): one hot partition, a long tail. */
function zipf(topic: string, partitions: number): Record<string, number> {
  return Object.fromEntries(
    Array.from({ length: partitions }, (_, p) => [`${topic}:${String(p)}`, Math.round(1000 / (p + 1))]),
  );
}

/** Busiest instance's load ÷ an even share of the total, from the broker's view of the group. */
function busiestToFair(
  group: ObservedGroup,
  weights: Record<string, number>,
  instanceOf: (clientId: string) => string,
) {
  const loads = new Map<string, number>();
  for (const m of group.members) {
    const instance = instanceOf(m.clientId);
    loads.set(instance, (loads.get(instance) ?? 0) + m.assigned.reduce((s, p) => s + (weights[p] ?? 0), 0));
  }
  const total = Object.values(weights).reduce((a, b) => a + b, 0);
  return Math.max(...loads.values()) / (total / loads.size);
}

function expectEveryPartitionOnce(group: ObservedGroup, topic: string, partitions: number): void {
  const held = group.members.flatMap((m) => m.assigned).sort();
  expect(held).toEqual(Array.from({ length: partitions }, (_, p) => `${topic}:${String(p)}`).sort());
}

const instanceOfClient = (clientId: string): string => clientId.replace(/-\d+$/, '');

describeOnSupportedNode(`@load-aware/platformatic on a real broker${reason}`, () => {
  const createTopic = (partitions: number) => shared!.createTopic(partitions);
  const admin = () => shared!.admin;

  it('places a skewed topic by load across three instances within 1.1x of a fair share, where platformatic round-robin does not', async () => {
    const partitions = 24;
    const topic = await createTopic(partitions);
    const weights = zipf(topic, partitions);
    const ratios: Record<string, number> = {};
    for (const assigner of ['load-aware', 'round-robin'] as const) {
      const groupId = uniqueName(`group-${assigner}`);
      const instances = [1, 2, 3].map((members, i) =>
        startPlatformatic({ groupId, topic, instanceId: `${assigner}-${String(i)}`, members, weights, assigner }),
      );
      await Promise.all(instances.map(ready));
      const group = await waitForStableGroup(admin(), groupId, 6, partitions, 90_000);
      expect(group.protocol).toBe(assigner === 'load-aware' ? 'LoadAwareAssigner' : 'roundrobin');
      expectEveryPartitionOnce(group, topic, partitions);
      ratios[assigner] = busiestToFair(group, weights, instanceOfClient);
      await Promise.all(instances.map((i) => i.stop()));
    }
    process.stdout.write(`platformatic placement: busiest / fair share ${JSON.stringify(ratios)}\n`);
    expect(ratios['load-aware']).toBeLessThanOrEqual(1.1);
    expect(ratios['load-aware']!).toBeLessThan(ratios['round-robin']!);
  });

  it('keeps partitions where they are through a leader change: 0 defaulted weights, moved at most 1.5x what had to move', async () => {
    const partitions = 24;
    const topic = await createTopic(partitions);
    const weights = zipf(topic, partitions);
    const groupId = uniqueName('group-leader');
    const instances = ['pod-a', 'pod-b', 'pod-c'].map((instanceId, i) =>
      startPlatformatic({ groupId, topic, instanceId, members: i === 2 ? 2 : 1, weights }),
    );
    for (const i of instances) await ready(i);
    const before = await waitForStableGroup(admin(), groupId, 4, partitions, 90_000);
    // The leader is the instance that wrote the latest assignment summary.
    const latest = Math.max(...instances.map(lastSummaryAt));
    const leader = instances.findIndex((i) => lastSummaryAt(i) === latest);
    expect(latest).toBeGreaterThan(0);
    const leaving = instances[leader]!;
    const leavingId = ['pod-a', 'pod-b', 'pod-c'][leader]!;
    const ownerBefore = new Map(before.members.flatMap((m) => m.assigned.map((p) => [p, m.memberId] as const)));
    const necessary = before.members
      .filter((m) => instanceOfClient(m.clientId) === leavingId)
      .flatMap((m) => m.assigned).length;
    const seenBefore = instances.map((i) => i.events.length);
    await leaving.stop();
    const after = await waitForStableGroup(admin(), groupId, leavingId === 'pod-c' ? 2 : 3, partitions, 90_000);
    expectEveryPartitionOnce(after, topic, partitions);
    const moved = after.members.flatMap((m) => m.assigned.filter((p) => ownerBefore.get(p) !== m.memberId)).length;
    // The new leader is another process, with no memory of the last assignment.
    const newLines = instances.flatMap((i, n) => (n === leader ? [] : i.events.slice(seenBefore[n])));
    const summary = newLines.filter((e) => e.event === 'log' && e.msg.startsWith('load-aware assignment:')).at(-1);
    expect(summary).toBeDefined();
    const defaulted = summary?.event === 'log' ? summary.fields['defaulted'] : undefined;
    process.stdout.write(
      `platformatic leader change: moved ${String(moved)} / necessary ${String(necessary)}, defaulted ${String(defaulted)}\n`,
    );
    expect(defaulted).toBe(0);
    expect(moved).toBeLessThanOrEqual(1.5 * necessary);
    expect(busiestToFair(after, weights, instanceOfClient)).toBeLessThanOrEqual(1.1);
  });

  it("weighs by offset rate through platformatic's Admin: the first assignment has no defaulted weight and is within 1.1x of a fair share", async () => {
    const partitions = 8;
    const topic = await createTopic(partitions);
    const rates = Array.from({ length: partitions }, (_, p) => Math.max(1, Math.round(40 / (p + 1))));
    const producer = kafka.producer();
    await producer.connect();
    // Messages per round proportional to each partition's rate: the log's time index then holds
    // the skew before any consumer starts, so the first leader weighs from it (instant rates).
    const produce = runInBackground(async (stopped) => {
      const counts = new Map<string, number>();
      const deadline = Date.now() + 120_000;
      while (!stopped() && Date.now() < deadline) {
        const messages = rates.flatMap((n, partition) => Array.from({ length: n }, () => ({ partition, value: 'x' })));
        await producer.send({ topic, messages });
        rates.forEach((n, p) => counts.set(`${topic}:${String(p)}`, (counts.get(`${topic}:${String(p)}`) ?? 0) + n));
        await sleep(100);
      }
      return counts;
    });
    try {
      await sleep(6000);
      const groupId = uniqueName('group-offset-rate');
      const instances = ['rate-a', 'rate-b'].map((instanceId) =>
        startPlatformatic({ groupId, topic, instanceId, members: 1, weights: 'offset-rate' }),
      );
      for (const i of instances) await ready(i);
      const group = await waitForStableGroup(admin(), groupId, 2, partitions, 90_000);
      expectEveryPartitionOnce(group, topic, partitions);
      const summaries = instances
        .flatMap((i) => i.events)
        .flatMap((e) => (e.event === 'log' && e.msg.startsWith('load-aware assignment:') ? [e] : []));
      expect(summaries.length).toBeGreaterThan(0);
      expect(summaries.map((s) => s.fields['defaulted'])).toEqual(summaries.map(() => 0));
      const weights = Object.fromEntries(rates.map((n, p) => [`${topic}:${String(p)}`, n]));
      const ratio = busiestToFair(group, weights, instanceOfClient);
      process.stdout.write(`platformatic offset-rate weights: busiest / fair share ${ratio.toFixed(3)}\n`);
      expect(ratio).toBeLessThanOrEqual(1.1);
    } finally {
      await produce.stop();
      await producer.disconnect();
    }
  });

  it('falls back to round-robin over each subscription when the weight source is dead, and the group consumes', async () => {
    const partitions = 6;
    const topic = await createTopic(partitions);
    const groupId = uniqueName('group-dead');
    const instances = ['dead-a', 'dead-b'].map((instanceId) =>
      startPlatformatic({ groupId, topic, instanceId, members: 1, weights: 'dead' }),
    );
    for (const i of instances) await ready(i);
    const group = await waitForStableGroup(admin(), groupId, 2, partitions, 90_000);
    expectEveryPartitionOnce(group, topic, partitions);
    expect(group.members.map((m) => m.assigned.length)).toEqual([3, 3]);
    const lines = instances.flatMap((i) => i.events).flatMap((e) => (e.event === 'log' ? [e] : []));
    expect(
      lines.some(
        (l) =>
          l.level === 'warn' &&
          l.msg.startsWith('load-aware assignment failed (Weight source failed: no weights read yet'),
      ),
    ).toBe(true);
    expect(lines.some((l) => l.msg.startsWith('round-robin fallback assignment'))).toBe(true);
  });

  it.each(['platformatic', 'kafkajs'] as const)(
    'forms one load-aware group of KafkaJS and platformatic members (%s leads): every partition once, busiest within 1.1x of ideal',
    async (first) => {
      const partitions = 12;
      const topic = await createTopic(partitions);
      const weights = zipf(topic, partitions);
      const groupId = uniqueName('group-mixed');
      const startKafkaJs = async () => {
        const i = startInstance({
          brokers,
          groupId,
          topic,
          instanceId: 'kafkajs-pod',
          members: 2,
          weights,
          lifetimeMs: 170_000,
        });
        running.push(i);
        await i.ready;
      };
      const startPlat = async () =>
        ready(startPlatformatic({ groupId, topic, instanceId: 'platformatic-pod', members: 2, weights }));
      if (first === 'platformatic') {
        await startPlat();
        await sleep(3000);
        await startKafkaJs();
      } else {
        await startKafkaJs();
        await sleep(3000);
        await startPlat();
      }
      const group = await waitForStableGroup(admin(), groupId, 4, partitions, 90_000);
      expect(group.protocol).toBe('LoadAwareAssigner');
      expectEveryPartitionOnce(group, topic, partitions);
      // Both kinds are read as load-aware instances: their instance ids come from the same record.
      expect(new Set(group.members.map((m) => m.instanceId))).toEqual(new Set(['kafkajs-pod', 'platformatic-pod']));
      const byInstance = (clientId: string) =>
        group.members.find((m) => m.clientId === clientId)?.instanceId ?? clientId;
      const ratio = busiestToFair(group, weights, byInstance);
      process.stdout.write(`platformatic mixed group (${first} first): busiest / ideal ${ratio.toFixed(3)}\n`);
      expect(ratio).toBeLessThanOrEqual(1.1);
    },
  );

  it('takes a restarted static member back through groupInstanceId without a rebalance', async () => {
    const partitions = 6;
    const topic = await createTopic(partitions);
    const groupId = uniqueName('group-static');
    const spec = (id: string) => ({
      groupId,
      topic,
      instanceId: id,
      members: 1,
      weights: zipf(topic, partitions),
      groupInstanceIds: [`${id}-0`],
      sessionTimeoutMs: 30_000,
    });
    const a = startPlatformatic(spec('static-a'));
    await ready(a);
    const b = startPlatformatic(spec('static-b'));
    await ready(b);
    const before = await waitForStableGroup(admin(), groupId, 2, partitions, 90_000);
    const joinsOfA = () => a.events.filter((e) => e.event === 'assigned').length;
    const aJoins = joinsOfA();
    const generationOf = (i: Instance) => i.last((e) => (e.event === 'assigned' ? e.generationId : undefined), -1);
    const generation = generationOf(a);
    await b.kill(); // a crashed pod: no LeaveGroup
    const b2 = startPlatformatic(spec('static-b'));
    await ready(b2);
    await b2.waitFor((e) => e.some((x) => x.event === 'assigned'), 'assigned', 60_000);
    const after = await waitForStableGroup(admin(), groupId, 2, partitions, 90_000);
    const assignedOf = (g: ObservedGroup, clientPrefix: string) =>
      g.members.find((m) => m.clientId.startsWith(clientPrefix))?.assigned;
    expect(assignedOf(after, 'static-b')).toEqual(assignedOf(before, 'static-b'));
    expect(generationOf(b2)).toBe(generation);
    await sleep(3000);
    expect(joinsOfA()).toBe(aJoins); // the member that stayed never rejoined
  });

  it.each(['cooperative', 'eager'] as const)(
    'moves a few partitions in a proactive rebalance (%s): members that keep theirs keep processing, no partition held by two at once',
    async (mode) => {
      const partitions = 12;
      const topic = await createTopic(partitions);
      const groupId = uniqueName(`group-${mode}`);
      const even = Object.fromEntries(Array.from({ length: partitions }, (_, p) => [`${topic}:${String(p)}`, 10]));
      const instances = ['coop-a', 'coop-b', 'coop-c'].map((instanceId) =>
        startPlatformatic({ groupId, topic, instanceId, members: 1, weights: even, mode }),
      );
      for (const i of instances) await ready(i);
      const producer = kafka.producer();
      await producer.connect();
      // When each send completed: a keeper's gap is its own only while messages kept coming.
      const sent: number[] = [];
      const produce = runInBackground(async (stopped) => {
        const deadline = Date.now() + 120_000;
        while (!stopped() && Date.now() < deadline) {
          await producer.send({
            topic,
            messages: Array.from({ length: partitions }, (_, partition) => ({ partition, value: 'x' })),
          });
          sent.push(Date.now());
          await sleep(20);
        }
      });
      /** The longest time inside [from, to] with no send completing: a stall of the producer or broker. */
      const producerPauseIn = ([from, to]: [number, number]): number => {
        const inside = [from, ...sent.filter((t) => t > from && t < to), to];
        return Math.max(...inside.slice(1).map((t, i) => t - inside[i]!));
      };
      try {
        const before = await waitForStableGroup(admin(), groupId, 3, partitions, 90_000);
        expect(before.protocol).toBe(mode === 'cooperative' ? 'cooperative-sticky' : 'LoadAwareAssigner');
        await sleep(3000);
        for (const i of instances) i.send('window-start');
        // One partition of one member becomes 5x heavier: that member must shed a few light ones.
        const hot = before.members[0]!.assigned[0]!;
        const skewed = { ...even, [hot]: 50 };
        for (const i of instances) i.send(`weights ${JSON.stringify(skewed)}`);
        await sleep(500);
        instances[0]!.send('rebalance');
        let after: ObservedGroup | undefined;
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline) {
          after = await waitForStableGroup(admin(), groupId, 3, partitions, 60_000);
          if (
            after.members.some(
              (m) => m.assigned.join() !== before.members.find((b) => b.memberId === m.memberId)?.assigned.join(),
            )
          )
            break;
          await sleep(500);
        }
        await sleep(2000);
        for (const i of instances) i.send('window-end');
        await Promise.all(
          instances.map((i) => i.waitFor((e) => e.some((x) => x.event === 'window'), 'window', 10_000)),
        );
        const windows: WindowMember[] = instances.flatMap((i) =>
          i.last((e) => (e.event === 'window' ? e.members : undefined), []),
        );
        expectEveryPartitionOnce(after!, topic, partitions);
        const lost = (memberId: string) => {
          const was = before.members.find((m) => m.memberId === memberId)?.assigned ?? [];
          const now = after!.members.find((m) => m.memberId === memberId)?.assigned ?? [];
          return was.some((p) => !now.includes(p));
        };
        const moved = after!.members.flatMap((m) =>
          m.assigned.filter((p) => !before.members.find((b) => b.memberId === m.memberId)?.assigned.includes(p)),
        ).length;
        const keepers = windows.filter((w) => !lost(w.memberId));
        const worstKeeperGap = Math.max(...keepers.map((w) => w.maxGapMs));
        // What of each keeper's gap the rebalance caused: the gap less the longest stall of the
        // producer inside it (one send interval kept), since a stalled broker or producer on a loaded
        // machine starves every member alike, the ones that lost nothing included.
        const worstKeeperOwnGap = Math.max(...keepers.map((w) => w.maxGapMs - producerPauseIn(w.gapAt) + 20));
        // Held by two at once: an old owner processed a partition after its new owner started on it.
        let overlaps = 0;
        for (let p = 0; p < partitions; p++) {
          const spans = windows
            .flatMap((w) => {
              const s = w.partitions[`${topic}:${String(p)}`];
              return s === undefined ? [] : [s];
            })
            .sort((x, y) => x[0] - y[0]);
          for (let k = 1; k < spans.length; k++) if (spans[k]![0] < spans[k - 1]![1]) overlaps++;
        }
        process.stdout.write(
          `platformatic ${mode} rebalance: moved ${String(moved)}, keepers ${String(keepers.length)}, worst keeper gap ${String(worstKeeperGap)} ms ` +
            `(${String(worstKeeperOwnGap)} ms without the producer's stalls), ` +
            `gaps ${JSON.stringify(windows.map((w) => [w.memberId.slice(0, 12), w.maxGapMs, lost(w.memberId)]))}, overlaps ${String(overlaps)}\n`,
        );
        expect(moved).toBeGreaterThan(0);
        if (mode === 'cooperative') {
          expect(keepers.length).toBeGreaterThan(0);
          expect(worstKeeperOwnGap).toBeLessThanOrEqual(500);
          expect(overlaps).toBe(0);
        }
      } finally {
        await produce.stop();
        await producer.disconnect();
      }
    },
  );
});
