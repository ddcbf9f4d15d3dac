import fc from 'fast-check';
import { balance } from '@load-aware/assignor';
import { countImbalances, invalidPlacements, twoWayMoves } from './group-rules';
import { rounds } from './equal-weights-rounds';

/**
 * Kafka's balance rule with equal weights, whatever the subscriptions and their changes: after
 * every round of random joins, leaves, resubscriptions and growing topics, no member holds a
 * partition that another subscriber of its topic, holding two or more fewer, could take. The
 * default options apply: with equal weights the move tolerance may not excuse a gap.
 *
 * 250 sequences of 40 rounds: 10,000 rebalances. `LOAD_AWARE_LONG=1` runs ten times as many.
 */
const SEQUENCES = process.env['LOAD_AWARE_LONG'] === '1' ? 2_500 : 250;
const ROUNDS_PER_SEQUENCE = 40;

describe('balance() with equal weights', () => {
  it('keeps Kafka’s pairwise rule, validity and no two-way moves in every round of random subscription changes', () => {
    let checked = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), (seed) => {
        // One assertion per sequence, naming each round that broke a rule: cheap when all pass.
        const broken: string[] = [];
        let before: ReturnType<typeof balance>['assignments'] | undefined;
        for (const round of rounds(seed, ROUNDS_PER_SEQUENCE, (input) => balance(input))) {
          const problems = [
            ...invalidPlacements(round.input, round.result),
            ...countImbalances(round.input, round.result),
            ...(before === undefined ? [] : twoWayMoves(before, round.result).map((m) => `two-way ${m}`)),
          ];
          if (problems.length > 0) broken.push(`seed ${String(seed)}, after "${round.change}": ${problems.join('; ')}`);
          before = round.result.assignments;
          checked++;
        }
        expect(broken).toEqual([]);
      }),
      { numRuns: SEQUENCES },
    );
    expect(checked).toBe(SEQUENCES * ROUNDS_PER_SEQUENCE);
  });
});
