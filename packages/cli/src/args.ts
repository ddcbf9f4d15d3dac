/**
 * Command-line parsing: argv and the environment in, validated options out. Pure, so every rule
 * (required flags, ranges, the SASL password's source) is unit-tested without a broker.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_SLA_QUANTILE, DEFAULT_TARGET_UTILIZATION, utilizationForLatency } from '@load-aware/assignor';

/** The two commands; both only read the group. */
export type Command = 'inspect' | 'plan';

/** SASL settings as KafkaJS takes them. */
export interface SaslOptions {
  readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  readonly username: string;
  readonly password: string;
}

/** Where weights come from. */
export type WeightsOption =
  | {
      readonly kind: 'offset-rate';
      /** Sample end offsets for this long instead of reading the time index. */
      readonly windowSeconds: number | undefined;
      /** Instant rates: how far back the time index is read (default 60 s, the source's own window). */
      readonly lookbackSeconds: number | undefined;
    }
  | { readonly kind: 'prometheus'; readonly url: string; readonly query: string };

/** Validated options of one run. */
export interface CliOptions {
  readonly command: Command;
  readonly brokers: ReadonlyArray<string>;
  readonly groupId: string;
  readonly weights: WeightsOption;
  readonly json: boolean;
  /** Exit 2 when the current busiest ÷ ideal ratio is above this. */
  readonly failAbove: number | undefined;
  readonly clientId: string;
  readonly ssl: boolean;
  /**
   * PEM file of the certificate authorities to trust instead of Node's defaults (a private CA or
   * a self-signed broker certificate); implies `ssl`.
   */
  readonly sslCa: string | undefined;
  readonly sasl: SaslOptions | undefined;
  readonly verbose: boolean;
  /** Bound of connecting and of each broker or Prometheus request. */
  readonly timeoutMs: number;
  readonly moveTolerance: number | undefined;
  readonly maxMoves: number | undefined;
  /** How members without load-aware userData are grouped into instances. */
  readonly instanceFrom: InstanceFrom;
  /** Capacity of an instance without load-aware userData: a number, or its member count. */
  readonly foreignCapacity: ForeignCapacity;
  /**
   * Sizing: what one member processes at 100% busy, in the weights' units (events/s with
   * offset-rate weights). Undefined: no sizing in the report.
   */
  readonly memberCapacity: number | undefined;
  /** Sizing: the share of `memberCapacity` a member may use (default 0.7, or derived from the SLA). */
  readonly targetUtilization: number;
  /** Sizing what-if: the busiest member's utilization with this many members. */
  readonly whatIfMembers: number | undefined;
  /** Where the capacity and target came from when derived (`--ms-per-message`, `--latency-sla`). */
  readonly sizingBasis: SizingBasis | undefined;
}

/** What a derived member capacity or target utilization was derived from, for the report. */
export interface SizingBasis {
  /** `--ms-per-message` ÷ 1000: the work one message costs; the capacity is `slots` ÷ it. */
  readonly secondsPerMessage: number;
  /** `--slots`: handlers of one member that work at once without slowing each other. */
  readonly slots: number;
  /** `--latency-sla` and `--sla-quantile`, when the target was derived from them. */
  readonly latencySla: { readonly seconds: number; readonly quantile: number } | undefined;
}

/**
 * Members of other assignors carry no capacity. Each of their instances counts as 1 by default,
 * or as its member count: what `capacity` would be set to where every consumer of a process
 * does the same work, so a plan shows what load-aware would do once adopted that way.
 */
export type ForeignCapacity = number | 'members';

/**
 * Members of other assignors carry no instance id: they are grouped by client host (one process
 * per host, as in most deployments) or by client id (when every process sets its own, e.g. the
 * pod name, and several share a host).
 */
export type InstanceFrom = 'host' | 'client-id';

/** What parsing yields: options to run with, or a request for the usage text. */
export type ParsedArgs = { readonly help: true } | { readonly help: false; readonly options: CliOptions };

/** A command line that cannot run; its message is shown as is, followed by a hint at `--help`. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The environment variable read for the SASL password, so it never appears in `ps` output. */
export const SASL_PASSWORD_ENV = 'LOAD_AWARE_SASL_PASSWORD';

/** The usage text shown by `--help`. */
export const USAGE = `Usage: load-aware <inspect|plan> --brokers host:port[,host:port] --group G [options]

  inspect   how the group's assignment spreads the load, and its lag (per instance and member)
  plan      what the load-aware assignor would move, from the current owners (changes nothing)

Options:
  --brokers LIST            bootstrap brokers, comma separated (required)
  --group G                 consumer group id (required)
  --weights SRC             offset-rate (default) or prometheus
  --window S                offset-rate: sample end offsets for S seconds (>= 2) instead of the
                            instant rates read from the brokers' time index
  --lookback S              offset-rate: instant rates over the last S seconds (>= 2, default 60)
  --prometheus-url U        prometheus: base URL of the Prometheus-compatible server
  --query Q                 prometheus: instant query with one series per partition
  --json                    machine-readable output
  --fail-above R            exit 2 when the busiest instance's load ÷ the ideal load is above R
  --move-tolerance F        plan: the assignor's moveTolerance (default 0.05)
  --max-moves N             plan: the assignor's maxMovesPerRebalance (default unbounded)
  --instance-from K         members without load-aware userData: group them into instances by
                            client host (host, default) or by KafkaJS client id (client-id)
  --capacity C              members without load-aware userData: their instance's capacity, a
                            number (default 1) or 'members' (its member count)
  --member-capacity C       what one member processes at 100% busy, in the weights' units
                            (events/s for offset-rate): adds how many members the group needs
                            and when it has drained its lag
  --target-utilization U    with --member-capacity: the share of it a member may use (default 0.7)
  --members N               with --member-capacity: the busiest member's utilization at N members
  --ms-per-message MS       instead of --member-capacity: the work one message costs (busy time's
                            busy seconds ÷ messages); capacity = slots × 1000 ÷ MS events/s
  --slots N                 with --ms-per-message: handlers of a member that work at once (default 1)
  --latency-sla S           with --ms-per-message, instead of --target-utilization: derive the target
                            from a latency SLA of S seconds (Kingman's approximation, variability 2)
  --sla-quantile Q          with --latency-sla: the share of messages within it (default 0.99)
  --timeout S               connection and request timeout in seconds (default 10)
  --client-id ID            KafkaJS client id (default load-aware-cli)
  --ssl                     connect with TLS
  --ssl-ca FILE             trust the CA certificates in this PEM file (implies --ssl)
  --sasl-mechanism M        plain, scram-sha-256 or scram-sha-512
  --sasl-username U
  --sasl-password P         or set ${SASL_PASSWORD_ENV} (preferred: argv is visible to others)
  --verbose                 stack traces on errors
  -h, --help

Exit codes: 0 ok, 1 error, 2 ratio above --fail-above.`;

const MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/**
 * Parses argv (without `node` and the script) and the environment.
 *
 * @throws {@link UsageError} for anything that cannot run: unknown flags, missing or invalid values.
 */
export function parseCliArgs(
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        brokers: { type: 'string' },
        group: { type: 'string' },
        weights: { type: 'string' },
        window: { type: 'string' },
        lookback: { type: 'string' },
        capacity: { type: 'string' },
        'member-capacity': { type: 'string' },
        'target-utilization': { type: 'string' },
        members: { type: 'string' },
        'ms-per-message': { type: 'string' },
        slots: { type: 'string' },
        'latency-sla': { type: 'string' },
        'sla-quantile': { type: 'string' },
        'prometheus-url': { type: 'string' },
        query: { type: 'string' },
        json: { type: 'boolean' },
        'fail-above': { type: 'string' },
        'move-tolerance': { type: 'string' },
        'max-moves': { type: 'string' },
        timeout: { type: 'string' },
        'instance-from': { type: 'string' },
        'client-id': { type: 'string' },
        ssl: { type: 'boolean' },
        'ssl-ca': { type: 'string' },
        'sasl-mechanism': { type: 'string' },
        'sasl-username': { type: 'string' },
        'sasl-password': { type: 'string' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    // parseArgs' messages name the flag; its trailing advice about '--' does not apply here.
    throw new UsageError((err as Error).message.replace(/\. To specify a positional.*$/s, ''));
  }
  const { values: v, positionals } = parsed;
  if (v.help === true) return { help: true };

  const [command, ...extra] = positionals;
  if (command === undefined) throw new UsageError('missing command: inspect or plan');
  if (command !== 'inspect' && command !== 'plan')
    throw new UsageError(`unknown command '${command}': inspect or plan`);
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]!}'`);

  const brokers = (v.brokers ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  if (brokers.length === 0) throw new UsageError('--brokers is required (host:port[,host:port])');
  for (const b of brokers) {
    if (!/^[^:\s]+:\d+$/.test(b)) throw new UsageError(`--brokers: '${b}' is not host:port`);
  }
  const groupId = v.group ?? '';
  if (groupId === '') throw new UsageError('--group is required');

  if (command === 'inspect' && (v['move-tolerance'] !== undefined || v['max-moves'] !== undefined)) {
    throw new UsageError('--move-tolerance and --max-moves apply to plan only');
  }
  const sizing = sizingOptions(v);

  return {
    help: false,
    options: {
      command,
      brokers,
      groupId,
      weights: weightsOption(v),
      json: v.json === true,
      failAbove: optionalNumber('--fail-above', v['fail-above'], (n) => n > 0, 'a number above 0'),
      clientId: v['client-id'] ?? 'load-aware-cli',
      ssl: v.ssl === true || v['ssl-ca'] !== undefined,
      sslCa: nonEmpty('--ssl-ca', v['ssl-ca']),
      sasl: saslOption(v, env),
      verbose: v.verbose === true,
      timeoutMs: 1000 * (optionalNumber('--timeout', v.timeout, (n) => n > 0, 'seconds above 0') ?? 10),
      moveTolerance: optionalNumber('--move-tolerance', v['move-tolerance'], (n) => n >= 0, 'a fraction >= 0'),
      maxMoves: optionalNumber('--max-moves', v['max-moves'], (n) => Number.isInteger(n) && n >= 0, 'an integer >= 0'),
      instanceFrom: instanceFromOption(v['instance-from']),
      foreignCapacity: foreignCapacityOption(v.capacity),
      ...sizing,
      whatIfMembers: optionalNumber('--members', v.members, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1'),
    },
  };
}

type Values = Record<string, string | boolean | undefined>;

/**
 * The sizing flags: a capacity stated (`--member-capacity`) or derived from the work a message
 * costs (`--ms-per-message`, `--slots`), and a target stated (`--target-utilization`) or derived
 * from a latency SLA (`--latency-sla`, `--sla-quantile`), as the trigger's `sizing` option does.
 */
function sizingOptions(v: Values): Pick<CliOptions, 'memberCapacity' | 'targetUtilization' | 'sizingBasis'> {
  // A flag's value read by its own name, without the dashes.
  const flag = (name: string): string | undefined => v[name.slice(2)] as string | undefined;
  const positive = (name: string, what: string) =>
    optionalNumber(name, flag(name), (n) => n > 0 && Number.isFinite(n), `${what} above 0`);
  const stated = positive('--member-capacity', 'a rate');
  const ms = positive('--ms-per-message', 'milliseconds');
  const slots = optionalNumber(
    '--slots',
    flag('--slots'),
    (n) => Number.isInteger(n) && n >= 1 && n <= 1024,
    'an integer from 1 to 1024',
  );
  const slaSeconds = positive('--latency-sla', 'seconds');
  const quantile = optionalNumber(
    '--sla-quantile',
    flag('--sla-quantile'),
    (n) => n > 0 && n < 1,
    'a fraction in (0, 1)',
  );
  const statedTarget = optionalNumber(
    '--target-utilization',
    flag('--target-utilization'),
    (n) => n > 0 && n <= 1,
    'a fraction in (0, 1]',
  );
  if (stated !== undefined && ms !== undefined) {
    throw new UsageError('--member-capacity or --ms-per-message, not both: the capacity is stated or derived');
  }
  if (slots !== undefined && ms === undefined) throw new UsageError('--slots needs --ms-per-message');
  if (slaSeconds !== undefined && ms === undefined) {
    throw new UsageError('--latency-sla needs --ms-per-message: the target comes from the work a message costs');
  }
  if (quantile !== undefined && slaSeconds === undefined) throw new UsageError('--sla-quantile needs --latency-sla');
  if (slaSeconds !== undefined && statedTarget !== undefined) {
    throw new UsageError('--target-utilization or --latency-sla, not both: the SLA derives the target');
  }
  if (stated === undefined && ms === undefined && (statedTarget !== undefined || v.members !== undefined)) {
    throw new UsageError('--target-utilization and --members need --member-capacity or --ms-per-message');
  }
  if (ms === undefined) {
    return {
      memberCapacity: stated,
      targetUtilization: statedTarget ?? DEFAULT_TARGET_UTILIZATION,
      sizingBasis: undefined,
    };
  }
  const secondsPerMessage = ms / 1000;
  const basis = {
    secondsPerMessage,
    slots: slots ?? 1,
    latencySla:
      slaSeconds === undefined ? undefined : { seconds: slaSeconds, quantile: quantile ?? DEFAULT_SLA_QUANTILE },
  };
  let targetUtilization = statedTarget ?? DEFAULT_TARGET_UTILIZATION;
  if (basis.latencySla !== undefined) {
    const derived = utilizationForLatency({
      slaSeconds: basis.latencySla.seconds,
      quantile: basis.latencySla.quantile,
      secondsPerMessage,
      slots: basis.slots,
    });
    if (!derived.ok) throw new UsageError(`--latency-sla: ${derived.reason}; no utilization holds it`);
    targetUtilization = derived.utilization;
  }
  return { memberCapacity: basis.slots / secondsPerMessage, targetUtilization, sizingBasis: basis };
}

function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value === '') throw new UsageError(`${flag} needs a value`);
  return value;
}

function instanceFromOption(value: string | boolean | undefined): InstanceFrom {
  if (value === undefined || value === 'host') return 'host';
  if (value === 'client-id') return 'client-id';
  throw new UsageError(`--instance-from: '${String(value)}' is not host or client-id`);
}

function foreignCapacityOption(value: string | undefined): ForeignCapacity {
  if (value === undefined) return 1;
  if (value === 'members') return 'members';
  // The assignor's own bounds, so the plan judges capacities the leader would accept.
  const n = optionalNumber(
    '--capacity',
    value,
    (c) => c >= 1e-3 && c <= 1e6,
    "'members' or a number from 0.001 to 1e6",
  );
  return n!;
}

function weightsOption(v: Values): WeightsOption {
  const kind = (v['weights'] as string | undefined) ?? 'offset-rate';
  const url = v['prometheus-url'] as string | undefined;
  const query = v['query'] as string | undefined;
  const window = optionalNumber(
    '--window',
    v['window'] as string | undefined,
    (n) => Number.isInteger(n) && n >= 2,
    'whole seconds >= 2',
  );
  const lookback = optionalNumber(
    '--lookback',
    v['lookback'] as string | undefined,
    (n) => Number.isInteger(n) && n >= 2,
    'whole seconds >= 2',
  );
  if (kind === 'offset-rate') {
    if (url !== undefined || query !== undefined) {
      throw new UsageError('--prometheus-url and --query need --weights prometheus');
    }
    if (window !== undefined && lookback !== undefined) {
      throw new UsageError('--lookback applies to instant rates: not with --window');
    }
    return { kind, windowSeconds: window, lookbackSeconds: lookback };
  }
  if (kind === 'prometheus') {
    if (window !== undefined || lookback !== undefined) {
      throw new UsageError('--window and --lookback apply to --weights offset-rate only');
    }
    if (url === undefined || query === undefined) {
      throw new UsageError('--weights prometheus needs --prometheus-url and --query');
    }
    return { kind, url, query };
  }
  throw new UsageError(`--weights: '${kind}' is neither offset-rate nor prometheus`);
}

function saslOption(v: Values, env: Readonly<Record<string, string | undefined>>): SaslOptions | undefined {
  const mechanism = v['sasl-mechanism'] as string | undefined;
  const username = v['sasl-username'] as string | undefined;
  const password = (v['sasl-password'] as string | undefined) ?? env[SASL_PASSWORD_ENV];
  if (mechanism === undefined) {
    if (username !== undefined || v['sasl-password'] !== undefined) {
      throw new UsageError('--sasl-username and --sasl-password need --sasl-mechanism');
    }
    return undefined;
  }
  if (!(MECHANISMS as ReadonlyArray<string>).includes(mechanism)) {
    throw new UsageError(`--sasl-mechanism: '${mechanism}' is not one of ${MECHANISMS.join(', ')}`);
  }
  if (username === undefined) throw new UsageError('--sasl-mechanism needs --sasl-username');
  if (password === undefined) {
    throw new UsageError(`--sasl-mechanism needs --sasl-password or ${SASL_PASSWORD_ENV}`);
  }
  return { mechanism: mechanism as SaslOptions['mechanism'], username, password };
}

function optionalNumber(
  flag: string,
  text: string | undefined,
  valid: (n: number) => boolean,
  expected: string,
): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || !valid(n)) {
    throw new UsageError(`${flag}: '${text}' is not ${expected}`);
  }
  return n;
}
