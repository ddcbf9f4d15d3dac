import type { BusyTimeComparison, BusyTimePhase } from '@load-aware/integration-tests/busy-time-scenario';
import { fairShareRatios, renderBusyTimeChart } from '../demo/busy-time-chart';

function phase(name: string, busyPerSecond: number[], lag = 0): BusyTimePhase {
  const total = busyPerSecond.reduce((a, b) => a + b, 0);
  return {
    name: name as BusyTimePhase['name'],
    busyPerSecond,
    busiestRatio: Math.max(...busyPerSecond) / (total / busyPerSecond.length),
    partitionsPerInstance: busyPerSecond.map(() => 4),
    lag,
  };
}

function comparison(phases: BusyTimePhase[]): BusyTimeComparison {
  return {
    scenario: { seed: 7, costMs: [23, 2, 23, 2], perSecond: [4, 5, 6, 7] },
    phases,
    measuredMs: [23.3, 2.3, 23.3, 2.3],
  };
}

const threePhases = comparison([
  phase('round-robin', [0.3, 0.2, 0.1], 120),
  phase('offset-rate', [0.35, 0.15, 0.1], 300),
  phase('busy-time', [0.2, 0.21, 0.19], 12),
]);

function count(svg: string, pattern: RegExp): number {
  return svg.match(pattern)?.length ?? 0;
}

describe('fairShareRatios', () => {
  it('divides each instance by the mean, so the ratios average 1', () => {
    expect(fairShareRatios([0.3, 0.2, 0.1])).toEqual([1.5, 1, 0.5].map((r) => expect.closeTo(r, 9) as number));
  });

  it('is empty when there is no busy time to share', () => {
    expect(fairShareRatios([])).toEqual([]);
    expect(fairShareRatios([0, 0, 0])).toEqual([]);
  });
});

describe('renderBusyTimeChart', () => {
  it('is one svg element, opened first and closed last', () => {
    const svg = renderBusyTimeChart(threePhases);
    expect(svg.startsWith('<svg ')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(count(svg, /<svg /g)).toBe(1);
    expect(count(svg, /<\/svg>/g)).toBe(1);
  });

  it('draws one bar per instance per phase', () => {
    expect(count(renderBusyTimeChart(threePhases), /class="bar"/g)).toBe(9);
  });

  it('draws a dashed fair-share line in every phase, and labels only the busiest bar of each with its ratio', () => {
    const svg = renderBusyTimeChart(threePhases);
    expect(count(svg, /<line [^>]*stroke-dasharray="6,4"/g)).toBe(3 + 1); // plus the legend's
    expect(svg).toContain('font-weight="bold">1.50</text>');
    expect(svg).toContain('font-weight="bold">1.75</text>');
    expect(svg).toContain('font-weight="bold">1.05</text>');
    expect(svg).not.toContain('>1.00</text>');
  });

  it('names the three phases and the seed of the cost map', () => {
    const svg = renderBusyTimeChart(threePhases);
    expect(svg).toContain('KafkaJS round-robin');
    expect(svg).toContain('load-aware, offset-rate weights');
    expect(svg).toContain('load-aware, busy-time weights');
    expect(svg).toContain('seed 7');
    expect(svg).toContain('2 × 23 ms, 2 × 2 ms');
  });

  it('escapes the labels it did not write itself', () => {
    const svg = renderBusyTimeChart(comparison([phase('<b>"x" & y</b>', [0.1, 0.2])]));
    expect(svg).toContain('&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;');
    expect(svg).not.toContain('<b>');
  });

  it('says so for a phase with no data and still draws the others', () => {
    const svg = renderBusyTimeChart(
      comparison([phase('round-robin', [0.3, 0.2, 0.1]), phase('offset-rate', []), phase('busy-time', [0, 0, 0])]),
    );
    expect(count(svg, /class="bar"/g)).toBe(3);
    expect(count(svg, /no busy time measured/g)).toBe(2);
    expect(svg).not.toContain('NaN');
    expect(svg).not.toContain('Infinity');
  });

  it('draws a frame with no phases at all', () => {
    const svg = renderBusyTimeChart(comparison([]));
    expect(svg.startsWith('<svg ')).toBe(true);
    expect(count(svg, /class="bar"/g)).toBe(0);
  });
});
