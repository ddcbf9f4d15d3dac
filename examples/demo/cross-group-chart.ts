/**
 * The cross-group comparison's chart, in the busy-time chart's style (hand-made SVG, one panel
 * per mode on a shared scale): one bar per instance of its combined load in messages/s, stacked
 * by group (orders below, payments above), a dashed line at the ideal (total ÷ instances) and the
 * busiest bar labelled with its ratio to the ideal.
 */
import {
  CROSS_GROUP_NAMES,
  crossGroupModeTitle,
  type CrossGroupComparison,
  type CrossGroupModeResult,
} from '@load-aware/integration-tests/cross-group-scenario';
import { yAxis } from './busy-time-chart.js';
import { COLORS, esc, niceTicks, sy, type Frame } from './chart.js';

const WIDTH = 1280;
const MARGIN = { left: 80, right: 30, top: 110, gap: 70 };
const PLOT_HEIGHT = 360;
const LEGEND_HEIGHT = 60;

function phaseLine(mode: CrossGroupModeResult): string {
  const steady =
    mode.steady === undefined
      ? ''
      : ` · ${String(mode.steady.triggerFires)} rebalances in ${(mode.steady.windowMs / 60_000).toFixed(1)} min steady`;
  // Short enough for a third of the width: the title above says it is the combined load.
  return `busiest ÷ ideal ${mode.busiestRatio.toFixed(2)}${steady}`;
}

function bars(f: Frame, mode: CrossGroupModeResult): string[] {
  const out: string[] = [];
  const slot = f.width / mode.instances.length;
  const barWidth = Math.min(90, slot * 0.6);
  mode.instances.forEach((instance, i) => {
    const x = f.x + slot * i + (slot - barWidth) / 2;
    const cx = (x + barWidth / 2).toFixed(1);
    let base = 0;
    CROSS_GROUP_NAMES.forEach((name, g) => {
      const load = instance.byGroup[name];
      const top = sy(f, base + load);
      out.push(
        `<rect class="bar" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(sy(f, base) - top).toFixed(1)}" fill="${COLORS[g]!}" stroke="white"/>`,
      );
      base += load;
    });
    out.push(
      `<text x="${cx}" y="${String(f.y + f.height + 18)}" text-anchor="middle">${esc(instance.instanceId)}</text>`,
      `<text x="${cx}" y="${String(f.y + f.height + 33)}" text-anchor="middle" fill="#444">${String(instance.combined)} msg/s</text>`,
    );
    if (instance.combined === mode.busiest) {
      out.push(
        `<text x="${cx}" y="${(sy(f, base) - 6).toFixed(1)}" text-anchor="middle" font-weight="bold">${(instance.combined / mode.ideal).toFixed(2)} × ideal</text>`,
      );
    }
  });
  return out;
}

/** Renders the chart of one comparison (one panel per mode, in the order run). */
export function renderCrossGroupChart(result: CrossGroupComparison): string {
  const { modes } = result;
  const columns = Math.max(1, modes.length);
  const panelWidth = (WIDTH - MARGIN.left - MARGIN.right - MARGIN.gap * (columns - 1)) / columns;
  const height = MARGIN.top + PLOT_HEIGHT + 50 + LEGEND_HEIGHT;
  const ticks = niceTicks(Math.max(1, ...modes.map((m) => m.busiest)) * 1.1, 5);
  const rates = CROSS_GROUP_NAMES.map((name) => `${name} ${result.rates[name].join(', ')}`).join(' · ');
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(WIDTH)}" height="${String(height)}" viewBox="0 0 ${String(WIDTH)} ${String(height)}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${String(WIDTH / 2)}" y="24" text-anchor="middle" font-size="17" font-weight="bold">Combined load per instance, two consumer groups in the same three processes</text>`,
    `<text x="${String(WIDTH / 2)}" y="44" text-anchor="middle" fill="#444">${esc(`Produce rates per partition (msg/s): ${rates}`)}</text>`,
  ];
  modes.forEach((mode, c) => {
    const x = MARGIN.left + c * (panelWidth + MARGIN.gap);
    const f: Frame = { x, y: MARGIN.top, width: panelWidth, height: PLOT_HEIGHT, xMax: 1, yMax: ticks.at(-1)! };
    out.push(
      `<text x="${String(x + panelWidth / 2)}" y="${String(MARGIN.top - 30)}" text-anchor="middle" font-size="15" font-weight="bold">${esc(crossGroupModeTitle(mode.mode))}</text>`,
      `<text x="${String(x + panelWidth / 2)}" y="${String(MARGIN.top - 14)}" text-anchor="middle" fill="#444">${esc(phaseLine(mode))}</text>`,
      ...yAxis(f, ticks, 'messages/s held (both groups)'),
      ...bars(f, mode),
    );
    // Drawn over the bars so it stays visible across a bar that reaches past it.
    const y = sy(f, mode.ideal).toFixed(1);
    out.push(
      `<line x1="${String(x)}" x2="${String(x + panelWidth)}" y1="${y}" y2="${y}" stroke="#333" stroke-width="1.5" stroke-dasharray="6,4"/>`,
    );
  });

  const legendY = MARGIN.top + PLOT_HEIGHT + 70;
  const legend: string[] = CROSS_GROUP_NAMES.map((name, g) => {
    const lx = MARGIN.left + g * 150;
    return (
      `<rect x="${String(lx)}" y="${String(legendY - 8)}" width="14" height="14" fill="${COLORS[g]!}"/>` +
      `<text x="${String(lx + 20)}" y="${String(legendY + 4)}">${name} group</text>`
    );
  });
  const dashX = MARGIN.left + CROSS_GROUP_NAMES.length * 150;
  out.push(
    ...legend,
    `<line x1="${String(dashX)}" x2="${String(dashX + 24)}" y1="${String(legendY)}" y2="${String(legendY)}" stroke="#333" stroke-width="1.5" stroke-dasharray="6,4"/>`,
    `<text x="${String(dashX + 30)}" y="${String(legendY + 4)}">ideal: total ÷ 3 instances (equal capacity); the busiest bar carries its ratio to it (the mode's verdict)</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
