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

  it('derives the capacity from --ms-per-message and the target from --latency-sla', () => {
    const options = (argv: string[]) => {
      const parsed = parseCliArgs(argv, {});
      if (parsed.help) throw new Error('asked for help');
      return parsed.options;
    };
    // 4 ms a message: 250 events/s a member; a 1 s p99 allows 0.982 of it (bench:sla's workload).
    const derived = options([...BASE, '--ms-per-message', '4', '--latency-sla', '1']);
    expect(derived.memberCapacity).toBeCloseTo(250, 9);
    expect(derived.targetUtilization).toBeCloseTo(0.9816, 4);
    expect(derived.sizingBasis).toEqual({
      secondsPerMessage: 0.004,
      slots: 1,
      latencySla: { seconds: 1, quantile: 0.99 },
    });
    const slotted = options([...BASE, '--ms-per-message', '80', '--slots', '4', '--target-utilization', '0.5']);
    expect(slotted).toMatchObject({ memberCapacity: 50, targetUtilization: 0.5 });
    expect(slotted.sizingBasis?.latencySla).toBeUndefined();
    const strict = options([...BASE, '--ms-per-message', '4', '--latency-sla', '1', '--sla-quantile', '0.999']);
    expect(strict.targetUtilization).toBeLessThan(derived.targetUtilization);
  });

  it('says where a derived capacity and target came from', () => {
    const parsed = parseCliArgs([...BASE, '--ms-per-message', '4', '--latency-sla', '1'], {});
    if (parsed.help) throw new Error('asked for help');
    const { memberCapacity, targetUtilization, sizingBasis } = parsed.options;
    const snapshot = fakeSnapshot(
      [
        { memberId: 'a', instanceId: 'pod-a', held: [0, 1] },
        { memberId: 'b', instanceId: 'pod-b', held: [2, 3] },
      ],
      [200, 100, 100, 100],
    );
    const report = buildReport(snapshot, { memberCapacity, targetUtilization, sizingBasis });
    // 500/s at 0.982 × 250 = 245.4 a member: 200 + 100 does not fit, so three members.
    expect(report.sizing).toMatchObject({ desiredMembers: 3, basis: sizingBasis });
    const text = renderText('plan', report, { color: false, weightsLabel: 'test' });
    expect(text).toContain(
      'capacity: 250 per member at 100% (4 ms a message, 1 slot(s)), target 98.2% (the 1 s p99 latency SLA)',
    );
  });

  it.each([
    [['--ms-per-message', '4', '--member-capacity', '250'], /not both/],
    [['--latency-sla', '1'], /--latency-sla needs --ms-per-message/],
    [['--member-capacity', '250', '--latency-sla', '1'], /--latency-sla needs --ms-per-message/],
    [['--ms-per-message', '4', '--latency-sla', '1', '--target-utilization', '0.5'], /not both/],
    [['--ms-per-message', '4', '--sla-quantile', '0.9'], /--sla-quantile needs --latency-sla/],
    [['--slots', '2'], /--slots needs --ms-per-message/],
    [['--ms-per-message', '0'], /--ms-per-message/],
    [['--ms-per-message', '4', '--slots', '0'], /--slots/],
    [['--ms-per-message', '4', '--latency-sla', '1', '--sla-quantile', '1'], /--sla-quantile/],
    [['--ms-per-message', '1500', '--latency-sla', '1'], /alone takes the 1 s SLA/],
  ])('refuses %j', (flags, message) => {
    expect(() => parseCliArgs([...BASE, ...flags], {})).toThrow(UsageError);
    expect(() => parseCliArgs([...BASE, ...flags], {})).toThrow(message);
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
