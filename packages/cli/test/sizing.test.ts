import { buildReport, parseCliArgs, renderText, UsageError } from '@load-aware/cli/internal';
import { fakeSnapshot } from './fakes';

const BASE = ['plan', '--brokers', 'k:9092', '--group', 'g'];

describe('sizing in the report (--member-capacity)', () => {
  // pod-a holds 0,1 (90 + 10), pod-b 2,3 (10 + 10); members process 100/s at 100%.
  const snapshot = () =>
    fakeSnapshot(
      [
        { memberId: 'a', instanceId: 'pod-a', held: [0, 1] },
        { memberId: 'b', instanceId: 'pod-b', held: [2, 3] },
      ],
      [90, 10, 10, 10],
    );

  it('is absent without a member capacity', () => {
    expect(buildReport(snapshot()).sizing).toBeUndefined();
  });

  it('gives utilization now, the members needed at the target and the futile partitions', () => {
    const report = buildReport(snapshot(), { memberCapacity: 100, targetUtilization: 0.7, whatIfMembers: 3 });
    expect(report.sizing).toEqual({
      memberCapacity: 100,
      targetUtilization: 0.7,
      busiestUtilizationNow: 1,
      // 90 is over 70 alone: it stops at 90 on one member, 30 on the other.
      desiredMembers: 2,
      desiredInstances: 2,
      membersPerInstance: 1,
      futile: true,
      futilePartitions: [{ partition: 't:0', weight: 90 }],
      whatIf: { members: 3, busiestUtilization: 0.9 },
      // No lag in this snapshot: nothing to drain.
      drainSeconds: 0,
      slowest: undefined,
    });
    const text = renderText('plan', report, { color: false, weightsLabel: 'test' });
    expect(text).toContain('needs 2 member(s) (one an instance), or 2 instance(s) of 1 member(s)');
    expect(text).toContain('scale-out is futile: t:0 (90) alone exceed(s)');
    expect(text).toContain('at 3 member(s): busiest member at 90.0%');
  });

  it('is not futile when a member may carry the heaviest partition', () => {
    const report = buildReport(snapshot(), { memberCapacity: 200, targetUtilization: 0.5 });
    expect(report.sizing).toMatchObject({ futile: false, futilePartitions: [], desiredMembers: 2 });
  });
});

describe('sizing flags', () => {
  it('parses --member-capacity, --target-utilization (default 0.7) and --members', () => {
    const options = (argv: string[]) => {
      const parsed = parseCliArgs(argv, {});
      if (parsed.help) throw new Error('asked for help');
      return parsed.options;
    };
    expect(options([...BASE, '--member-capacity', '250'])).toMatchObject({
      memberCapacity: 250,
      targetUtilization: 0.7,
      whatIfMembers: undefined,
    });
    expect(
      options([...BASE, '--member-capacity', '250', '--target-utilization', '0.5', '--members', '6']),
    ).toMatchObject({ targetUtilization: 0.5, whatIfMembers: 6 });
  });

  it.each([
    [['--target-utilization', '0.5'], /need --member-capacity/],
    [['--members', '3'], /need --member-capacity/],
    [['--member-capacity', '0'], /--member-capacity/],
    [['--member-capacity', '10', '--target-utilization', '1.2'], /--target-utilization/],
    [['--member-capacity', '10', '--members', '2.5'], /--members/],
  ])('refuses %j', (flags, message) => {
    expect(() => parseCliArgs([...BASE, ...flags], {})).toThrow(UsageError);
    expect(() => parseCliArgs([...BASE, ...flags], {})).toThrow(message);
  });
});
