/**
 * The demo's chart as a hand-made SVG (no dependency): one column per assigner, side by side on
 * shared scales; the top row shows each instance's consumed rate (solid) and offered load
 * (dashed), the bottom row its lag. Vertical markers: rebalances (grey), trigger fires (purple
 * triangles) and the hotspot move (red).
 */
import type { PhaseSummary } from './analysis.js';
import type { PhaseRecord } from './record.js';

export const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const WIDTH = 1280;
const MARGIN = { left: 80, right: 30, top: 96, gap: 70 };
const RATE_HEIGHT = 300;
const LAG_HEIGHT = 180;
const ROW_GAP = 75;
const LEGEND_HEIGHT = 80;

const TITLES: Record<string, string> = {
  'round-robin': 'KafkaJS round-robin',
  'load-aware': 'load-aware (offset-rate weights + trigger)',
};

export function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Round tick values covering 0..max, about `count` of them. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(Math.round(v * 1000) / 1000);
  if (ticks[ticks.length - 1]! < max) ticks.push(ticks[ticks.length - 1]! + step);
  return ticks;
}

function label(n: number): string {
  return n >= 1000 ? `${String(Math.round(n / 100) / 10)}k` : String(n);
}

/** A plot area and the data range it shows (time 0..xMax, values 0..yMax). */
export interface Frame {
  x: number;
  y: number;
  width: number;
  height: number;
  xMax: number;
  yMax: number;
}

export function sx(f: Frame, t: number): number {
  return f.x + (Math.min(t, f.xMax) / f.xMax) * f.width;
}

export function sy(f: Frame, v: number): number {
  return f.y + f.height - (Math.min(v, f.yMax) / f.yMax) * f.height;
}

export function axes(f: Frame, yTicks: number[], yLabel: string): string[] {
  const out: string[] = [];
  for (const v of yTicks) {
    const y = sy(f, v).toFixed(1);
    out.push(`<line x1="${String(f.x)}" x2="${String(f.x + f.width)}" y1="${y}" y2="${y}" stroke="#e6e6e6"/>`);
    out.push(`<text x="${String(f.x - 6)}" y="${y}" text-anchor="end" dominant-baseline="middle">${label(v)}</text>`);
  }
  for (const t of niceTicks(f.xMax, 6).filter((v) => v <= f.xMax)) {
    const x = sx(f, t).toFixed(1);
    const bottom = String(f.y + f.height);
    out.push(`<line x1="${x}" x2="${x}" y1="${bottom}" y2="${String(f.y + f.height + 5)}" stroke="#333"/>`);
    out.push(`<text x="${x}" y="${String(f.y + f.height + 18)}" text-anchor="middle">${String(t)}</text>`);
  }
  out.push(
    `<rect x="${String(f.x)}" y="${String(f.y)}" width="${String(f.width)}" height="${String(f.height)}" fill="none" stroke="#333"/>`,
  );
  out.push(
    `<text x="${String(f.x + f.width / 2)}" y="${String(f.y + f.height + 36)}" text-anchor="middle">time since consumers started (s)</text>`,
  );
  const cy = f.y + f.height / 2;
  out.push(
    `<text x="${String(f.x - 52)}" y="${String(cy)}" text-anchor="middle" transform="rotate(-90 ${String(f.x - 52)} ${String(cy)})">${esc(yLabel)}</text>`,
  );
  return out;
}

export function polyline(
  f: Frame,
  points: Array<[number, number]>,
  color: string,
  dash: string,
  width: number,
): string {
  const d = points.map(([t, v]) => `${sx(f, t).toFixed(1)},${sy(f, v).toFixed(1)}`).join(' ');
  const dashes = dash === '' ? '' : ` stroke-dasharray="${dash}"`;
  return `<polyline points="${d}" fill="none" stroke="${color}" stroke-width="${String(width)}"${dashes} stroke-linejoin="round"/>`;
}

function markers(f: Frame, record: PhaseRecord, withLabels: boolean): string[] {
  const out: string[] = [];
  const top = String(f.y);
  const bottom = String(f.y + f.height);
  for (const g of record.generations) {
    const x = sx(f, g.t).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${top}" y2="${bottom}" stroke="#888" stroke-dasharray="3,3"/>`);
  }
  const mx = sx(f, record.moveAtSeconds).toFixed(1);
  out.push(
    `<line x1="${mx}" x2="${mx}" y1="${top}" y2="${bottom}" stroke="#d62728" stroke-width="1.5" stroke-dasharray="8,3,2,3"/>`,
  );
  if (withLabels) {
    out.push(`<text x="${String(Number(mx) + 4)}" y="${String(f.y + 12)}" fill="#d62728">hotspot moves</text>`);
    for (const t of record.triggers) {
      const x = sx(f, t);
      out.push(
        `<path d="M${(x - 5).toFixed(1)},${String(f.y - 9)} L${(x + 5).toFixed(1)},${String(f.y - 9)} L${x.toFixed(1)},${String(f.y - 1)} Z" fill="#7b2cbf"/>`,
      );
    }
  }
  return out;
}

function summaryLine(s: PhaseSummary | undefined): string {
  if (s === undefined) return '';
  const drain = s.drainSeconds === null ? 'never' : `${s.drainSeconds.toFixed(0)} s`;
  const converge = s.convergeSeconds === null ? 'never' : `${s.convergeSeconds.toFixed(0)} s`;
  return (
    `${s.throughputPerSec.toFixed(0)} msg/s consumed · p99 lag after move ${s.p99LagMessages.toFixed(0)} · ` +
    `drain ${drain} · converge ${converge} · ${String(s.rebalances)} rebalance${s.rebalances === 1 ? '' : 's'}`
  );
}

/** Renders the chart for the phases of one run (one column each). */
export function renderChart(records: readonly PhaseRecord[], summaries: readonly PhaseSummary[]): string {
  const columns = Math.max(1, records.length);
  const panelWidth = (WIDTH - MARGIN.left - MARGIN.right - MARGIN.gap * (columns - 1)) / columns;
  const height = MARGIN.top + RATE_HEIGHT + ROW_GAP + LAG_HEIGHT + 60 + LEGEND_HEIGHT;
  const samples = records.flatMap((r) => r.samples);
  const rateMax = niceTicks(
    Math.max(
      1,
      ...samples.flatMap((s) => Object.values(s.instances).flatMap((i) => [i.consumedPerSec, i.offeredPerSec])),
    ),
  );
  const lagMax = niceTicks(Math.max(1, ...samples.map((s) => s.totalLag)), 4);
  const layout = records[0]?.instances ?? [];
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(WIDTH)}" height="${String(height)}" viewBox="0 0 ${String(WIDTH)} ${String(height)}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${String(WIDTH / 2)}" y="24" text-anchor="middle" font-size="17" font-weight="bold">Consumed rate and lag per instance: KafkaJS round-robin vs load-aware</text>`,
  ];
  records.forEach((record, c) => {
    const x = MARGIN.left + c * (panelWidth + MARGIN.gap);
    const xMax = record.durationSeconds;
    const rate: Frame = { x, y: MARGIN.top, width: panelWidth, height: RATE_HEIGHT, xMax, yMax: rateMax.at(-1)! };
    const lag: Frame = {
      x,
      y: MARGIN.top + RATE_HEIGHT + ROW_GAP,
      width: panelWidth,
      height: LAG_HEIGHT,
      xMax,
      yMax: lagMax.at(-1)!,
    };
    out.push(
      `<text x="${String(x + panelWidth / 2)}" y="${String(MARGIN.top - 30)}" text-anchor="middle" font-size="15" font-weight="bold">${esc(TITLES[record.assigner] ?? record.assigner)}</text>`,
      `<text x="${String(x + panelWidth / 2)}" y="${String(MARGIN.top - 14)}" text-anchor="middle" fill="#444">${esc(summaryLine(summaries[c]))}</text>`,
    );
    out.push(...axes(rate, rateMax, 'messages/s'), ...markers(rate, record, true));
    out.push(...axes(lag, lagMax, 'lag (messages)'), ...markers(lag, record, false));
    layout.forEach(({ instanceId }, i) => {
      const color = COLORS[i % COLORS.length]!;
      const series = (pick: (s: PhaseRecord['samples'][number]) => number): Array<[number, number]> =>
        record.samples.map((s) => [s.t, pick(s)]);
      out.push(
        polyline(
          rate,
          series((s) => s.instances[instanceId]?.offeredPerSec ?? 0),
          color,
          '6,4',
          1.2,
        ),
      );
      out.push(
        polyline(
          rate,
          series((s) => s.instances[instanceId]?.consumedPerSec ?? 0),
          color,
          '',
          2,
        ),
      );
      out.push(
        polyline(
          lag,
          series((s) => s.instances[instanceId]?.lag ?? 0),
          color,
          '',
          2,
        ),
      );
    });
    out.push(
      polyline(
        lag,
        record.samples.map((s) => [s.t, s.totalLag]),
        '#777',
        '2,2',
        1.2,
      ),
    );
  });

  // Legend: instances on the first line, line styles and markers on the second.
  const legendTop = MARGIN.top + RATE_HEIGHT + ROW_GAP + LAG_HEIGHT + 62;
  const legendRow = (y: number, items: Array<[(x: number) => string, string]>): void => {
    let x = MARGIN.left;
    for (const [draw, text] of items) {
      out.push(draw(x), `<text x="${String(x + 30)}" y="${String(y + 4)}">${esc(text)}</text>`);
      x += 44 + text.length * 6.4;
    }
  };
  const swatch =
    (y: number, color: string) =>
    (x: number): string =>
      `<rect x="${String(x)}" y="${String(y - 5)}" width="24" height="10" fill="${color}"/>`;
  const stroke =
    (y: number, color: string, dash: string) =>
    (x: number): string =>
      `<line x1="${String(x)}" x2="${String(x + 24)}" y1="${String(y)}" y2="${String(y)}" stroke="${color}" stroke-width="2" stroke-dasharray="${dash === '' ? 'none' : dash}"/>`;
  const triangle =
    (y: number) =>
    (x: number): string =>
      `<path d="M${String(x + 7)},${String(y - 5)} L${String(x + 17)},${String(y - 5)} L${String(x + 12)},${String(y + 3)} Z" fill="#7b2cbf"/>`;
  legendRow(
    legendTop,
    layout.map(({ instanceId, members }, i) => [
      swatch(legendTop, COLORS[i % COLORS.length]!),
      `${instanceId} (${String(members)} ${members === 1 ? 'member' : 'members'})`,
    ]),
  );
  const y2 = legendTop + 24;
  legendRow(y2, [
    [stroke(y2, '#333', ''), 'consumed (top), lag (bottom)'],
    [stroke(y2, '#333', '6,4'), 'offered: produce rate of the partitions held'],
    [stroke(y2, '#777', '2,2'), 'total lag'],
    [stroke(y2, '#888', '3,3'), 'rebalance (new generation)'],
    [stroke(y2, '#d62728', '8,3,2,3'), 'hotspot moves'],
    [triangle(y2), 'trigger fires'],
  ]);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
