import { parseCliArgs, SASL_PASSWORD_ENV, UsageError, type CliOptions } from '@load-aware/cli/internal';

const required = ['--brokers', 'k1:9092,k2:9092', '--group', 'orders'];

function options(argv: string[], env: Record<string, string> = {}): CliOptions {
  const parsed = parseCliArgs(argv, env);
  if (parsed.help) throw new Error('unexpected --help');
  return parsed.options;
}

function usageError(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseCliArgs(argv, env);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('no UsageError');
}

describe('parseCliArgs', () => {
  it('takes defaults: offset-rate instant weights, 10 s timeout, text output', () => {
    expect(options(['inspect', ...required])).toEqual({
      command: 'inspect',
      brokers: ['k1:9092', 'k2:9092'],
      groupId: 'orders',
      weights: { kind: 'offset-rate', windowSeconds: undefined, lookbackSeconds: undefined },
      json: false,
      failAbove: undefined,
      clientId: 'load-aware-cli',
      ssl: false,
      sslCa: undefined,
      sasl: undefined,
      verbose: false,
      timeoutMs: 10_000,
      moveTolerance: undefined,
      maxMoves: undefined,
      instanceFrom: 'host',
      foreignCapacity: 1,
      memberCapacity: undefined,
      targetUtilization: 0.7,
      whatIfMembers: undefined,
    });
  });

  it('groups foreign members by client id on request, and refuses any other grouping', () => {
    expect(options(['inspect', ...required, '--instance-from', 'client-id']).instanceFrom).toBe('client-id');
    expect(() => parseCliArgs(['inspect', ...required, '--instance-from', 'pod'], {})).toThrow(
      "--instance-from: 'pod' is not host or client-id",
    );
  });

  it('reads every option', () => {
    const o = options([
      'plan',
      ...required,
      '--json',
      '--fail-above',
      '1.2',
      '--move-tolerance',
      '0.1',
      '--max-moves',
      '3',
      '--timeout',
      '2.5',
      '--client-id',
      'ops',
      '--ssl',
      '--verbose',
      '--window',
      '30',
    ]);
    expect(o).toMatchObject({
      command: 'plan',
      json: true,
      failAbove: 1.2,
      moveTolerance: 0.1,
      maxMoves: 3,
      timeoutMs: 2500,
      clientId: 'ops',
      ssl: true,
      verbose: true,
      weights: { kind: 'offset-rate', windowSeconds: 30, lookbackSeconds: undefined },
    });
    expect(
      options(['inspect', ...required, '--weights', 'prometheus', '--prometheus-url', 'http://p:9090', '--query', 'q'])
        .weights,
    ).toEqual({ kind: 'prometheus', url: 'http://p:9090', query: 'q' });
  });

  it("reads the instant rates' lookback, which excludes sampling over --window", () => {
    expect(options(['inspect', ...required, '--lookback', '6']).weights).toEqual({
      kind: 'offset-rate',
      windowSeconds: undefined,
      lookbackSeconds: 6,
    });
    expect(usageError(['inspect', ...required, '--lookback', '1'])).toBe("--lookback: '1' is not whole seconds >= 2");
    expect(usageError(['inspect', ...required, '--lookback', '6', '--window', '6'])).toBe(
      '--lookback applies to instant rates: not with --window',
    );
    expect(
      usageError([
        'inspect',
        ...required,
        '--weights',
        'prometheus',
        '--prometheus-url',
        'u',
        '--query',
        'q',
        '--lookback',
        '6',
      ]),
    ).toBe('--window and --lookback apply to --weights offset-rate only');
  });

  it("reads the capacity of instances without userData: a number within the assignor's bounds, or 'members'", () => {
    expect(options(['inspect', ...required, '--capacity', 'members']).foreignCapacity).toBe('members');
    expect(options(['inspect', ...required, '--capacity', '2.5']).foreignCapacity).toBe(2.5);
    expect(usageError(['inspect', ...required, '--capacity', '0'])).toBe(
      "--capacity: '0' is not 'members' or a number from 0.001 to 1e6",
    );
  });

  it('trusts a CA file on request, which implies TLS', () => {
    expect(options(['inspect', ...required, '--ssl-ca', '/etc/kafka/ca.pem'])).toMatchObject({
      ssl: true,
      sslCa: '/etc/kafka/ca.pem',
    });
    expect(usageError(['inspect', ...required, '--ssl-ca', ''])).toBe('--ssl-ca needs a value');
  });

  it('takes the SASL password from the environment, the flag winning', () => {
    const sasl = ['--sasl-mechanism', 'scram-sha-512', '--sasl-username', 'u'];
    expect(options(['inspect', ...required, ...sasl], { [SASL_PASSWORD_ENV]: 'env' }).sasl).toEqual({
      mechanism: 'scram-sha-512',
      username: 'u',
      password: 'env',
    });
    expect(
      options(['inspect', ...required, ...sasl, '--sasl-password', 'flag'], { [SASL_PASSWORD_ENV]: 'env' }).sasl
        ?.password,
    ).toBe('flag');
    expect(usageError(['inspect', ...required, ...sasl])).toBe(
      `--sasl-mechanism needs --sasl-password or ${SASL_PASSWORD_ENV}`,
    );
  });

  it('answers --help without other flags', () => {
    expect(parseCliArgs(['--help'], {})).toEqual({ help: true });
    expect(parseCliArgs(['-h'], {})).toEqual({ help: true });
  });

  it.each([
    [[], 'missing command: inspect or plan'],
    [['show', ...required], "unknown command 'show': inspect or plan"],
    [['inspect', '--group', 'g'], '--brokers is required (host:port[,host:port])'],
    [['inspect', '--brokers', 'k1'], "--brokers: 'k1' is not host:port"],
    [['inspect', '--brokers', 'k1:1'], '--group is required'],
    [['inspect', ...required, '--fail-above', 'x'], "--fail-above: 'x' is not a number above 0"],
    [['inspect', ...required, '--window', '1'], "--window: '1' is not whole seconds >= 2"],
    [['inspect', ...required, '--max-moves', '2'], '--move-tolerance and --max-moves apply to plan only'],
    [['plan', ...required, '--max-moves', '1.5'], "--max-moves: '1.5' is not an integer >= 0"],
    [['inspect', ...required, '--weights', 'prometheus'], '--weights prometheus needs --prometheus-url and --query'],
    [['inspect', ...required, '--weights', 'x'], "--weights: 'x' is neither offset-rate nor prometheus"],
    [['inspect', ...required, '--query', 'q'], '--prometheus-url and --query need --weights prometheus'],
    [
      ['inspect', ...required, '--sasl-mechanism', 'gssapi'],
      "--sasl-mechanism: 'gssapi' is not one of plain, scram-sha-256, scram-sha-512",
    ],
    [['inspect', ...required, '--sasl-username', 'u'], '--sasl-username and --sasl-password need --sasl-mechanism'],
    [['inspect', ...required, 'extra'], "unexpected argument 'extra'"],
  ])('refuses %j: %s', (argv, message) => {
    expect(usageError(argv)).toBe(message);
  });

  it('names an unknown flag', () => {
    expect(usageError(['inspect', ...required, '--colour'])).toMatch(/^Unknown option '--colour'/);
  });
});
