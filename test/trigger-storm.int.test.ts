import { waitForStableGroup } from './support/group';
import { eventually } from './support/trigger-instances';
import { coordinatorSum, createTriggerScenario, type TriggerScenario } from './support/trigger-scenario';

// Waits on four triggered rebalances spread along the cooldown schedule.
jest.setTimeout(90_000);

// 24 partitions: the rotating hotspot comes back to the partition an assignment isolated only
// after 24 weight calls (12 s of checks), longer than the largest cooldown, so no check in
// between can find the group balanced.
const PARTITIONS = 24;
const COOLDOWN_MS = 2000;
const MAX_COOLDOWN_MS = 6000;
const CHECK_MS = 500;

describe('the rebalance trigger when the optimum is unreachable', () => {
  let scenario: TriggerScenario | undefined;
  afterEach(async () => {
    await scenario?.close();
    scenario = undefined;
  });

  it('thins out its fires along the cooldown schedule with a WARN each time, one rebalance per fire and no storm', async () => {
    // The hotspot moves on every call of the weight source, so whatever the leader assigns, the
    // coordinator's next check sees a new optimum: every fire fails to help. The assignment puts
    // the hot partition (200) alone and splits the 23 cold ones (10 each) 12/11; a hotspot anywhere
    // else is ratio 1.5 or more.
    const s = (scenario = await createTriggerScenario(
      PARTITIONS,
      { rotate: { partitions: PARTITIONS, hot: 200, cold: 10 } },
      {
        checkIntervalMs: CHECK_MS,
        sessionTimeoutMs: 6000,
        trigger: { threshold: 1.1, minViolatedChecks: 2, cooldownMs: COOLDOWN_MS, maxCooldownMs: MAX_COOLDOWN_MS },
        attach: 'command',
      },
    ));
    // trig-a joins first: it is both leader and coordinator, so one weight source (one rotation)
    // serves both the assignments and the checks.
    await s.start(['trig-a', 'trig-b', 'trig-c']);
    await waitForStableGroup(s.admin, s.groupId, 3, PARTITIONS);
    const [coordinator] = s.instances;
    await eventually(() => s.instances.every((i) => i.generation() === coordinator!.generation()), 'one generation');
    const generationBefore = coordinator!.generation();
    const attachedAt = Date.now();
    for (const i of s.instances) i.send('attach');

    const fireTimes = (): number[] =>
      coordinator!
        .logs('info')
        .filter((l) => l.message.startsWith('rebalance initiated'))
        .map((l) => l.at);
    await coordinator!.waitFor(() => fireTimes().length >= 4, 'four fires', 60_000);
    // One more check interval, so the WARN judging the fourth fire can arrive.
    await new Promise((r) => setTimeout(r, 2 * CHECK_MS + 2000));

    const fires = fireTimes();
    const gaps = fires.slice(1).map((t, i) => t - fires[i]!);
    const schedule = [2 * COOLDOWN_MS, MAX_COOLDOWN_MS, MAX_COOLDOWN_MS];
    expect(fires).toHaveLength(4);
    gaps.forEach((gap, i) => {
      // Never earlier than the doubled cooldown; late only by a few checks plus one rebalance.
      expect(gap).toBeGreaterThanOrEqual(schedule[i]! - 20);
      expect(gap).toBeLessThan(schedule[i]! + 3000);
    });
    const warns = coordinator!
      .logs('warn')
      .map((l) => l.message)
      .filter((m) => m.startsWith('the last triggered rebalance did not bring the group within'));
    expect(warns).toHaveLength(4);
    expect(warns[0]).toContain('cooldown doubled from 2.0 s to 4.0 s');
    expect(warns[1]).toContain('cooldown doubled from 4.0 s to 6.0 s');
    expect(warns[2]).toContain('cooldown stays at its maximum 6.0 s');
    expect(warns.every((w) => w.includes('Likely causes: weights changed between the rebalance and this check'))).toBe(
      true,
    );
    // No storm: each fire is one rebalance, and nothing else rebalanced the group.
    await eventually(
      () => s.instances.every((i) => i.generation() === generationBefore + fires.length),
      'one generation per fire',
      10_000,
    );
    for (const i of s.instances) {
      expect(i.events.filter((e) => e.event === 'join' && e.at > attachedAt)).toHaveLength(fires.length);
    }
    expect(coordinatorSum(s.instances)).toBe(1);
    process.stdout.write(
      `trigger storm: fires at +${fires.map((t) => String(t - fires[0]!)).join(', +')} ms; generation ` +
        `${String(generationBefore)} -> ${String(coordinator!.generation())}\n`,
    );
  });
});
