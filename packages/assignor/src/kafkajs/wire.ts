/**
 * KafkaJS's group requests, sent with a group instance id: the module internals of the seam
 * (see `internals.ts`) put to use, typed.
 *
 * Why internals: KafkaJS's JoinGroup v5, SyncGroup v3, Heartbeat v3 and LeaveGroup v3 encoders
 * take a `groupInstanceId`, but the `Broker` methods the consumer calls never pass one. So the
 * coordinator view builds those requests itself, with KafkaJS's own request definitions at the
 * version the broker connection negotiated, and sends them through the broker's own send path
 * (so retries, request timeouts, instrumentation and the closed-connection handling stay
 * KafkaJS's). Everything here is checked at runtime: another KafkaJS version makes
 * {@link loadWire} answer undefined and {@link missingModuleInternals} name what moved, and the
 * assigner refuses static membership with that name instead of joining as a dynamic member.
 */
import { findModuleInternals, type KafkaJsInternal, type ModuleInternals } from './internals.js';

/** A request as KafkaJS's connection sends it: built by a request definition. */
export type ProtocolRequest = object;

/** One request definition of KafkaJS (`requests.JoinGroup`, ...). */
interface RequestDefinition {
  readonly versions: ReadonlyArray<string>;
  protocol(args: { version: number }): (fields: object) => ProtocolRequest;
}

/** The part of a KafkaJS `Broker` used to send group requests. */
export interface WireBroker {
  /** Negotiated versions per API key (`{ [apiKey]: { minVersion, maxVersion } }`). */
  readonly versions?: Readonly<Record<number, { readonly maxVersion?: number | null }>> | null;
  /** The request builder for the negotiated version of an API. */
  lookupRequest(apiKey: number, definition: RequestDefinition): (fields: object) => ProtocolRequest;
}

/** The group APIs whose requests carry a group instance id. */
export type GroupApi = 'JoinGroup' | 'SyncGroup' | 'Heartbeat' | 'LeaveGroup';

/** The first version of each group API with a `group_instance_id` field (KIP-345). */
export const STATIC_MEMBERSHIP_VERSIONS: Readonly<Record<GroupApi, number>> = Object.freeze({
  JoinGroup: 5,
  SyncGroup: 3,
  Heartbeat: 3,
  LeaveGroup: 3,
});

/** What static membership uses of KafkaJS. */
export interface KafkaWire {
  /** The version of `api` the broker connection will send, or undefined before it is connected. */
  versionFor(broker: WireBroker, api: GroupApi): number | undefined;
  /** Builds a request with KafkaJS's encoder for the negotiated version. */
  build(broker: WireBroker, api: GroupApi, fields: object): ProtocolRequest;
  /** Sends a built request through the broker's own send path; resolves to the decoded answer. */
  send(broker: WireBroker, request: ProtocolRequest): Promise<unknown>;
  /**
   * Opens a connection of its own to `broker`'s node, with the settings of the broker's own
   * connections (TLS, SASL, socket factory, timeouts), for one request that may block. A broker
   * serves one request per connection at a time: a JoinGroup held at the join barrier on the
   * consumer's connection would hold its heartbeats and offset commits behind it too.
   */
  sideConnection(broker: WireBroker): SideConnection | undefined;
}

/** A connection opened by {@link KafkaWire.sideConnection}. */
export interface SideConnection {
  /** Connects (TLS and SASL as the broker's own connections do). */
  open(): Promise<void>;
  send(request: ProtocolRequest): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The KafkaJS internals static membership and the background fire send through, or undefined
 * when this KafkaJS lacks the request definitions or the broker's private send (the assigner has
 * already said which, at construction). Looked up on every call: Node caches the modules, and a
 * lookup is a few property reads.
 */
export function loadWire(internals: ModuleInternals = findModuleInternals()): KafkaWire | undefined {
  const { sendSymbol, Connection } = internals;
  const definitions = groupDefinitions(internals);
  if (definitions === undefined || sendSymbol === undefined) return undefined;
  const entry = (api: GroupApi) => definitions.get(api)!;
  return {
    versionFor(broker, api) {
      const { key, definition } = entry(api);
      const max = broker.versions?.[key]?.maxVersion;
      if (typeof max !== 'number') return undefined;
      return Math.min(max, Math.max(...definition.versions.map(Number)));
    },
    build(broker, api, fields) {
      const { key, definition } = entry(api);
      return broker.lookupRequest(key, definition)(fields);
    },
    sideConnection(broker) {
      return Connection === undefined
        ? undefined
        : openSide(Connection as new (options: object) => RawConnection, broker);
    },
    send(broker, request) {
      const send = (broker as unknown as Record<symbol, unknown>)[sendSymbol];
      if (typeof send !== 'function') return Promise.reject(new Error('KafkaJS broker has no send method'));
      return (send as (r: ProtocolRequest) => Promise<unknown>).call(broker, request);
    },
  };
}

/**
 * The module internals this KafkaJS lacks, `requests` included when the four group requests are
 * there but cannot carry a group instance id.
 */
export function missingModuleInternals(internals: ModuleInternals = findModuleInternals()): KafkaJsInternal[] {
  const missing: KafkaJsInternal[] = [];
  if (groupDefinitions(internals) === undefined) missing.push('requests');
  if (internals.sendSymbol === undefined) missing.push('Broker#sendRequest');
  if (internals.Connection === undefined) missing.push('Connection');
  return missing;
}

/** The four group request definitions with their API keys, if each has its KIP-345 version. */
function groupDefinitions(
  internals: ModuleInternals,
): Map<GroupApi, { key: number; definition: RequestDefinition }> | undefined {
  const { requests } = internals;
  if (requests === undefined) return undefined;
  const definitions = new Map<GroupApi, { key: number; definition: RequestDefinition }>();
  for (const api of Object.keys(STATIC_MEMBERSHIP_VERSIONS) as GroupApi[]) {
    const key = requests.apiKeys[api];
    const definition = requests.definitions[api] as RequestDefinition | undefined;
    if (typeof key !== 'number' || typeof definition?.protocol !== 'function') return undefined;
    if (!Array.isArray(definition.versions)) return undefined;
    if (!definition.versions.map(Number).includes(STATIC_MEMBERSHIP_VERSIONS[api])) return undefined;
    definitions.set(api, { key, definition });
  }
  return definitions;
}

/** The part of a KafkaJS `Connection` a side connection copies and uses. */
interface RawConnection {
  readonly host: string;
  readonly port: number;
  readonly rack?: string | null;
  readonly clientId: string;
  readonly socketFactory: unknown;
  readonly ssl: unknown;
  readonly sasl: unknown;
  readonly requestTimeout: number;
  readonly connectionTimeout: number;
  readonly reauthenticationThreshold: number;
  readonly versions: unknown;
  readonly supportAuthenticationProtocol: unknown;
  readonly logger: { namespace(name: string): unknown };
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(request: ProtocolRequest): Promise<unknown>;
  setVersions(versions: unknown): void;
  setSupportAuthenticationProtocol(supported: unknown): void;
}

function openSide(Connection: new (options: object) => RawConnection, broker: WireBroker): SideConnection | undefined {
  const pool = (broker as unknown as { connectionPool?: { pool?: RawConnection[] } }).connectionPool?.pool;
  const model = pool?.[0];
  if (model === undefined || typeof model.host !== 'string') return undefined;
  // No instrumentation emitter: this request is the library's, not one the user's events should count.
  const side = new Connection({
    host: model.host,
    port: model.port,
    rack: model.rack ?? null,
    clientId: model.clientId,
    socketFactory: model.socketFactory,
    ssl: model.ssl,
    sasl: model.sasl,
    requestTimeout: model.requestTimeout,
    connectionTimeout: model.connectionTimeout,
    reauthenticationThreshold: model.reauthenticationThreshold,
    logger: model.logger,
  });
  side.setVersions(model.versions);
  side.setSupportAuthenticationProtocol(model.supportAuthenticationProtocol);
  return {
    open: () => side.connect(),
    send: (request) => side.send(request),
    close: () => side.disconnect(),
  };
}
