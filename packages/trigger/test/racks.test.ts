import { createThresholdTrigger } from '@load-aware/trigger';
import type { Observation } from '@load-aware/trigger/internal';
import { balance } from '@load-aware/assignor';

/**
 * The trigger plans with the racks the leader places with: a rack-matched assignment whose
 * busiest instance is within the move tolerance of the best placement ignoring racks is what the
 * leader would produce again, so the trigger must see nothing to gain and never fire to undo it.
 */
const RACKS = ['a', 'b', 'c'];
// Rack a holds the heavy partitions: matching racks costs some balance, within the tolerance.
const WEIGHTS = [30, 29, 28, 27, 12, 11, 10, 10, 9, 9, 8, 8, 7, 7, 6, 6, 5, 5];
const partitions = WEIGHTS.map((weight, partition) => ({
  topic: 't',
  partition,
  weight,
  racks: [RACKS[partition % 3]!],
}));
const members = RACKS.map((rack) => ({ memberId: `m-${rack}`, instanceId: `pod-${rack}`, topics: ['t'], rack }));

function observed(assignments: ReadonlyMap<string, ReadonlyArray<{ topic: string; partition: number }>>): Observation {
  return {
    state: 'Stable',
    members: members.map((m) => ({ ...m, assigned: [...(assignments.get(m.memberId) ?? [])] })),
    partitions,
  };
}

describe('the trigger with racks', () => {
  it('plans with racks, so a rack-matched assignment is judged balanced and kept', () => {
    const leader = balance({ members, partitions });
    const trigger = createThresholdTrigger({ threshold: 1.01, minViolatedChecks: 1 });
    const e = trigger.evaluate(observed(leader.assignments));
    expect(e.outcome).toBe('balanced');
    expect(e.plan?.movedCount).toBe(0);
    expect(e.plan?.crossRackWeight).toBe(leader.crossRackWeight);
  });

  it('plans with racks from members and partitions alike: without them the plan would differ', () => {
    const leader = balance({ members, partitions });
    const blind = balance({
      members: members.map(({ rack: _r, ...m }) => m),
      partitions: partitions.map(({ racks: _r, ...p }) => p),
    });
    // The group is one where racks matter: ignoring them places more load across racks.
    const cross = (a: typeof blind.assignments): number =>
      [...a].reduce(
        (sum, [memberId, list]) =>
          sum +
          list
            .filter((p) => !memberId.endsWith(RACKS[p.partition % 3]!))
            .reduce((w, p) => w + WEIGHTS[p.partition]!, 0),
        0,
      );
    expect(cross(blind.assignments)).toBeGreaterThan(leader.crossRackWeight);
    const e = createThresholdTrigger({ threshold: 1.01, minViolatedChecks: 1 }).evaluate(observed(leader.assignments));
    expect(e.plan?.crossRackWeight).toBe(leader.crossRackWeight);
  });
});
