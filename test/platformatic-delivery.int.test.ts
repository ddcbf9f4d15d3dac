import { setTimeout as sleep } from 'node:timers/promises';
import { uniqueName } from './support';
import { runInBackground } from './support/background-loop';
import { waitForStableGroup, type ObservedGroup } from './support/group';
import { usePlatformaticFleet, type PlatformaticInstance } from './support/platformatic-fleet';
import type { ProcessedRun } from './fixtures/platformatic-instance';

/**
 * Nothing lost, on @platformatic/kafka consumers wired as docs/platformatic.md shows (attach,
 * groupOptions, `consume({ topics })` with no mode, manual commits after processing): a steady
 * 480 msg/s over 12 partitions through a proactive rebalance, a member joining an instance and a
 * new instance joining, in eager and cooperative mode. Every offset is accounted for: produced
 * (the log end), processed (each consumer reports its runs of offsets) and committed (the group's
 * offsets): 0 lost, duplicates under 1% of the messages, and in cooperative mode no partition
 * processed by two consumers at once. Also: a consume() in a mode that repeats or skips moved
 * partitions is refused with its code.
 */

const fleet = usePlatformaticFleet('platformatic-delivery');
const { kafka, shared, describeOnSupportedNode, reason } = fleet;

const PARTITIONS = 12;
/** One message per partition every 25 ms: 480 msg/s, the rate of the report this test answers. */
const SEND_INTERVAL_MS = 25;
/** What processing one message costs: a few messages sit in each stream's buffer at any time. */
const HANDLE_MS = 2;

type Instance = PlatformaticInstance;
const startPlatformatic = (spec: Parameters<typeof fleet.start>[0]): Instance => fleet.start(spec);
const ready = (i: Instance) => fleet.ready(i);

/** Every instance's processed runs, as of now. */
async function processedRuns(instances: Instance[]): Promise<{ runs: ProcessedRun[]; commitFailures: number }> {
  const seen = instances.map((i) => i.events.length);
  for (const i of instances) i.send('report');
  const reports = await Promise.all(
    instances.map(async (i, n) => {
      await i.waitFor((e) => e.slice(seen[n]).some((x) => x.event === 'processed'), 'processed report', 15_000);
      return i.last((e) => (e.event === 'processed' ? e : undefined), undefined)!;
    }),
  );
  return {
    runs: reports.flatMap((r) => r.runs),
    commitFailures: reports.reduce((sum, r) => sum + r.commitFailures, 0),
  };
}

/** What the runs say about offsets 0..end-1 of each partition. */
export function account(runs: ProcessedRun[], ends: number[], committed: number[]) {
  let lost = 0;
  let committedUnprocessed = 0;
  let processed = 0;
  let distinct = 0;
  const lostAt: string[] = [];
  for (let p = 0; p < ends.length; p++) {
    const seen = new Uint8Array(ends[p]!);
    for (const run of runs) {
      if (run.partition !== p) continue;
      for (let o = run.from; o <= run.to; o++) {
        processed++;
        if (o < seen.length && seen[o] === 0) {
          seen[o] = 1;
          distinct++;
        }
      }
    }
    for (let o = 0; o < seen.length; o++) {
      if (seen[o] === 1) continue;
      lost++;
      if (o < committed[p]!) committedUnprocessed++;
      if (lostAt.length < 5) lostAt.push(`${String(p)}@${String(o)}`);
    }
  }
  return { lost, committedUnprocessed, duplicates: processed - distinct, lostAt, rereads: rereads(runs) };
}

/**
 * Duplicates by who re-read them: the consumer that had processed them already (a keeper moved back
 * to its committed offset) or another one (a handover).
 */
function rereads(runs: ProcessedRun[]): { keeper: number; handover: number } {
  const counts = { keeper: 0, handover: 0 };
  const partitions = new Set(runs.map((r) => r.partition));
  for (const p of partitions) {
    const processedBy = new Map<number, string>();
    for (const run of runs.filter((r) => r.partition === p).sort((a, b) => a.startAt - b.startAt)) {
      for (let o = run.from; o <= run.to; o++) {
        const before = processedBy.get(o);
        if (before === run.client) counts.keeper++;
        else if (before !== undefined) counts.handover++;
        processedBy.set(o, run.client);
      }
    }
  }
  return counts;
}

/**
 * Pairs of runs of one partition by two consumers whose processing times overlap: the later
 * owner started before the earlier one processed its last message of that partition.
 */
export function concurrentRuns(runs: ProcessedRun[]): number {
  let overlaps = 0;
  for (let p = 0; p < PARTITIONS; p++) {
    const ofPartition = runs.filter((r) => r.partition === p).sort((a, b) => a.startAt - b.startAt);
    for (let i = 0; i < ofPartition.length; i++) {
      for (let j = i + 1; j < ofPartition.length; j++) {
        const [a, b] = [ofPartition[i]!, ofPartition[j]!];
        if (a.client !== b.client && b.startAt < a.endAt) overlaps++;
      }
    }
  }
  return overlaps;
}

describeOnSupportedNode(`@load-aware/platformatic delivers every message at least once${reason}`, () => {
  const admin = () => shared!.admin;

  it.each(['cooperative', 'eager'] as const)(
    '%s mode, documented wiring: 0 lost and under 1%% duplicates through a fire, a member join and an instance join',
    async (mode) => {
      const topic = await shared!.createTopic(PARTITIONS);
      const groupId = uniqueName(`group-delivery-${mode}`);
      const even = Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [`${topic}:${String(p)}`, 10]));
      const spec = (instanceId: string) => ({
        groupId,
        topic,
        instanceId,
        members: 1,
        weights: even,
        mode,
        delivery: { commits: 'manual' as const, handleMs: HANDLE_MS },
      });
      const instances = ['dlv-a', 'dlv-b', 'dlv-c'].map((id) => startPlatformatic(spec(id)));
      for (const i of instances) await ready(i);
      const before = await waitForStableGroup(admin(), groupId, 3, PARTITIONS, 90_000);
      expect(before.protocol).toBe(mode === 'cooperative' ? 'cooperative-sticky' : 'LoadAwareAssigner');

      const producer = kafka.producer();
      await producer.connect();
      const produce = runInBackground(async (stopped) => {
        const deadline = Date.now() + 120_000;
        while (!stopped() && Date.now() < deadline) {
          await producer.send({
            topic,
            messages: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: 'x' })),
          });
          await sleep(SEND_INTERVAL_MS);
        }
      });
      const steps: string[] = [];
      try {
        await sleep(4000);
        // A fire: one partition becomes 5x heavier, so its owner sheds a few light ones.
        const hot = before.members[0]!.assigned[0]!;
        for (const i of instances) i.send(`weights ${JSON.stringify({ ...even, [hot]: 50 })}`);
        await sleep(500);
        instances[0]!.send('rebalance');
        await movedFrom(before, groupId, 3);
        steps.push('fire');
        await sleep(4000);
        // A member joins an instance that runs already.
        instances[0]!.send('add-member');
        await waitForStableGroup(admin(), groupId, 4, PARTITIONS, 90_000);
        steps.push('member join');
        await sleep(4000);
        // A new instance joins.
        const joined = startPlatformatic(spec('dlv-d'));
        instances.push(joined);
        await ready(joined);
        await waitForStableGroup(admin(), groupId, 5, PARTITIONS, 90_000);
        steps.push('instance join');
        await sleep(4000);
      } finally {
        await produce.stop();
        await producer.disconnect();
      }

      const ends = (await admin().fetchTopicOffsets(topic))
        .sort((a, b) => a.partition - b.partition)
        .map((o) => Number(o.high));
      const produced = ends.reduce((a, b) => a + b, 0);
      // Everything produced is processed once the consumers catch up.
      for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
        if (account((await processedRuns(instances)).runs, ends, ends).lost === 0) break;
        await sleep(1000);
      }
      const { runs, commitFailures } = await processedRuns(instances);
      const committed = (await admin().fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions
        .sort((a, b) => a.partition - b.partition)
        .map((o) => Number(o.offset));
      const result = account(runs, ends, committed);
      const overlaps = concurrentRuns(runs);
      process.stdout.write(
        `platformatic delivery (${mode}, ${steps.join(', ')}): produced ${String(produced)}, lost ${String(result.lost)} ` +
          `(committed but never processed ${String(result.committedUnprocessed)}${result.lostAt.length > 0 ? `, first at ${result.lostAt.join(' ')}` : ''}), ` +
          `duplicates ${String(result.duplicates)} (${((100 * result.duplicates) / produced).toFixed(2)}%; ` +
          `${String(result.rereads.keeper)} re-read by their keeper, ${String(result.rereads.handover)} at a handover), ` +
          `partitions processed by two at once ${String(overlaps)}, commits refused ${String(commitFailures)}\n`,
      );
      expect(steps).toEqual(['fire', 'member join', 'instance join']);
      expect(produced).toBeGreaterThan(5000);
      expect(result.lost).toBe(0);
      expect(result.duplicates).toBeLessThanOrEqual(0.01 * produced);
      if (mode === 'cooperative') expect(overlaps).toBe(0);
    },
  );

  it("refuses consume({ mode: 'latest' }) on an attached consumer, with its code", async () => {
    const topic = await shared!.createTopic(2);
    const refused = startPlatformatic({
      groupId: uniqueName('group-refused'),
      topic,
      instanceId: 'refused',
      members: 1,
      weights: {},
      consume: { mode: 'latest' },
    });
    await refused.waitFor((e) => e.some((x) => x.event === 'consume-refused'), 'consume refused', 60_000);
    const event = refused.last((e) => (e.event === 'consume-refused' ? e : undefined), undefined)!;
    expect(event.code).toBe('LOAD_AWARE_PLATFORMATIC_UNSAFE_CONSUME_MODE');
    expect(event.message).toContain("mode: 'latest'");
  });
});

/** Waits until the group of `members` is stable with an assignment other than `before`'s. */
async function movedFrom(before: ObservedGroup, groupId: string, members: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const now = await waitForStableGroup(shared!.admin, groupId, members, PARTITIONS, 60_000);
    const changed = now.members.some(
      (m) => m.assigned.join() !== before.members.find((b) => b.memberId === m.memberId)?.assigned.join(),
    );
    if (changed) return;
    await sleep(500);
  }
  throw new Error('the fire moved nothing within 60 s');
}
