import type { GenerationRecord } from '../demo/record';
import { transition, weightedMoves } from '../demo/rolling-analysis';
import { fewestMoves, type NecessaryInput } from '../demo/rolling-necessary';
import { seededRandom } from '../demo/traffic';

/** Fewest moves and least moved weight over every assignment (instances^partitions of them). */
function bruteForce(input: NecessaryInput): { moves: number; weight: number } | undefined {
  const instances = [...input.capacities.keys()];
  let moves = Infinity;
  let weight = Infinity;
  const at = input.weights.map(() => 0);
  const visit = (p: number): void => {
    if (p === input.weights.length) {
      const load = instances.map(() => 0);
      at.forEach((i, q) => (load[i]! += input.weights[q]!));
      if (load.some((l, i) => l > input.limit * input.capacities.get(instances[i]!)! * (1 + 1e-9))) return;
      const moved = at.map((i, q) => instances[i] !== input.keepAt[q]);
      moves = Math.min(moves, moved.filter(Boolean).length);
      weight = Math.min(
        weight,
        moved.reduce((n, m, q) => n + (m ? input.weights[q]! : 0), 0),
      );
      return;
    }
    for (let i = 0; i < instances.length; i++) {
      at[p] = i;
      visit(p + 1);
    }
  };
  visit(0);
  return moves === Infinity ? undefined : { moves, weight };
}

describe('fewestMoves', () => {
  it('finds what the exhaustive search finds, by count and by weight, on random small inputs', () => {
    const random = seededRandom(11);
    let infeasible = 0;
    for (let round = 0; round < 60; round++) {
      const partitions = 4 + Math.floor(random() * 5);
      const names = ['a', 'b', 'c'].slice(0, 2 + Math.floor(random() * 2));
      const capacities = new Map(names.map((n) => [n, 1 + Math.floor(random() * 2)]));
      const weights = Array.from({ length: partitions }, () => Math.round(1 + random() * 50));
      // Some partitions' owners left ('gone' is no running instance).
      const keepAt = weights.map(() => (random() < 0.2 ? undefined : names[Math.floor(random() * names.length)]));
      const total = weights.reduce((a, b) => a + b, 0);
      const members = [...capacities.values()].reduce((a, b) => a + b, 0);
      const limit = (total / members) * (1 + random() * 0.5);
      const input = { weights, keepAt, capacities, limit };
      const expected = bruteForce(input);
      const byCount = fewestMoves(input, 'count');
      const byWeight = fewestMoves(input, 'weight');
      if (expected === undefined) {
        infeasible++;
        expect(byCount).toBeUndefined();
        continue;
      }
      expect(byCount).toMatchObject({ moves: expected.moves, exact: true });
      expect(byWeight?.weight).toBeCloseTo(expected.weight, 9);
    }
    // The generator must mostly ask feasible questions, or the comparison proves little.
    expect(infeasible).toBeLessThan(30);
  });

  it('moves nothing when every partition may stay and the previous loads already meet the limit', () => {
    const capacities = new Map([
      ['a', 1],
      ['b', 1],
    ]);
    expect(fewestMoves({ weights: [5, 5], keepAt: ['a', 'b'], capacities, limit: 5 }, 'count')).toEqual({
      moves: 0,
      weight: 0,
      exact: true,
    });
  });
});

function gen(generationId: number, members: Record<string, number[]>): GenerationRecord {
  return {
    generationId,
    t: generationId,
    leaderInstance: undefined,
    leaderMemberId: undefined,
    members: Object.entries(members).map(([memberId, partitions]) => ({
      memberId,
      instanceId: memberId.split('#')[0]!,
      partitions,
    })),
  };
}

describe('weightedMoves', () => {
  it('counts the moves a weighted balance needs where equal counts would need none', () => {
    // Same counts before and after (2 each): the count-only necessary is 0. By weight, b's 10 + 10
    // against a's 1 + 1 must trade a hot partition for a cold one to reach the new balance (11 each).
    const before = gen(1, { 'a#1': [0, 1], 'b#1': [2, 3] });
    const after = gen(2, { 'a#1': [0, 2], 'b#1': [1, 3] });
    const rates = [1, 1, 10, 10];
    const t = transition(before, after, 4, rates);
    expect(t).toMatchObject({ moved: 2, necessary: 0 });
    expect(t.weighted).toEqual({ necessary: 2, necessaryWeight: 11, movedWeight: 11, limit: 11, exact: true });
  });

  it('counts every partition whose owner left, and lets partitions of owners who stayed keep their instance', () => {
    const before = gen(1, { 'a#1': [0], 'b#1': [1], 'c#1': [2, 3] });
    const after = gen(2, { 'a#1': [0, 2], 'b#1': [1, 3] });
    const w = weightedMoves(before, after, 4, [4, 4, 2, 2]);
    expect(w).toMatchObject({ necessary: 2, necessaryWeight: 4, movedWeight: 4, limit: 6 });
  });
});
