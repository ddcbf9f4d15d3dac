/**
 * Text and JSON output of a report. Pure: the caller says whether colour is wanted (stdout is a
 * TTY), so the same report renders the same way in tests.
 */
import type { Command } from './args.js';
import type { GroupReport } from './report.js';

/** How the text output looks. */
export interface RenderOptions {
  /** ANSI colours on the bars and the ratio. */
  readonly color: boolean;
  /** Width of the longest bar, in characters. Default 24. */
  readonly barWidth?: number;
  /** What the weights are, e.g. "offset-rate, instant (time index, 60 s)". */
  readonly weightsLabel: string;
}

/** The report as one JSON document, with the command and the weights' description. */
export function renderJson(command: Command, report: GroupReport, weightsLabel: string): string {
  return `${JSON.stringify({ command, weights: weightsLabel, ...report }, null, 2)}\n`;
}

/** The report as readable tables: instances with a bar each, members, and for `plan` the moves. */
export function renderText(command: Command, report: GroupReport, options: RenderOptions): string {
  const paint = painter(options.color);
  const lines: string[] = [];
  lines.push(
    `group ${report.groupId}  state ${report.state}  protocol ${report.protocol}  ` +
      `${String(report.members.length)} members  ${String(report.instances.length)} instances`,
  );
  lines.push(
    `weights ${options.weightsLabel}: ${String(report.weighed)}/${String(report.partitionCount)} partitions weighed` +
      (report.defaulted > 0 ? `, ${String(report.defaulted)} at the default weight` : '') +
      `, total load ${num(report.totalLoad)}, ideal load ${num(report.idealLoad)} per unit of capacity`,
  );
  if (report.missingTopics.length > 0) {
    lines.push(`note: subscribed or held topics that do not exist (left out): ${report.missingTopics.join(', ')}`);
  }
  if (report.membersWithoutUserData > 0) {
    lines.push(
      `note: ${String(report.membersWithoutUserData)} member(s) carry no load-aware userData; ` +
        (report.instances.some((i) => i.source === 'clientId')
          ? `their instance is their client id (client:…)`
          : `their instance is their client host (host:…)`),
    );
  }
  lines.push('');

  const width = options.barWidth ?? 24;
  const maxRatio = Math.max(1, ...report.instances.map((i) => Math.max(i.ratio, i.proposed.ratio)));
  const bar = (ratio: number) => paint(ratioColor(ratio), '█'.repeat(Math.round((ratio / maxRatio) * width)));
  if (command === 'inspect') {
    lines.push(
      ...table(
        ['INSTANCE', 'CAP', 'MEMBERS', 'PARTS', 'LOAD', 'SHARE', 'LOAD÷IDEAL', 'LAG', 'BEHIND', ''],
        report.instances.map((i) => [
          withRack(i.instanceId, i.rack),
          num(i.capacity),
          String(i.memberIds.length),
          String(i.partitions),
          num(i.load),
          pct(i.share),
          ratio(i.ratio),
          lag(i.lag),
          duration(i.lagSeconds),
          bar(i.ratio),
        ]),
      ),
    );
    lines.push('');
    // The time to drain needs a capacity: the column is there only with --member-capacity.
    const drains = report.sizing !== undefined;
    lines.push(
      ...table(
        [
          'MEMBER',
          'CLIENT',
          'HOST',
          'INSTANCE',
          'PARTS',
          'LOAD',
          'SHARE',
          'LAG',
          'BEHIND',
          ...(drains ? ['DRAIN'] : []),
          'LAST PAUSE',
          'PARTITIONS',
        ],
        report.members.map((m) => [
          m.memberId,
          m.clientId,
          m.clientHost,
          withRack(m.instanceId, m.rack),
          String(m.partitions.length),
          num(m.load),
          pct(m.share),
          lag(m.lag),
          duration(m.lagSeconds),
          ...(drains ? [drainText(m.drainSeconds)] : []),
          m.lastPause === undefined
            ? '-'
            : `${m.lastPause.seconds.toFixed(2)}s ${m.lastPause.cause} g${String(m.lastPause.generation)}`,
          m.partitions.map((p) => p.slice(p.lastIndexOf(':') + 1)).join(','),
        ]),
      ),
    );
    lines.push('');
    lines.push(
      `busiest ÷ ideal: ${paint(ratioColor(report.ratio), ratio(report.ratio))}` +
        (report.memberRatio.instanceId === undefined
          ? ''
          : `   member busiest ÷ planned: ${paint(ratioColor(report.memberRatio.ratio), ratio(report.memberRatio.ratio))} (${report.memberRatio.instanceId})`) +
        (report.totalLag === undefined ? '' : `   total lag ${lag(report.totalLag)}`) +
        (report.lagSeconds === undefined ? '' : `, ${duration(report.lagSeconds)} behind`),
    );
    const apart = lagLeftOut(report.lagUnmeasured);
    if (apart !== undefined) lines.push(apart);
    if (report.crossRack !== undefined) {
      lines.push(
        `cross-rack load: ${pct(report.crossRack.now)} now, ${pct(report.crossRack.proposed)} proposed ` +
          `(at least ${pct(report.crossRack.lowerBound)} at that balance)`,
      );
    }
  } else {
    lines.push(
      ...table(
        ['INSTANCE', 'CAP', 'PARTS', 'LOAD', 'LOAD÷IDEAL', '', 'PROPOSED', 'LOAD÷IDEAL', ''],
        report.instances.map((i) => [
          withRack(i.instanceId, i.rack),
          num(i.capacity),
          `${String(i.partitions)} → ${String(i.proposed.partitions)}`,
          num(i.load),
          ratio(i.ratio),
          bar(i.ratio),
          num(i.proposed.load),
          ratio(i.proposed.ratio),
          bar(i.proposed.ratio),
        ]),
      ),
    );
    lines.push('');
    lines.push(
      `busiest ÷ ideal: ${paint(ratioColor(report.ratio), ratio(report.ratio))} → ` +
        `${paint(ratioColor(report.proposedRatio), ratio(report.proposedRatio))}   ` +
        `${String(report.moves.length)} move(s)`,
    );
    if (report.crossRack !== undefined) {
      lines.push(
        `cross-rack load: ${pct(report.crossRack.now)} → ${pct(report.crossRack.proposed)} ` +
          `(at least ${pct(report.crossRack.lowerBound)} at that balance)`,
      );
    }
    if (report.moves.length > 0) {
      lines.push('');
      lines.push(
        ...table(
          ['PARTITION', 'WEIGHT', 'FROM', 'TO'],
          report.moves.map((m) => [
            m.partition,
            num(m.weight),
            m.from === undefined ? '(unassigned)' : `${m.from.memberId} (${m.from.instanceId})`,
            `${m.to.memberId} (${m.to.instanceId})`,
          ]),
        ),
      );
    }
    lines.push('');
    lines.push('plan only: the group was not changed');
  }
  if (report.sizing !== undefined) lines.push('', ...sizingLines(report.sizing));
  return `${lines.join('\n')}\n`;
}

/** The sizing block: utilization now, the members and instances needed, what-if and futility. */
function sizingLines(sizing: NonNullable<GroupReport['sizing']>): string[] {
  const basis = sizing.basis;
  const capacityFrom =
    basis === undefined ? '' : ` (${num(basis.secondsPerMessage * 1000)} ms a message, ${String(basis.slots)} slot(s))`;
  const targetFrom =
    basis?.latencySla === undefined
      ? ''
      : ` (the ${num(basis.latencySla.seconds)} s p${num(100 * basis.latencySla.quantile)} latency SLA)`;
  const lines = [
    `capacity: ${num(sizing.memberCapacity)} per member at 100%${capacityFrom}, target ` +
      `${pct(sizing.targetUtilization)}${targetFrom}; busiest member now at ${pct(sizing.busiestUtilizationNow)}`,
    `needs ${String(sizing.desiredMembers)} member(s) (one an instance), or ${String(sizing.desiredInstances)} ` +
      `instance(s) of ${String(sizing.membersPerInstance)} member(s)`,
  ];
  if (sizing.whatIf !== undefined) {
    lines.push(
      `at ${String(sizing.whatIf.members)} member(s): busiest member at ${pct(sizing.whatIf.busiestUtilization)}`,
    );
  }
  lines.push(drainLine(sizing));
  if (sizing.futile) {
    const heavy = sizing.futilePartitions
      .slice(0, 5)
      .map((p) => `${p.partition} (${num(p.weight)})`)
      .join(', ');
    lines.push(
      `scale-out is futile: ${heavy}${sizing.futilePartitions.length > 5 ? ', …' : ''} alone exceed(s) a member's ` +
        'target load; more members cannot help. More partitions, a faster handler or a larger member can.',
    );
  }
  return lines;
}

/** When the group has drained at this load, and whom it waits for. */
function drainLine(sizing: NonNullable<GroupReport['sizing']>): string {
  const { slowest, drainSeconds } = sizing;
  if (slowest === undefined) return 'nothing to drain: no member has lag';
  const who = `member ${slowest.memberId} (${slowest.instanceId})`;
  if (drainSeconds === 'never') {
    return (
      `never drains at this load: ${who} receives ${num(slowest.arrivalRate)}, at or above the member ` +
      `capacity of ${num(sizing.memberCapacity)}`
    );
  }
  return `drains in ${duration(drainSeconds)} at 100% of the member capacity: slowest ${who}, lag ${lag(slowest.lag)}`;
}

/** The partitions left out of the lag or its seconds, as a note; undefined when none is. */
function lagLeftOut(unmeasured: GroupReport['lagUnmeasured']): string | undefined {
  const parts = [
    unmeasured.no_commit > 0 ? `${String(unmeasured.no_commit)} held partition(s) without a committed offset` : '',
    unmeasured.no_rate > 0
      ? `${String(unmeasured.no_rate)} with messages waiting and no arrival rate (in LAG, not in BEHIND)`
      : '',
  ].filter((p) => p !== '');
  return parts.length === 0 ? undefined : `lag leaves out: ${parts.join('; ')}`;
}

/** An instance id with its rack, when it has one: `pod-a @eu-west-1a`. */
function withRack(instanceId: string, rack: string | undefined): string {
  return rack === undefined ? instanceId : `${instanceId} @${rack}`;
}

type Color = 'green' | 'yellow' | 'red';
const ANSI: Record<Color, string> = { green: '\u001b[32m', yellow: '\u001b[33m', red: '\u001b[31m' };

function painter(enabled: boolean): (color: Color, text: string) => string {
  return (color, text) => (enabled && text !== '' ? `${ANSI[color]}${text}\u001b[0m` : text);
}

/** Green within 10 % of ideal, yellow within 25 %, red beyond. */
function ratioColor(r: number): Color {
  return r <= 1.1 ? 'green' : r <= 1.25 ? 'yellow' : 'red';
}

/** Left-aligned first column, right-aligned numbers; widths ignore ANSI codes. */
function table(header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string[] {
  // eslint-disable-next-line no-control-regex -- stripping our own ANSI colour codes
  const visible = (s: string) => s.replace(/\u001b\[\d+m/g, '').length;
  const widths = header.map((h, c) => Math.max(visible(h), ...rows.map((r) => visible(r[c] ?? ''))));
  const last = header.length - 1;
  const format = (cells: ReadonlyArray<string>) =>
    cells
      .map((cell, c) => {
        const pad = ' '.repeat(widths[c]! - visible(cell));
        if (c === last) return cell;
        return c === 0 || isTextColumn(header[c]!) ? cell + pad : pad + cell;
      })
      .join('  ')
      .trimEnd();
  return [format(header), ...rows.map(format)];
}

function isTextColumn(header: string): boolean {
  return ['CLIENT', 'HOST', 'INSTANCE', 'FROM', 'TO', ''].includes(header);
}

function num(n: number): string {
  return Math.abs(n) >= 100 || Number.isInteger(n) ? n.toFixed(0) : n.toFixed(1);
}

function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function ratio(r: number): string {
  return r.toFixed(2);
}

function lag(l: number | undefined): string {
  return l === undefined ? '-' : String(l);
}

/** Seconds as people read them: `4.2s`, `42s`, `12m05s`, `3h04m`; `-` when unknown. */
function duration(seconds: number | undefined): string {
  if (seconds === undefined) return '-';
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  const whole = Math.round(seconds);
  if (whole < 60) return `${String(whole)}s`;
  const two = (n: number) => String(n).padStart(2, '0');
  if (whole < 3600) return `${String(Math.floor(whole / 60))}m${two(whole % 60)}s`;
  return `${String(Math.floor(whole / 3600))}h${two(Math.floor((whole % 3600) / 60))}m`;
}

function drainText(d: number | 'never' | undefined): string {
  return d === 'never' ? 'never' : duration(d);
}
