import { buildReport, renderText } from '@load-aware/cli/internal';
import { fakeSnapshot } from './fakes';

/**
 * `inspect` and `plan` with racks: each instance and member shows its rack, and the report gives
 * the share of the load fetched across racks now and in the proposal, with the bound.
 */
function rackedSnapshot() {
  // Partitions 0 and 1 have their replica in rack a, 2 and 3 in rack b; pod-a (rack a) holds the
  // rack-b ones and pod-b (rack b) the rack-a ones: everything crosses racks now.
  const base = fakeSnapshot(
    [
      { memberId: 'a', instanceId: 'pod-a', held: [2, 3] },
      { memberId: 'b', instanceId: 'pod-b', held: [0, 1] },
    ],
    [10, 10, 10, 10],
  );
  const rackOf: Record<string, string> = { a: 'a', b: 'b' };
  return {
    ...base,
    group: { ...base.group, members: base.group.members.map((m) => ({ ...m, rack: rackOf[m.memberId]! })) },
    partitions: base.partitions.map((p) => ({ ...p, racks: [p.partition < 2 ? 'a' : 'b'] })),
  };
}

describe('the report with racks', () => {
  it('gives each instance and member its rack, and the cross-rack share now and proposed', () => {
    const report = buildReport(rackedSnapshot());
    expect(report.instances.map((i) => [i.instanceId, i.rack])).toEqual([
      ['pod-a', 'a'],
      ['pod-b', 'b'],
    ]);
    expect(report.members.map((m) => [m.memberId, m.rack])).toEqual([
      ['a', 'a'],
      ['b', 'b'],
    ]);
    expect(report.crossRack).toEqual({ now: 1, proposed: 0, lowerBound: 0 });
    expect(report.moves).toHaveLength(4);
  });

  it('prints the racks beside the instances and the cross-rack line, in inspect and in plan', () => {
    const report = buildReport(rackedSnapshot());
    const inspect = renderText('inspect', report, { color: false, weightsLabel: 'test' });
    expect(inspect).toContain('pod-a @a');
    expect(inspect).toContain('cross-rack load: 100.0% now, 0.0% proposed (at least 0.0% at that balance)');
    const plan = renderText('plan', report, { color: false, weightsLabel: 'test' });
    expect(plan).toContain('cross-rack load: 100.0% → 0.0% (at least 0.0% at that balance)');
  });

  it('shows no rack figure for a group without racks', () => {
    const plain = fakeSnapshot([{ memberId: 'a', instanceId: 'pod-a', held: [0] }], [1]);
    expect(buildReport(plain).crossRack).toBeUndefined();
    expect(renderText('inspect', buildReport(plain), { color: false, weightsLabel: 'test' })).not.toContain(
      'cross-rack',
    );
  });
});
