/**
 * The busy-time comparison's chart, in the demo chart's style (hand-made SVG, one column per
 * phase on a shared scale): one bar per instance of its busy time ÷ the fair share, a dashed line
 * at 1.0 (every instance equally busy) and the busiest bar labelled with its ratio.
 */
import type { BusyTimeComparison, BusyTimePhase } from '@load-aware/integration-tests/busy-time-scenario';
import { COLORS, esc, niceTicks, sy, type Frame } from './chart.js';

const WIDTH = 1280;
const MARGIN = { left: 80, right: 30, top: 110, gap: 70 };
const PLOT_HEIGHT = 360;
const LEGEND_HEIGHT = 60;

const TITLES: Record<string, string> = {
  'round-robin': 'KafkaJS round-robin',
  'offset-rate': 'load-aware, offset-rate weights',
  'busy-time': 'load-aware, busy-time weights',
};

/**
 * Each instance's busy time ÷ the fair share (total ÷ instances); empty when the phase has no
 * busy time to share, where a ratio would be 0 ÷ 0.
 */
export function fairShareRatios(busyPerSecond: readonly number[]): number[] {
  const total = busyPerSecond.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return [];
  const fair = total / busyPerSecond.length;
  return busyPerSecond.map((b) => b / fair);
}

/** The cost map in one line: how many partitions at each per-message cost, and where the rates came from. */
function costLine(scenario: BusyTimeComparison['scenario']): string {
  const counts = new Map<number, number>();
  for (const c of scenario.costMs) counts.set(c, (counts.get(c) ?? 0) + 1);
  const costs = [...counts]
    .sort(([a], [b]) => b - a)
    .map(([ms, n]) => `${String(n)} × ${String(ms)} ms`)
    .join(', ');
  return (
    `Seeded cost map, seed ${String(scenario.seed)}: partitions × cost per message ${costs}; ` +
    'produce rates drawn apart from the cost'
  );
}

function phaseLine(phase: BusyTimePhase, ratios: readonly number[]): string {
  const busiest = ratios.length === 0 ? 'none' : Math.max(...ratios).toFixed(2);
  return `busiest ÷ fair share ${busiest} · lag at end ${String(phase.lag)}`;
}

function bars(f: Frame, phase: BusyTimePhase, ratios: readonly number[]): string[] {
  const out: string[] = [];
  const slot = f.width / ratios.length;
  const barWidth = Math.min(90, slot * 0.6);
  const busiest = ratios.indexOf(Math.max(...ratios));
  ratios.forEach((ratio, i) => {
    const x = f.x + slot * i + (slot - barWidth) / 2;
    const top = sy(f, ratio);
    const cx = (x + barWidth / 2).toFixed(1);
    const partitions = phase.partitionsPerInstance[i];
    out.push(
      `<rect class="bar" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(f.y + f.height - top).toFixed(1)}" fill="${COLORS[i % COLORS.length]!}"/>`,
      `<text x="${cx}" y="${String(f.y + f.height + 18)}" text-anchor="middle">instance ${String(i + 1)}</text>`,
    );
    if (partitions !== undefined) {
      const plural = partitions === 1 ? 'partition' : 'partitions';
      out.push(
        `<text x="${cx}" y="${String(f.y + f.height + 33)}" text-anchor="middle" fill="#444">${String(partitions)} ${plural}</text>`,
      );
    }
    if (i === busiest) {
      out.push(
        `<text x="${cx}" y="${(top - 6).toFixed(1)}" text-anchor="middle" font-weight="bold">${ratio.toFixed(2)}</text>`,
      );
    }
  });
  return out;
}

/** The y axis of a bar panel: gridlines at `ticks`, their values, the frame and the axis label. */
export function yAxis(f: Frame, ticks: readonly number[], label = 'busy time ÷ fair share'): string[] {
  const out: string[] = [];
  for (const v of ticks) {
    const y = sy(f, v).toFixed(1);
    out.push(
      `<line x1="${String(f.x)}" x2="${String(f.x + f.width)}" y1="${y}" y2="${y}" stroke="#e6e6e6"/>`,
      `<text x="${String(f.x - 6)}" y="${y}" text-anchor="end" dominant-baseline="middle">${String(v)}</text>`,
    );
  }
  out.push(
    `<rect x="${String(f.x)}" y="${String(f.y)}" width="${String(f.width)}" height="${String(f.height)}" fill="none" stroke="#333"/>`,
  );
  const cy = f.y + f.height / 2;
  out.push(
    `<text x="${String(f.x - 52)}" y="${String(cy)}" text-anchor="middle" transform="rotate(-90 ${String(f.x - 52)} ${String(cy)})">${esc(label)}</text>`,
  );
  return out;
}

/** Renders the chart of one comparison (one column per phase, in the order run). */
export function renderBusyTimeChart(result: BusyTimeComparison): string {
  const { scenario, phases } = result;
  const columns = Math.max(1, phases.length);
  const panelWidth = (WIDTH - MARGIN.left - MARGIN.right - MARGIN.gap * (columns - 1)) / columns;
  const height = MARGIN.top + PLOT_HEIGHT + 50 + LEGEND_HEIGHT;
  const ratiosOf = phases.map((p) => fairShareRatios(p.busyPerSecond));
  // At least 1.5, so the 1.0 line never sits on the top edge; at most the instance count (one does everything).
  const ticks = niceTicks(Math.max(1.5, ...ratiosOf.flat()), 5);
  const names = phases.map((p) => TITLES[p.name] ?? p.name);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(WIDTH)}" height="${String(height)}" viewBox="0 0 ${String(WIDTH)} ${String(height)}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${String(WIDTH / 2)}" y="24" text-anchor="middle" font-size="17" font-weight="bold">${esc(['Busy time per instance ÷ fair share', names.join(' vs ')].filter((t) => t !== '').join(': '))}</text>`,
    `<text x="${String(WIDTH / 2)}" y="44" text-anchor="middle" fill="#444">${esc(costLine(scenario))}</text>`,
  ];
  phases.forEach((phase, c) => {
    const x = MARGIN.left + c * (panelWidth + MARGIN.gap);
    const f: Frame = { x, y: MARGIN.top, width: panelWidth, height: PLOT_HEIGHT, xMax: 1, yMax: ticks.at(-1)! };
    const ratios = ratiosOf[c]!;
    out.push(
      `<text x="${String(x + panelWidth / 2)}" y="${String(MARGIN.top - 30)}" text-anchor="middle" font-size="15" font-weight="bold">${esc(names[c]!)}</text>`,
      `<text x="${String(x + panelWidth / 2)}" y="${String(MARGIN.top - 14)}" text-anchor="middle" fill="#444">${esc(phaseLine(phase, ratios))}</text>`,
      ...yAxis(f, ticks),
    );
    if (ratios.length === 0) {
      out.push(
        `<text x="${String(x + panelWidth / 2)}" y="${String(MARGIN.top + PLOT_HEIGHT / 2)}" text-anchor="middle" fill="#888">no busy time measured</text>`,
      );
    } else {
      out.push(...bars(f, phase, ratios));
    }
    // Drawn over the bars so it stays visible across a bar that reaches past it.
    const y = sy(f, 1).toFixed(1);
    out.push(
      `<line x1="${String(x)}" x2="${String(x + panelWidth)}" y1="${y}" y2="${y}" stroke="#333" stroke-width="1.5" stroke-dasharray="6,4"/>`,
    );
  });

  const legendY = MARGIN.top + PLOT_HEIGHT + 70;
  out.push(
    `<line x1="${String(MARGIN.left)}" x2="${String(MARGIN.left + 24)}" y1="${String(legendY)}" y2="${String(legendY)}" stroke="#333" stroke-width="1.5" stroke-dasharray="6,4"/>`,
    `<text x="${String(MARGIN.left + 30)}" y="${String(legendY + 4)}">1.0: fair share, every instance equally busy; the busiest bar carries its value (the phase's verdict)</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
