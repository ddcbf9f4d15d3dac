import { Registry } from 'prom-client';
import type { Cluster, GroupDescription } from 'kafkajs';
import { LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import { turnOf } from '@load-aware/assignor/internal';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import type { Observation, SiblingLoad } from '@load-aware/trigger/internal';
import { description, fakeConsumer, observation, setup } from './fakes';
import { metadataAnswer, recordingLogger } from '@load-aware/test-support';

/**
 * Cross-group judging: the trigger weighs the combined load (the sibling groups' load on each
 * instance included), does not judge while a sibling is unsettled, starts a new streak when a
 * sibling's assignment changes, and fires only in its own group's turn.
 */

/** Balanced on its own: pod-a and pod-b hold 20 each of the group's 40. */
const evenAlone = (siblings?: SiblingLoad): Observation => ({
  ...observation({ a: [0, 1], b: [2, 3] }, [10, 10, 10, 10]),
  siblings,
});

const siblingsOnA = (load: number, fingerprint = 'h:x'): SiblingLoad => ({
  instanceBaseLoad: new Map([['pod-a', load]]),
  fingerprint,
  unavailable: [],
});

describe('threshold trigger with sibling groups', () => {
  it('judges the combined load: balanced alone, imbalanced with the sibling on one instance', () => {
    const { trigger } = setup();
    expect(trigger.evaluate(evenAlone()).outcome).toBe('balanced');
    // pod-a carries 40 more: now 60 vs 20, where 40 / 40 is possible (pod-b takes everything).
    const first = trigger.evaluate(evenAlone(siblingsOnA(40)));
    expect(first).toMatchObject({ outcome: 'awaiting_hysteresis', ratio: 1.5, currentMaxLoad: 60, optimalMaxLoad: 40 });
    expect(first.plan?.instances.map((i) => i.baseLoad)).toEqual([40, 0]);
    expect(trigger.evaluate(evenAlone(siblingsOnA(40))).outcome).toBe('fired');
  });

  it('does not judge while a sibling is unavailable, and keeps the streak', () => {
    const { trigger } = setup();
    expect(trigger.evaluate(evenAlone(siblingsOnA(40))).violatedChecks).toBe(1);
    const unsettled = trigger.evaluate(
      evenAlone({ ...siblingsOnA(40), unavailable: [{ groupId: 'h', reason: 'the group is PreparingRebalance' }] }),
    );
    expect(unsettled.outcome).toBe('siblings_unavailable');
    expect(unsettled.reason).toBe('the combined load is not known: h the group is PreparingRebalance');
    expect(unsettled.violatedChecks).toBe(1);
    expect(trigger.evaluate(evenAlone(siblingsOnA(40))).outcome).toBe('fired');
  });

  it("starts a new streak when a sibling's assignment changes", () => {
    const { trigger } = setup();
    expect(trigger.evaluate(evenAlone(siblingsOnA(40, 'h:one'))).violatedChecks).toBe(1);
    const changed = trigger.evaluate(evenAlone(siblingsOnA(40, 'h:two')));
    expect(changed).toMatchObject({ outcome: 'awaiting_hysteresis', violatedChecks: 1 });
    expect(trigger.evaluate(evenAlone(siblingsOnA(40, 'h:two'))).outcome).toBe('fired');
  });
});

describe('turnOf', () => {
  const settings = { groups: ['g', 'h', 'k'], maxStaleMs: 0, turnMs: 10_000 };

  it('hands the turns out in sorted order, each open during its first half', () => {
    expect(turnOf(settings, 'g', 1_000)).toEqual({ open: true, holder: 'g', opensInMs: 0 });
    expect(turnOf(settings, 'g', 6_000)).toEqual({ open: false, holder: 'g', opensInMs: 24_000 });
    expect(turnOf(settings, 'h', 1_000)).toEqual({ open: false, holder: 'g', opensInMs: 9_000 });
    expect(turnOf(settings, 'k', 12_000)).toEqual({ open: false, holder: 'h', opensInMs: 8_000 });
    expect(turnOf(settings, 'k', 21_000)).toEqual({ open: true, holder: 'k', opensInMs: 0 });
  });

  it('never opens two groups at once', () => {
    for (let now = 0; now < 100_000; now += 250) {
      const open = settings.groups.filter((g) => turnOf(settings, g, now).open);
      expect(open.length).toBeLessThanOrEqual(1);
    }
  });

  it('counts a group missing from the list as one of the set', () => {
    expect(turnOf({ ...settings, groups: ['h'] }, 'g', 1_000).open).toBe(true);
  });
});

describe('createTriggerController with a cross-group assigner', () => {
  const controllers: TriggerController[] = [];
  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
  });
  const tenEach: WeightSource = {
    getWeights: (partitions) => Promise.resolve(partitions.map((p) => ({ ...p, weight: 10 }))),
  };

  /** Group g, balanced on its own; sibling h has 4 partitions of 10 on pod-a. */
  function setupCross(sibling: () => Promise<GroupDescription>) {
    const registry = new Registry();
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({
      instanceId: 'pod-x',
      weights: tenEach,
      crossGroup: { groups: ['g', 'h'], turnMs: 10_000 },
    });
    const cluster = {
      refreshMetadataIfNecessary: () => Promise.resolve(),
      findGroupCoordinator: () =>
        Promise.resolve({
          describeGroups: async () => ({ groups: [await sibling()] }),
          metadata: (topics: string[]) => metadataAnswer({ t: 4 }, topics),
        }),
    } as unknown as Cluster;
    assigner({ cluster, groupId: 'g', logger: undefined as never }).protocol({ topics: ['t'] });
    const group = description('g', [
      { memberId: 'a-1', instanceId: 'pod-a', partitions: [0, 1] },
      { memberId: 'b-1', instanceId: 'pod-b', partitions: [2, 3] },
    ]);
    const consumer = fakeConsumer(() => Promise.resolve(group));
    const controller = createTriggerController(
      { target: assigner.triggerTarget(consumer) },
      { checkIntervalMs: 3_600_000, trigger: { cooldownMs: 60_000 }, logger, registry },
    );
    controllers.push(controller);
    consumer.emit('GROUP_JOIN', { memberId: 'a-1', groupId: 'g', isLeader: false, leaderId: 'z' });
    return { controller, assigner, registry, logger };
  }
  const siblingOnA = () =>
    Promise.resolve(description('h', [{ memberId: 'h-1', instanceId: 'pod-a', partitions: [0, 1, 2, 3], topic: 'u' }]));

  it('holds a fire outside its turn as not_due, then fires in its turn', async () => {
    const now = jest.spyOn(Date, 'now');
    const { controller, assigner, registry, logger } = setupCross(siblingOnA);
    now.mockReturnValue(11_000); // h's turn
    expect((await controller.checkNow()).outcome).toBe('awaiting_hysteresis');
    const held = await controller.checkNow();
    expect(held.outcome).toBe('not_due');
    expect(held.evaluation?.reason).toMatch(
      /held for this group's cross-group turn \(now group h's, this group's opens in 9.0 s\)$/,
    );
    expect(assigner.epochOf('g')).toBe(0);
    now.mockReturnValue(20_500); // g's turn: the streak stood
    const fired = await controller.checkNow();
    expect(fired.outcome).toBe('fired');
    expect(fired.evaluation?.ratio).toBe(1.5);
    expect(assigner.epochOf('g')).toBe(1);
    const text = await registry.metrics();
    expect(text).toContain('load_aware_trigger_evaluations_total{group="g",outcome="not_due"} 1');
    expect(text).toContain('load_aware_trigger_evaluations_total{group="g",outcome="siblings_unavailable"} 0');
    expect(logger.messages('info').some((m) => m.startsWith('rebalance initiated'))).toBe(true);
  });

  it('answers siblings_unavailable while the sibling rebalances', async () => {
    jest.spyOn(Date, 'now').mockReturnValue(1_000);
    let state = 'Stable';
    const { controller } = setupCross(async () => ({
      ...(await siblingOnA()),
      state: state as GroupDescription['state'],
    }));
    expect((await controller.checkNow()).outcome).toBe('awaiting_hysteresis');
    state = 'PreparingRebalance';
    expect((await controller.checkNow()).outcome).toBe('siblings_unavailable');
    state = 'Stable';
    expect((await controller.checkNow()).outcome).toBe('fired');
  });
});
