/**
 * The CLI at the end of a phase: `load-aware inspect` for the same view an operator gets, and
 * `load-aware plan --json` for what the assignor would make of the group, so the round-robin
 * phase's plan can be checked against what the load-aware phase then reaches.
 */
import { runCli } from '@load-aware/cli';

/** The CLI's numbers for a group: busiest ÷ ideal now and in `balance()`'s proposal. */
export interface GroupView {
  readonly ratio: number;
  readonly proposedRatio: number;
  readonly moves: number;
}

/** Runs the CLI in this process; its output, and whether it succeeded. Never throws. */
async function cli(args: string[]): Promise<{ ok: boolean; text: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    stdout: {
      write: (text: string) => (out += text),
    },
    stderr: {
      write: (text: string) => (err += text),
    },
    env: {},
  });
  return { ok: code === 0, text: (out + err).trimEnd() };
}

/**
 * How far back the CLI reads rates at the end of a phase of `phaseSeconds`: within the phase's
 * second half (at most 15 s), so it weighs the traffic after the hotspot move only, as the
 * assignor's own short window does. With the CLI's default minute the plan would weigh a mix of
 * old and new traffic, and so would judge the load-aware group against a spread it never had to
 * meet.
 */
export function inspectLookbackSeconds(phaseSeconds: number): number {
  return Math.max(2, Math.min(15, Math.floor(phaseSeconds / 2) - 1));
}

/**
 * `inspect` (text) and `plan --json` on the group. The demo's instances set their KafkaJS client
 * id to their instance id, so members without load-aware userData (the round-robin phase) are
 * grouped by client id, with their member count as capacity: the capacity the load-aware phase's
 * instances declare, so both phases are judged against the same ideal. Never throws: it is
 * commentary, and must not fail a phase; `view` is missing when the CLI could not judge the group
 * (caught mid-rebalance, say).
 */
export async function inspectGroup(
  brokers: ReadonlyArray<string>,
  groupId: string,
  lookbackSeconds: number,
): Promise<{ text: string; view: GroupView | undefined }> {
  const common = [
    '--brokers',
    brokers.join(','),
    '--group',
    groupId,
    '--timeout',
    '5',
    '--instance-from',
    'client-id',
    '--capacity',
    'members',
    '--lookback',
    String(lookbackSeconds),
  ];
  const inspected = await cli(['inspect', ...common]);
  const planned = await cli(['plan', ...common, '--json']);
  let view: GroupView | undefined;
  if (planned.ok) {
    const report = JSON.parse(planned.text) as { ratio: number; proposedRatio: number; moves: unknown[] };
    view = { ratio: report.ratio, proposedRatio: report.proposedRatio, moves: report.moves.length };
  }
  return { text: inspected.text, view };
}
