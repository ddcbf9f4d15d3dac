import { ConfigError } from '@load-aware/assignor';
import {
  createCompositeTrigger,
  createPeriodicTrigger,
  createThresholdTrigger,
  type CompositeDecision,
  type CompositeTriggerOptions,
  type Evaluation,
  type Trigger,
  type TriggerDecision,
  type TriggerOutcome,
} from '@load-aware/trigger';
import { errorThrownBy, manualClock } from '@load-aware/test-support';
import { observation } from '../fakes';

// Four partitions of 10 on two instances: 3+1 is skewed (ratio 1.5), 2+2 balanced.
const EVEN = [10, 10, 10, 10];
const skewed = observation({ m1: [0, 1, 2], m2: [3] }, EVEN);
const balanced = observation({ m1: [0, 1], m2: [2, 3] }, EVEN);

/** A trigger that answers from a script and records what it saw and how it was settled. */
function scripted(script: TriggerOutcome[]) {
  const settled: boolean[] = [];
  let checks = 0;
  const trigger: Trigger & { settle(fired: boolean): void } = {
    evaluate: () => {
      const outcome = script[Math.min(checks, script.length - 1)]!;
      checks++;
      return { outcome, reason: `scripted ${outcome}`, kind: 'scripted' };
    },
    settle: (fired) => settled.push(fired),
  };
  return { trigger, settled, checks: () => checks };
}

function setup() {
  const clock = manualClock(1_000_000);
  const threshold = createThresholdTrigger({
    minViolatedChecks: 2,
    cooldownMs: 10_000,
    maxCooldownMs: 40_000,
    now: clock.now,
    monotonicNow: clock.now,
  });
  const periodic = createPeriodicTrigger({ intervalMs: 60_000, now: clock.now, monotonicNow: clock.now });
  return { clock, threshold, periodic };
}

const outcomeOf = (d: TriggerDecision): string => d.outcome;

describe('createCompositeTrigger', () => {
  it.each([
    ['all', ['fired', 'fired'], 'fired'],
    ['all', ['fired', 'not_due'], 'not_due'],
    ['all', ['balanced', 'fired'], 'balanced'],
    ['any', ['balanced', 'fired'], 'fired'],
    ['any', ['balanced', 'not_due'], 'balanced'],
    ['any', ['not_due', 'balanced'], 'not_due'],
  ] as const)('%s of %j is %s', (mode, votes, expected) => {
    const children = votes.map((v) => scripted([v]));
    const composite = createCompositeTrigger({ mode, triggers: children.map((c) => c.trigger) });
    const d = composite.evaluate(balanced);
    expect(d).toMatchObject({ kind: 'composite', mode, outcome: expected });
    expect(d.children.map(outcomeOf)).toEqual(votes);
  });

  it('evaluates every child on every check, never short-circuiting, and settles each with the verdict', () => {
    // `all` whose first child holds, `any` whose first child fires: either could short-circuit.
    for (const [mode, first] of [
      ['all', 'balanced'],
      ['any', 'fired'],
    ] as const) {
      const a = scripted([first]);
      const b = scripted(['fired']);
      const composite = createCompositeTrigger({ mode, triggers: [a.trigger, b.trigger] });
      for (let i = 0; i < 3; i++) composite.evaluate(balanced);
      expect([a.checks(), b.checks()]).toEqual([3, 3]);
      const fired = mode === 'any';
      expect(a.settled).toEqual([fired, fired, fired]);
      expect(b.settled).toEqual([fired, fired, fired]);
    }
  });

  it("advances every child's state: a threshold child's streak grows while the composite holds", () => {
    const { threshold, periodic } = setup();
    const composite = createCompositeTrigger({ mode: 'all', triggers: [periodic, threshold] });
    const first = composite.evaluate(skewed);
    const second = composite.evaluate(skewed);
    expect(first.children.map(outcomeOf)).toEqual(['not_due', 'awaiting_hysteresis']);
    expect(second.children.map(outcomeOf)).toEqual(['not_due', 'fired']);
    expect(second.outcome).toBe('not_due');
    expect(second.reason).toMatch(/^all held \(periodic: next periodic fire in/);
  });

  it('all: a vetoed threshold fire never happened — no cooldown, no doubling, and it fires as soon as allowed', () => {
    const { clock, threshold } = setup();
    const gate = scripted(['not_due', 'not_due', 'not_due', 'not_due', 'fired']);
    const composite = createCompositeTrigger({ mode: 'all', triggers: [gate.trigger, threshold] });
    // Skewed all "night": the threshold votes to fire on every check from the second on.
    const night = [0, 1, 2, 3].map(() => {
      clock.t += 1_000;
      return composite.evaluate(skewed);
    });
    expect(night.map((d) => d.children[1]!.outcome)).toEqual(['awaiting_hysteresis', 'fired', 'fired', 'fired']);
    expect(night.every((d) => d.outcome === 'not_due')).toBe(true);
    // Told it did not fire, it kept the streak (3, 4 …) and never started a cooldown.
    const thresholdOf = (d: CompositeDecision): Evaluation => d.children[1] as Evaluation;
    expect(night.map((d) => thresholdOf(d).violatedChecks)).toEqual([1, 2, 3, 4]);
    expect(night.map((d) => thresholdOf(d).cooldownGrowth)).toEqual([undefined, undefined, undefined, undefined]);
    // The gate opens: the composite fires on that very check.
    clock.t += 1_000;
    const morning = composite.evaluate(skewed);
    expect(morning.outcome).toBe('fired');
    expect(morning.children[1]).toMatchObject({ outcome: 'fired', cooldownMs: 10_000, cooldownGrowth: undefined });
    // That fire was real: the cooldown runs from it.
    clock.t += 1_000;
    composite.evaluate(skewed);
    const after = composite.evaluate(skewed);
    expect(after.children[1]).toMatchObject({ outcome: 'cooldown_suppressed', cooldownMs: 20_000 });
  });

  it("any: a sibling's fire counts as the threshold child's own — its cooldown runs from it", () => {
    const { clock, threshold } = setup();
    const other = scripted(['fired', 'balanced']);
    const composite = createCompositeTrigger({ mode: 'any', triggers: [threshold, other.trigger] });
    // The threshold saw a balanced group, the sibling fired: the group rebalanced.
    expect(composite.evaluate(balanced)).toMatchObject({ outcome: 'fired' });
    // Skewed right after: the threshold confirms the imbalance, but the rebalance was 2 s ago.
    clock.t += 1_000;
    composite.evaluate(skewed);
    clock.t += 1_000;
    const next = composite.evaluate(skewed);
    expect(next.children[0]).toMatchObject({ outcome: 'cooldown_suppressed', cooldownRemainingMs: 18_000 });
    expect(next.outcome).toBe('cooldown_suppressed');
  });

  it("any: a threshold fire restarts a periodic child's period", () => {
    const { clock, threshold, periodic } = setup();
    const composite = createCompositeTrigger({ mode: 'any', triggers: [threshold, periodic] });
    clock.t += 30_000;
    composite.evaluate(skewed);
    expect(composite.evaluate(skewed)).toMatchObject({ outcome: 'fired' });
    // 60 s after the periodic trigger's creation, but only 30 s after the last rebalance.
    clock.t += 30_000;
    const d = composite.evaluate(balanced);
    expect(d.children.map(outcomeOf)).toEqual(['balanced', 'not_due']);
    clock.t += 30_000;
    expect(composite.evaluate(balanced)).toMatchObject({ outcome: 'fired', reason: /^any fired \(periodic: / });
  });

  it("nests: an enclosing composite's verdict is the last word for the inner composite's children", () => {
    const inner = scripted(['fired']);
    const veto = scripted(['not_due']);
    const composite = createCompositeTrigger({
      mode: 'all',
      triggers: [createCompositeTrigger({ mode: 'any', triggers: [inner.trigger] }), veto.trigger],
    });
    expect(composite.evaluate(balanced).outcome).toBe('not_due');
    // Settled true by the inner composite, then false by the outer one.
    expect(inner.settled).toEqual([true, false]);
  });

  it('declares the union of its children’s outcomes', () => {
    const { threshold, periodic } = setup();
    expect([...createCompositeTrigger({ mode: 'any', triggers: [periodic] }).outcomes].sort()).toEqual(
      [...periodic.outcomes].sort(),
    );
    expect(createCompositeTrigger({ mode: 'any', triggers: [threshold, periodic] }).outcomes).toHaveLength(10);
  });

  it.each([
    ['mode', { mode: 'some', triggers: [scripted(['fired']).trigger] }],
    ['mode', { triggers: [scripted(['fired']).trigger] }],
    ['triggers', { mode: 'all', triggers: [] }],
    ['triggers', { mode: 'all' }],
    ['triggers[0]', { mode: 'all', triggers: [{ threshold: 1.2 }] }],
    ['triggers[0].evaluate', { mode: 'all', triggers: [{ evaluate: 'yes' }] }],
    ['extra', { mode: 'all', triggers: [scripted(['fired']).trigger], extra: 1 }],
  ])('rejects bad options with a ConfigError naming %s', (key, options) => {
    const err = errorThrownBy(() => createCompositeTrigger(options as unknown as CompositeTriggerOptions), ConfigError);
    expect(err.code).toBe('LOAD_AWARE_CONFIG');
    expect(err.message).toContain(key === 'triggers[0]' ? 'expected a Trigger' : key);
  });
});
