/**
 * The rolling-restart benchmark's chart, in the demo chart's style (hand-made SVG, one column per
 * assigner on shared scales): busiest instance ÷ ideal on top (gaps mid-rebalance), the group's
 * lag below with each instance's share. Markers: each restart's stop (red) and new process
 * (green), rebalances (grey), trigger fires (purple triangles).
 */
import { axes, COLORS, esc, niceTicks, polyline, sx, sy, type Frame } from './chart.js';
import { sampleRatio, type RollingRun, type RollingSummary } from './rolling-analysis.js';

const WIDTH = 1280;
const MARGIN = { left: 80, right: 30, top: 96, gap: 70 };
const RATIO_HEIGHT = 260;
const LAG_HEIGHT = 200;
const ROW_GAP = 75;
const LEGEND_HEIGHT = 80;

const TITLES: Record<string, string> = {
  'round-robin': 'KafkaJS round-robin',
  'load-aware': 'load-aware (offset-rate weights + trigger)',
};

function subtitle(s: RollingSummary | undefined): string {
  if (s === undefined) return '';
  const t = s.totals;
  return (
    `${String(t.rebalances)} rebalances · moved ${String(t.moved)} (necessary ${String(t.necessary)}) · ` +
    `imbalance ${t.imbalanceSeconds.toFixed(1)} s · peak lag ${String(Math.round(t.peakLag))}`
  );
}

/** Splits a series at its gaps (undefined values) into drawable runs. */
function segments(points: Array<[number, number | undefined]>): Array<Array<[number, number]>> {
  const out: Array<Array<[number, number]>> = [];
  let current: Array<[number, number]> = [];
  for (const [t, v] of points) {
    if (v === undefined) {
      if (current.length > 0) out.push(current);
      current = [];
    } else {
      current.push([t, v]);
    }
  }
  if (current.length > 0) out.push(current);
  return out;
}

function markers(f: Frame, run: RollingRun, withLabels: boolean): string[] {
  const out: string[] = [];
  const top = String(f.y);
  const bottom = String(f.y + f.height);
  const vline = (t: number, color: string, dash: string, width = 1): string => {
    const x = sx(f, t).toFixed(1);
    return `<line x1="${x}" x2="${x}" y1="${top}" y2="${bottom}" stroke="${color}" stroke-width="${String(width)}" stroke-dasharray="${dash}"/>`;
  };
  for (const g of run.record.generations) out.push(vline(g.t, '#aaa', '2,3'));
  for (const step of run.steps) {
    const id = step.instanceId.replace(/^instance-/, '');
    out.push(vline(step.stopAt, '#d62728', '6,3', 1.5), vline(step.startAt, '#2ca02c', '6,3', 1.5));
    if (withLabels) {
      const y = String(f.y + 12);
      out.push(
        `<text x="${(sx(f, step.stopAt) + 3).toFixed(1)}" y="${y}" fill="#d62728">${esc(id)}↓</text>`,
        `<text x="${(sx(f, step.startAt) + 3).toFixed(1)}" y="${y}" fill="#2ca02c">${esc(id)}↑</text>`,
      );
    }
  }
  if (withLabels) {
    for (const t of run.record.triggers) {
      const x = sx(f, t);
      out.push(
        `<path d="M${(x - 5).toFixed(1)},${String(f.y - 9)} L${(x + 5).toFixed(1)},${String(f.y - 9)} L${x.toFixed(1)},${String(f.y - 1)} Z" fill="#7b2cbf"/>`,
      );
    }
  }
  return out;
}

/** Renders the chart of one benchmark run (one column per assigner). */
export function renderRollingChart(runs: readonly RollingRun[], summaries: readonly RollingSummary[]): string {
  const columns = Math.max(1, runs.length);
  const panelWidth = (WIDTH - MARGIN.left - MARGIN.right - MARGIN.gap * (columns - 1)) / columns;
  const height = MARGIN.top + RATIO_HEIGHT + ROW_GAP + LAG_HEIGHT + 60 + LEGEND_HEIGHT;
  const ratioOf = runs.map((run) => run.record.samples.map((s) => [s.t, sampleRatio(run.record, s)] as const));
  const ratios = ratioOf.flat().flatMap(([, r]) => (r === undefined ? [] : [r]));
  // Past 3 the line is clipped: a moment with one instance holding everything is not the point.
  const ratioTicks = niceTicks(Math.min(3, Math.max(1.5, ...ratios)), 5);
  const lagTicks = niceTicks(Math.max(1, ...runs.flatMap((r) => r.record.samples.map((s) => s.totalLag))), 4);
  const xMax = Math.max(10, ...runs.map((r) => r.record.durationSeconds));
  const layout = runs[0]?.record.instances ?? [];
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(WIDTH)}" height="${String(height)}" viewBox="0 0 ${String(WIDTH)} ${String(height)}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${String(WIDTH / 2)}" y="24" text-anchor="middle" font-size="17" font-weight="bold">Rolling restart: busiest instance ÷ ideal and lag, KafkaJS round-robin vs load-aware</text>`,
  ];
  runs.forEach((run, c) => {
    const x = MARGIN.left + c * (panelWidth + MARGIN.gap);
    const ratio: Frame = { x, y: MARGIN.top, width: panelWidth, height: RATIO_HEIGHT, xMax, yMax: ratioTicks.at(-1)! };
    const lag: Frame = {
      x,
      y: MARGIN.top + RATIO_HEIGHT + ROW_GAP,
      width: panelWidth,
      height: LAG_HEIGHT,
      xMax,
      yMax: lagTicks.at(-1)!,
    };
    out.push(
      `<text x="${String(x + panelWidth / 2)}" y="${String(MARGIN.top - 30)}" text-anchor="middle" font-size="15" font-weight="bold">${esc((TITLES[run.record.assigner] ?? run.record.assigner) + (run.membership === 'static' ? ', static members' : ''))}</text>`,
      `<text x="${String(x + panelWidth / 2)}" y="${String(MARGIN.top - 14)}" text-anchor="middle" fill="#444">${esc(subtitle(summaries[c]))}</text>`,
    );
    out.push(...axes(ratio, ratioTicks, 'busiest ÷ ideal'), ...markers(ratio, run, true));
    out.push(...axes(lag, lagTicks, 'lag (messages)'), ...markers(lag, run, false));
    for (const level of [1, 1.1]) {
      const y = sy(ratio, level).toFixed(1);
      out.push(
        `<line x1="${String(x)}" x2="${String(x + panelWidth)}" y1="${y}" y2="${y}" stroke="#333" stroke-dasharray="${level === 1 ? 'none' : '1,3'}"/>`,
      );
    }
    for (const points of segments(ratioOf[c]!.map(([t, r]) => [t, r]))) {
      out.push(polyline(ratio, points, '#111', '', 2));
    }
    layout.forEach(({ instanceId }, i) => {
      out.push(
        polyline(
          lag,
          run.record.samples.map((s) => [s.t, s.instances[instanceId]?.lag ?? 0]),
          COLORS[i % COLORS.length]!,
          '',
          1.5,
        ),
      );
    });
    out.push(
      polyline(
        lag,
        run.record.samples.map((s) => [s.t, s.totalLag]),
        '#111',
        '',
        2,
      ),
    );
  });

  const legendTop = MARGIN.top + RATIO_HEIGHT + ROW_GAP + LAG_HEIGHT + 62;
  const legendRow = (y: number, items: Array<[(x: number) => string, string]>): void => {
    let lx = MARGIN.left;
    for (const [draw, text] of items) {
      out.push(draw(lx), `<text x="${String(lx + 30)}" y="${String(y + 4)}">${esc(text)}</text>`);
      lx += 44 + text.length * 6.4;
    }
  };
  const stroke =
    (y: number, color: string, dash: string) =>
    (lx: number): string =>
      `<line x1="${String(lx)}" x2="${String(lx + 24)}" y1="${String(y)}" y2="${String(y)}" stroke="${color}" stroke-width="2" stroke-dasharray="${dash}"/>`;
  const triangle =
    (y: number) =>
    (lx: number): string =>
      `<path d="M${String(lx + 7)},${String(y - 5)} L${String(lx + 17)},${String(y - 5)} L${String(lx + 12)},${String(y + 3)} Z" fill="#7b2cbf"/>`;
  legendRow(legendTop, [
    [stroke(legendTop, '#111', 'none'), 'busiest ÷ ideal (top), total lag (bottom)'],
    ...layout.map(({ instanceId, members }, i): [(lx: number) => string, string] => [
      stroke(legendTop, COLORS[i % COLORS.length]!, 'none'),
      `lag of ${instanceId} (${String(members)} ${members === 1 ? 'member' : 'members'})`,
    ]),
  ]);
  const y2 = legendTop + 24;
  legendRow(y2, [
    [stroke(y2, '#d62728', '6,3'), 'process stopped (x↓)'],
    [stroke(y2, '#2ca02c', '6,3'), 'new process started (x↑)'],
    [stroke(y2, '#aaa', '2,3'), 'rebalance (new generation)'],
    [stroke(y2, '#333', '1,3'), 'trigger threshold 1.1'],
    [triangle(y2), 'trigger fires'],
  ]);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
