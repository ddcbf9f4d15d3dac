import type { PhaseObserver, SampleContext } from './phase.js';
import type { PhaseRecord, Sample } from './record.js';
import { loadRatio } from './analysis.js';

/** How often progress lines are printed when stdout is not a terminal. */
const PLAIN_EVERY_SECONDS = 5;

/** Where the live view writes; process.stdout in the demo. */
export interface Output {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/**
 * The demo's terminal view. On a terminal it redraws a compact table in place every second
 * (ANSI cursor moves), with event lines scrolling above it; otherwise it prints plain progress
 * lines every few seconds. Disabled, it prints nothing but the event lines.
 */
export class LiveView {
  private drawn = 0;
  private lastPlain = -Infinity;

  constructor(
    private readonly out: Output,
    private readonly enabled: boolean,
  ) {}

  /** The observer for one phase. */
  phase(
    label: string,
    index: number,
    count: number,
    layout: PhaseRecord['instances'],
    phaseSeconds: number,
  ): PhaseObserver {
    this.lastPlain = -Infinity;
    const record = { instances: layout } as PhaseRecord;
    return {
      note: (line) => {
        this.line(line);
      },
      sample: (sample, context) => {
        if (!this.enabled) return;
        const ratio = sample.assignedPartitions > 0 ? loadRatio(record, sample).toFixed(2) : '-';
        const title = `[${String(index + 1)}/${String(count)}] ${label}  t=${String(Math.round(sample.t))}/${String(phaseSeconds)}s`;
        const head = [
          `${title}${context.moved ? '  (hotspot moved)' : ''}`,
          `  producing ${fmt(sample.producedPerSec)}/s  total lag ${fmt(sample.totalLag)}  busiest/ideal ${ratio}` +
            `  generation ${String(context.generation)}  trigger fires ${String(context.triggers)}`,
        ];
        if (this.out.isTTY === true) {
          this.redraw([...head, ...table(layout, sample, context)]);
        } else if (sample.t - this.lastPlain >= PLAIN_EVERY_SECONDS) {
          this.lastPlain = sample.t;
          const parts = layout.map(({ instanceId }) => {
            const s = sample.instances[instanceId];
            const rebalances = String(context.rebalances[instanceId] ?? 0);
            return `${instanceId} ${fmt(s?.consumedPerSec ?? 0)}/s lag ${fmt(s?.lag ?? 0)} rebalances ${rebalances}`;
          });
          this.out.write(`${head.join('\n')}\n    ${parts.join(' | ')}\n`);
        }
      },
    };
  }

  /** Prints a line above the live table (or just prints it). */
  line(text: string): void {
    this.clear();
    this.out.write(`${text}\n`);
  }

  /** Forgets the table, leaving its last state on screen. */
  release(): void {
    this.drawn = 0;
  }

  private clear(): void {
    if (this.drawn === 0) return;
    this.out.write(`\x1b[${String(this.drawn)}A\x1b[0J`);
    this.drawn = 0;
  }

  private redraw(lines: string[]): void {
    this.clear();
    this.out.write(`${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}

function fmt(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n));
}

function table(layout: PhaseRecord['instances'], sample: Sample, context: SampleContext): string[] {
  const rows = [['instance', 'members', 'partitions', 'consumed/s', 'offered/s', 'lag', 'rebalances']];
  for (const { instanceId, members } of layout) {
    const s = sample.instances[instanceId];
    rows.push([
      instanceId,
      String(members),
      String(s?.partitions ?? 0),
      fmt(s?.consumedPerSec ?? 0),
      fmt(s?.offeredPerSec ?? 0),
      fmt(s?.lag ?? 0),
      String(context.rebalances[instanceId] ?? 0),
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map(
    (r) => `  ${r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')}`,
  );
}
