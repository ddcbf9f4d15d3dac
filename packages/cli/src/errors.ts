/**
 * The CLI's one error kind for conditions a user can act on (unknown group, empty group, no
 * weights, unreachable broker): shown as one line, without a stack unless `--verbose`.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
}
