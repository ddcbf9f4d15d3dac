import { uniqueName } from './support';
import { waitForStableGroup } from './support/group';
import { adminLags, expectedLag } from './support/group-lag';
import { produceAtRates, type RateProducer } from './support/offset-rate-producer';
import { usePlatformaticFleet, type PlatformaticInstance } from './support/platformatic-fleet';
import { waitUntil } from './support/wait';
import type { PlatformaticInstanceEvent } from './fixtures/platformatic-instance';

type LogEvent = Extract<PlatformaticInstanceEvent, { event: 'log' }>;
type GaugesEvent = Extract<PlatformaticInstanceEvent, { event: 'gauges' }>;

/**
 * The coordinator's lag gauges on a real @platformatic/kafka group, checked against the offsets a
 * KafkaJS admin reads on its own (test/group-lag.int.test.ts is the same on KafkaJS consumers).
 * Two instance processes of one platformatic consumer each (dynamic members, no groupInstanceId)
 * consume four partitions produced at 15 records/s each, so each member receives 30/s; its handler
 * takes 100 ms a message (about 10/s) and commits each one after it (`autocommit: false`, `await
 * message.commit()`), so the lag grows. Weights come from the offset-rate source reading through a
 * platformatic `Admin` (records/s); the trigger reads the group's progress through the `Admin`
 * given to `triggerTarget(consumer, admin)`. At a declared member capacity of 100 the drain
 * estimate is a finite lag ÷ (100 − 30); at 10 the group never drains at this load. Each instance
 * is a process of its own (platformatic is ESM only and needs Node >= 22.22 or >= 24.6; skipped,
 * visibly, on Node 20).
 */

const PARTITIONS = 4;
const PER_SECOND = 15;
const HANDLER_MS = 100;
/** The offset-rate estimate and the timing between the admin's reads and the check's: within 30%. */
const TOLERANCE = 0.3;

const fleet = usePlatformaticFleet('platformatic-lag');
const { shared, describeOnSupportedNode, reason } = fleet;

const within = (actual: number | undefined, expected: number, slack = 0): boolean =>
  actual !== undefined && Math.abs(actual - expected) <= TOLERANCE * expected + slack;

const lagLines = (i: PlatformaticInstance): string[] =>
  i.events.filter((e): e is LogEvent => e.event === 'log' && e.msg.startsWith('group lag:')).map((e) => e.msg);
/** The lag check's WARN lines: `group lag is not measured: …`, `group lag not read: …`. */
const lagWarnings = (instances: ReadonlyArray<PlatformaticInstance>): string[] =>
  instances
    .flatMap((i) => i.events.filter((e): e is LogEvent => e.event === 'log' && e.level === 'warn'))
    .map((e) => e.msg)
    .filter((m) => m.startsWith('group lag'));
const gaugeEvents = (i: PlatformaticInstance): GaugesEvent[] =>
  i.events.filter((e): e is GaugesEvent => e.event === 'gauges');

/** The published figures of one check, by the names of test/group-lag.int.test.ts. */
interface LagGauges {
  messages: number | undefined;
  seconds: number | undefined;
  drain: number | undefined;
  never: number | undefined;
  noCommit: number | undefined;
  noRate: number | undefined;
}

/**
 * Runs a check now at whichever instance holds the coordinator role and returns the lag gauges it
 * published; undefined while neither holds it.
 */
async function checkNow(instances: ReadonlyArray<PlatformaticInstance>): Promise<LagGauges | undefined> {
  const seen = instances.map((i) => gaugeEvents(i).length);
  for (const i of instances) i.send('check');
  await Promise.all(
    instances.map((i, n) => i.waitFor(() => gaugeEvents(i).length > seen[n]!, 'the gauges after a check', 20_000)),
  );
  const at = instances.map((i, n) => gaugeEvents(i)[seen[n]!]!).find((e) => e.coordinator);
  if (at === undefined) return undefined;
  const v = at.values;
  return {
    messages: v['load_aware_group_lag_messages'],
    seconds: v['load_aware_group_lag_seconds'],
    drain: v['load_aware_group_drain_seconds'],
    never: v['load_aware_group_drain_never'],
    noCommit: v['load_aware_group_lag_unmeasured_partitions{reason=no_commit}'],
    noRate: v['load_aware_group_lag_unmeasured_partitions{reason=no_rate}'],
  };
}

describeOnSupportedNode(`the group lag gauges on a platformatic group falling behind${reason}`, () => {
  jest.setTimeout(180_000);
  let producer: RateProducer | undefined;
  afterEach(async () => {
    await producer?.stop();
    producer = undefined;
  });

  /** A slow two-instance platformatic group on a fresh topic, production not yet started. */
  async function slowGroup(memberCapacity: number) {
    const topic = await shared!.createTopic(PARTITIONS);
    const groupId = uniqueName('platformatic-lag-group');
    const instances = ['lag-a', 'lag-b'].map((instanceId) =>
      fleet.start({
        groupId,
        topic,
        instanceId,
        members: 1,
        weights: 'offset-rate',
        delivery: { commits: 'manual', handleMs: HANDLER_MS },
        trigger: { checkIntervalMs: 1000 },
        lag: { memberCapacity },
      }),
    );
    for (const i of instances) await fleet.ready(i);
    await waitForStableGroup(shared!.admin, groupId, 2, PARTITIONS, 90_000);
    const coordinator = () => waitUntil(() => checkNow(instances), 'a trigger coordinator that checked', 30_000, 500);
    const produce = () => {
      producer = produceAtRates(
        fleet.kafka,
        Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition, perSecond: PER_SECOND })),
        120_000,
      );
    };
    return { topic, groupId, instances, coordinator, produce };
  }

  it('publishes lag, seconds behind and time to drain that match the offsets an admin reads', async () => {
    const { topic, groupId, instances, coordinator, produce } = await slowGroup(100);

    // Nothing produced, nothing committed: every partition is counted apart, none has seconds.
    expect(await coordinator()).toEqual({
      messages: 0,
      seconds: undefined,
      drain: 0,
      never: 0,
      noCommit: PARTITIONS,
      noRate: 0,
    });
    // A target that cannot read the group's offsets would say so here, once, and publish nothing.
    expect(lagWarnings(instances)).toEqual([]);
    const first = instances.flatMap(lagLines)[0];
    expect(first).toContain(`left out: ${String(PARTITIONS)} partition(s) without a committed offset`);

    produce();
    const producedAt = Date.now();
    // Until every partition has a commit, some partition is at least 8 s behind, and the offset-rate
    // window (10 s) holds production only, so the rates the seconds divide by are the real ones.
    await waitUntil(
      async () => {
        const g = await coordinator();
        return g.noCommit === 0 && (g.seconds ?? 0) >= 8 && Date.now() - producedAt >= 15_000 ? true : undefined;
      },
      'a lag of 8 s behind on some partition',
      90_000,
      1000,
    );

    const before = await adminLags(shared!.admin, groupId, topic);
    const gauges = await coordinator();
    const after = await adminLags(shared!.admin, groupId, topic);
    // Each member receives 30/s of a declared 100: its lag drains at 70/s. The lag moves between
    // the two admin reads (produced and committed meanwhile): that much slack.
    const expected = await expectedLag(
      shared!.admin,
      groupId,
      { before, after },
      { perSecond: PER_SECOND, memberCapacity: 100 },
    );
    const drift = expected.drift;
    const lines = instances.flatMap(lagLines);
    process.stdout.write(
      `platformatic group lag ${String(Math.round((Date.now() - producedAt) / 1000))} s into production: ` +
        `gauges ${JSON.stringify(gauges)}, admin ${JSON.stringify(expected)}, drift ${String(drift)}\n` +
        `${lines.join('\n')}\n`,
    );
    expect(expected.held.map((ps) => ps.length).sort()).toEqual([2, 2]);
    expect(within(gauges.messages, expected.messages, drift)).toBe(true);
    expect(within(gauges.seconds, expected.seconds, drift / PER_SECOND)).toBe(true);
    expect(within(gauges.drain, expected.drain, drift / 70)).toBe(true);
    expect(gauges).toMatchObject({ never: 0, noCommit: 0, noRate: 0 });
    // Logged on the first check, when the commits came, and on doublings: not at every check.
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThanOrEqual(6);
    expect(lines.at(-1)).toMatch(/drains in \d+(\.\d+)? s at a member capacity of 100 \(slowest: instance lag-[ab]\)/);
    expect(lagWarnings(instances)).toEqual([]);
  });

  it('says the group never drains when a member receives more than its capacity, with no drain figure', async () => {
    const { instances, coordinator, produce } = await slowGroup(10);
    produce();
    await waitUntil(
      async () => ((await coordinator()).never === 1 ? true : undefined),
      'the coordinator to see a member that never drains',
      90_000,
      1000,
    );
    const linesBefore = instances.flatMap(lagLines).length;
    let last: LagGauges | undefined;
    for (let i = 0; i < 5; i++) last = await coordinator();
    expect(last).toMatchObject({ drain: undefined, never: 1, noCommit: 0 });
    expect(last!.messages).toBeGreaterThan(0);
    const never = instances.flatMap(lagLines).find((m) => m.includes('never drains at this load'));
    expect(never).toMatch(
      /never drains at this load: a member of instance lag-[ab] receives \d+(\.\d+)?, at or above the member capacity of 10/,
    );
    // The same picture five checks in a row: at most one new line (a doubling of the seconds behind).
    expect(instances.flatMap(lagLines).length - linesBefore).toBeLessThanOrEqual(1);
    expect(lagWarnings(instances)).toEqual([]);
    process.stdout.write(`platformatic group lag, never: ${never!}\n`);
  });
});
