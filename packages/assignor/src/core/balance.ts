import type { BalanceInput, BalanceOptions, BalanceResult, InstanceLoad } from './types.js';
import { buildModel, type BalanceModel } from './model/model.js';
import { emptyTallies, placeGreedy } from './place/greedy.js';
import { instanceLowerBound, placeOnInstances, placeOnMembers } from './solve/levels.js';
import { resolvePrevious } from './model/previous.js';
import { summarize } from './report/summarize.js';
import { resolveBalanceOptions } from './model/tuning.js';
import { buildRackModel, memberRacksOf, type RackModel } from './racks/rack-model.js';
import { placeWithRacks } from './racks/place-with-racks.js';
import { NO_RACKS, tallyRacks } from './racks/rack-tally.js';

/**
 * Places every partition on exactly one subscribed member so that instance loads (per unit of
 * capacity) come out even, then member loads inside each instance.
 *
 * Starts from the reference greedy (heaviest partition first onto the least-loaded eligible
 * instance), improves it by moves, swaps and chains towards a lower bound (`lowerBound` and
 * `optimalityRatio` say how close it got), then levels out the rest so that no partition could
 * move to another subscriber and lower the pair's larger load. With `previous` (the current
 * owners) it is sticky: partitions stay put unless moving them buys more than
 * `options.moveTolerance`, at most `options.maxMovesPerRebalance` leave a still-valid owner, and
 * no topic moves both ways between two members.
 *
 * With racks (`members[].rack`, `partitions[].racks`), partitions fetched across racks then move
 * or trade places into an instance of a replica's rack, as far as every instance stays within the
 * balance reached. The objective is, in order: the busiest instance, the cross-rack weight,
 * stickiness, member balance. Where racks cannot matter (no member has one, or every partition is
 * in all or none of the members' racks) the placement is exactly what it is without them.
 * `crossRackWeight`, `crossRackPartitions` and `crossRackLowerBound` report the outcome.
 *
 * Pure and deterministic: no I/O, clock or randomness; the same input in any order gives the same
 * result. Unusable weights (missing, NaN, ±Infinity, negative) count as `options.defaultWeight`
 * (1) and are reported in `defaultedCount`.
 *
 * @throws {@link InvalidBalanceInputError} when member ids are empty or duplicated, or an option
 * is out of range.
 *
 * @example
 * ```ts
 * const input = {
 *   members: [
 *     { memberId: 'a-1', instanceId: 'pod-a', topics: ['orders'] },
 *     { memberId: 'b-1', instanceId: 'pod-b', topics: ['orders'] },
 *   ],
 *   partitions: [
 *     { topic: 'orders', partition: 0, weight: 900 },
 *     { topic: 'orders', partition: 1, weight: 50 },
 *     { topic: 'orders', partition: 2, weight: 40 },
 *   ],
 * };
 * const first = balance(input);
 * // pod-a gets partition 0 alone; pod-b gets partitions 1 and 2.
 * const next = balance({ ...input, previous: first.assignments });
 * // Same weights: nothing moves (next.movedCount === 0).
 * ```
 */
export function balance(input: BalanceInput, options: BalanceOptions = {}): BalanceResult {
  const settings = resolveBalanceOptions(options);
  const memberRacks = memberRacksOf(input);
  const model = buildModel(input, settings.defaultWeight, memberRacks);
  const previous = resolvePrevious(model, input);
  const level = {
    tolerance: settings.moveTolerance,
    aim: settings.orphanAim,
    budget: { remaining: settings.searchBudget },
    moves: { limit: settings.maxMoves, used: 0 },
  };
  const racks = memberRacks === undefined ? undefined : buildRackModel(model, input, memberRacks);
  const instances =
    racks?.active === true
      ? placeWithRacks(model, racks, previous, level, settings.searchBudget)
      : placeOnInstances(model, previous, level);
  const owner = placeOnMembers(model, instances.instance, previous, level);
  const result = summarize(model, owner, instances.lowerBound, previous);
  return racks === undefined ? { ...result, ...NO_RACKS } : withRacks(model, result, racks, instances.instance);
}

/** `result` with its rack figures ({@link tallyRacks}) and each instance's rack, for the log and the CLI. */
function withRacks(
  model: BalanceModel,
  result: ReturnType<typeof summarize>,
  racks: RackModel,
  instanceOf: Int32Array,
): BalanceResult {
  const tally = tallyRacks(model, racks, instanceOf, result.maxCombinedLoad);
  const instances = result.instances.map((instance, i): InstanceLoad => {
    const r = racks.instanceRack[i]!;
    return r < 0 ? instance : { ...instance, rack: racks.racks[r]! };
  });
  return { ...result, instances, ...tally };
}

/**
 * The reference library's placement, kept for comparison (benchmarks, tests): heaviest first onto
 * the least-loaded eligible instance, then its least-loaded subscribed member, nothing improved and
 * `previous` ignored (base loads count, as in the reference's cross-group mode). `lowerBound` and
 * `optimalityRatio` are filled in as by {@link balance}, so the two compare directly.
 */
export function referenceBalance(input: BalanceInput, options: BalanceOptions = {}): BalanceResult {
  const memberRacks = memberRacksOf(input);
  const model = buildModel(input, resolveBalanceOptions(options).defaultWeight, memberRacks);
  const tallies = emptyTallies(model);
  const owner = placeGreedy(model, tallies);
  const result = summarize(model, owner, instanceLowerBound(model), undefined);
  if (memberRacks === undefined) return { ...result, ...NO_RACKS };
  const racks = buildRackModel(model, input, memberRacks);
  return withRacks(
    model,
    result,
    racks,
    Int32Array.from(owner, (m) => model.memberInstance[m]!),
  );
}
