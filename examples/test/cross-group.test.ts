import type { ObservedGroup } from '@load-aware/integration-tests/group';
import {
  busiestOverIdeal,
  combinedLoads,
  type CrossGroupComparison,
  type CrossGroupModeResult,
} from '@load-aware/integration-tests/cross-group-scenario';
import { FAST_PRESET } from '../demo/options';
import { parseCrossGroupArgs } from '../demo/cross-group';
import { renderCrossGroupChart } from '../demo/cross-group-chart';

const now = new Date('2025-03-04T05:06:07.890Z');

/** A described group whose members are the three instances, holding `held[i]` of `topic`. */
function group(topic: string, held: number[][], loadAware = true): ObservedGroup {
  return {
    state: 'Stable',
    protocol: 'x',
    members: held.map((partitions, i) => {
      const instance = `instance-${'abc'[i]!}`;
      return {
        memberId: `${instance}-m`,
        clientId: instance,
        topics: [topic],
        instanceId: loadAware ? instance : undefined,
        assigned: partitions.map((p) => `${topic}:${String(p)}`),
      };
    }),
  };
}

function mode(name: CrossGroupModeResult['mode'], orders: number[][], payments: number[][]): CrossGroupModeResult {
  const instances = combinedLoads({
    orders: group('o', orders, name !== 'round-robin'),
    payments: group('p', payments),
  });
  const v = busiestOverIdeal(instances.map((i) => ({ load: i.combined, capacity: i.capacity })));
  return {
    mode: name,
    groupIds: { orders: 'o', payments: 'p' },
    instances,
    total: v.total,
    ideal: v.ideal,
    busiest: v.busiest,
    busiestRatio: v.ratio,
    perGroupRatio: { orders: 1, payments: 1 },
    convergedAfterMs: 1000,
    steady:
      name === 'on'
        ? { windowMs: 300_000, triggerFires: 0, triggerFiresBefore: 1, newGenerations: 0, unchanged: true }
        : undefined,
    warnings: [],
  };
}

describe('combinedLoads and busiestOverIdeal', () => {
  it('adds both groups per instance from the produce rates, telling round-robin members apart by client id', () => {
    // orders 60 on a; payments 48 on a: the two heavy partitions stack.
    const m = mode('round-robin', [[0], [1, 2, 3], [4, 5, 6, 7]], [[0], [1, 2, 3], [4, 5, 6, 7]]);
    expect(m.instances.map((i) => i.combined)).toEqual([108, 38 + 44, 22 + 20]);
    expect(m.instances[0]!.partitions).toEqual({ orders: [0], payments: [0] });
    expect(m.total).toBe(232);
    expect(m.busiestRatio).toBeCloseTo(108 / (232 / 3), 9);
  });

  it('counts the capacity of an instance that holds nothing in the ideal', () => {
    expect(
      busiestOverIdeal([
        { load: 10, capacity: 1 },
        { load: 0, capacity: 1 },
      ]),
    ).toEqual({
      total: 10,
      ideal: 5,
      busiest: 10,
      ratio: 2,
    });
  });
});

describe('parseCrossGroupArgs', () => {
  it('defaults to all three modes, a 5 minute steady window, a local broker and a timestamped folder', () => {
    expect(parseCrossGroupArgs(['--cross-group'], now)).toEqual({
      brokers: undefined,
      steadyMinutes: 5,
      modes: ['round-robin', 'off', 'on'],
      outDir: 'out/cross-group-2025-03-04_05-06-07',
    });
  });

  it('reads brokers, steady minutes, modes and output folder', () => {
    expect(
      parseCrossGroupArgs(
        ['--cross-group', '--brokers', 'a:9092', '--steady-minutes', '1.5', '--modes', 'off,on', '--out', 'runs/x'],
        now,
      ),
    ).toEqual({ brokers: ['a:9092'], steadyMinutes: 1.5, modes: ['off', 'on'], outDir: 'runs/x' });
    expect(parseCrossGroupArgs(['--cross-group', '--help'])).toBe('help');
  });

  it('names an unknown flag or mode and a value out of range', () => {
    expect(() => parseCrossGroupArgs(['--seed', '1'])).toThrow(/Unknown flag --seed/);
    expect(() => parseCrossGroupArgs(['--modes', 'on,both'])).toThrow(/--modes on,both: expected some of/);
    expect(() => parseCrossGroupArgs(['--steady-minutes', '0'])).toThrow(/--steady-minutes 0: expected a number/);
    expect(() => parseCrossGroupArgs(['--out'])).toThrow(/--out: expected a value/);
  });
});

describe('renderCrossGroupChart', () => {
  const result: CrossGroupComparison = {
    rates: { orders: [60, 16, 12, 10, 8, 6, 5, 3], payments: [48, 20, 14, 10, 8, 6, 4, 2] },
    timing: FAST_PRESET,
    modes: [
      mode(
        'round-robin',
        [
          [0, 3, 6],
          [1, 4, 7],
          [2, 5],
        ],
        [
          [0, 3, 6],
          [1, 4, 7],
          [2, 5],
        ],
      ),
      mode('off', [[0], [1, 2, 3], [4, 5, 6, 7]], [[0], [1, 2, 3], [4, 5, 6, 7]]),
      mode('on', [[0], [2, 4], [1, 3, 5, 6, 7]], [[1, 2, 3, 4, 5], [0], [6, 7]]),
    ],
  };

  it('stacks one bar per group per instance in every panel and labels the busiest with its ratio', () => {
    const svg = renderCrossGroupChart(result);
    expect(svg.startsWith('<svg ')).toBe(true);
    expect(svg.match(/class="bar"/g)).toHaveLength(3 * 3 * 2);
    expect(svg).toContain(`${(137 / (232 / 3)).toFixed(2)} × ideal`);
    expect(svg).toContain('KafkaJS round-robin');
    expect(svg).toContain('load-aware, cross-group on');
    expect(svg).toContain('0 rebalances in 5.0 min steady');
    expect(svg).not.toContain('NaN');
  });
});
