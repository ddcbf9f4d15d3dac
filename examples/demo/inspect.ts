/**
 * `load-aware inspect` at the end of a phase: the same view an operator gets from the CLI, printed
 * into the demo's log so the two assigners' end states can be compared by the CLI's numbers.
 */
import { runCli } from '@load-aware/cli';

/**
 * Runs `load-aware inspect` on the group in this process and returns what it printed: the tables,
 * or its one-line error (a group caught mid-rebalance, say). Never throws: it is commentary, and
 * must not fail a phase.
 */
export async function inspectGroup(brokers: ReadonlyArray<string>, groupId: string): Promise<string> {
  let out = '';
  let err = '';
  await runCli(['inspect', '--brokers', brokers.join(','), '--group', groupId, '--timeout', '5'], {
    stdout: {
      write: (text: string) => (out += text),
    },
    stderr: {
      write: (text: string) => (err += text),
    },
    env: {},
  });
  return (out + err).trimEnd();
}
