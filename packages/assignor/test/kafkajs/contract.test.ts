import { createRequire } from 'node:module';
import { Kafka, logLevel, type PartitionAssigner } from 'kafkajs';
import { loadWire, STATIC_MEMBERSHIP_VERSIONS, type GroupApi, type WireBroker } from '@load-aware/assignor/internal';

/**
 * The contract with the installed KafkaJS, checked without a broker: every KafkaJS internal the
 * assignor reaches, loaded from the real `kafkajs` module, with the request fields we write and the
 * response fields we read encoded and decoded by KafkaJS's own codecs. A KafkaJS that moves or
 * reshapes one of them fails here, in the unit suite, instead of as an integration time-out.
 */

const kafkajsRequire = createRequire(require.resolve('kafkajs'));
/** A module of the installed KafkaJS, typed by the caller. */
const load = (path: string): unknown => kafkajsRequire(path);

interface Encoded {
  buffer: Buffer;
}
interface EncoderLike {
  writeInt16(v: number): EncoderLike;
  writeInt32(v: number): EncoderLike;
  writeString(v: string | null): EncoderLike;
  writeBytes(v: Buffer): EncoderLike;
  writeArray(v: EncoderLike[]): EncoderLike;
  buffer: Buffer;
}
type EncoderClass = new () => EncoderLike;
type Lookup = (versions: Record<number, { minVersion: number; maxVersion: number }>) => WireBroker['lookupRequest'];
interface BuiltRequest {
  request: { apiKey: number; apiVersion: number; encode(): Promise<Encoded> };
  response: { decode(raw: Buffer): Promise<unknown>; parse(data: unknown): Promise<unknown> };
}

const apiKeys = load('./src/protocol/requests/apiKeys') as Record<GroupApi, number>;
const { lookup } = load('./src/protocol/requests') as { lookup: Lookup };
const Encoder = load('./src/protocol/encoder') as EncoderClass;

/** Versions a Kafka 3.9 / 4.x broker offers for the group APIs (higher than KafkaJS knows). */
const BROKER_MAX: Record<GroupApi, number> = { JoinGroup: 9, SyncGroup: 5, Heartbeat: 4, LeaveGroup: 5 };

/** A broker as KafkaJS's `Broker` is after connecting: negotiated versions and their lookup. */
function connectedBroker(): WireBroker {
  const versions = Object.fromEntries(
    (Object.keys(BROKER_MAX) as GroupApi[]).map((api) => [
      apiKeys[api],
      { minVersion: 0, maxVersion: BROKER_MAX[api] },
    ]),
  );
  return { versions, lookupRequest: lookup(versions) };
}

/** The fields each group call carries when the static member sends it (KafkaJS's own names). */
const FIELDS: Record<GroupApi, Record<string, unknown>> = {
  JoinGroup: {
    groupId: 'orders',
    sessionTimeout: 30_000,
    rebalanceTimeout: 60_000,
    memberId: '',
    protocolType: 'consumer',
    groupProtocols: [{ name: 'LoadAwareAssigner', metadata: Buffer.from('record') }],
  },
  SyncGroup: { groupId: 'orders', generationId: 3, memberId: 'm-1', groupAssignment: [] },
  Heartbeat: { groupId: 'orders', groupGenerationId: 3, memberId: 'm-1' },
  LeaveGroup: { groupId: 'orders', memberId: 'm-1' },
};

describe('the KafkaJS internals static membership sends through', () => {
  const wire = loadWire();

  it('is KafkaJS 2.2.x, the line the peer range admits', () => {
    const { version } = load('./package.json') as { version: string };
    expect(version).toMatch(/^2\.2\.\d+$/);
    expect(wire).toBeDefined();
  });

  it.each(Object.keys(STATIC_MEMBERSHIP_VERSIONS) as GroupApi[])(
    '%s: the version KafkaJS would send carries the group instance id, in bytes its own encoder writes',
    async (api) => {
      const broker = connectedBroker();
      const version = wire!.versionFor(broker, api);
      expect(version).toBeGreaterThanOrEqual(STATIC_MEMBERSHIP_VERSIONS[api]);
      const built = wire!.build(broker, api, { ...FIELDS[api], groupInstanceId: 'pod-a-0' }) as BuiltRequest;
      expect(built.request.apiKey).toBe(apiKeys[api]);
      expect(built.request.apiVersion).toBe(version);
      const bytes = (await built.request.encode()).buffer;
      expect(bytes.includes(Buffer.from('pod-a-0'))).toBe(true);
      expect(typeof built.response.decode).toBe('function');
      expect(typeof built.response.parse).toBe('function');
    },
  );

  it('JoinGroup: the answer fields the static member reads come back through KafkaJS decoding', async () => {
    const built = wire!.build(connectedBroker(), 'JoinGroup', {
      ...FIELDS.JoinGroup,
      groupInstanceId: 'pod-a-0',
    }) as BuiltRequest;
    const member = new Encoder().writeString('m-1').writeString('pod-a-0').writeBytes(Buffer.from('record'));
    const raw = new Encoder()
      .writeInt32(0) // throttle time
      .writeInt16(0) // no error
      .writeInt32(7) // generation
      .writeString('LoadAwareAssigner')
      .writeString('m-1') // leader
      .writeString('m-1') // member id
      .writeArray([member]).buffer;
    const answer = (await built.response.parse(await built.response.decode(raw))) as {
      memberId: string;
      generationId: number;
      leaderId: string;
      members: Array<{ memberId: string; groupInstanceId: string | null }>;
    };
    expect(answer).toMatchObject({ memberId: 'm-1', generationId: 7, leaderId: 'm-1' });
    expect(answer.members[0]).toMatchObject({ memberId: 'm-1', groupInstanceId: 'pod-a-0' });
  });

  it('JoinGroup: FENCED_INSTANCE_ID reaches the static member as an error whose type names it', async () => {
    const built = wire!.build(connectedBroker(), 'JoinGroup', {
      ...FIELDS.JoinGroup,
      groupInstanceId: 'x',
    }) as BuiltRequest;
    const { errorCodes } = load('./src/protocol/error') as { errorCodes: Array<{ type: string; code: number }> };
    const fenced = errorCodes.find((e) => e.type === 'FENCED_INSTANCE_ID')!.code;
    const raw = new Encoder()
      .writeInt32(0)
      .writeInt16(fenced)
      .writeInt32(-1)
      .writeString('')
      .writeString('')
      .writeString('')
      .writeArray([]).buffer;
    await expect(built.response.decode(raw).then((d) => built.response.parse(d))).rejects.toMatchObject({
      type: 'FENCED_INSTANCE_ID',
    });
  });

  it("opens a side connection copied from a real broker's connection pool, and the broker's group calls are where the view wraps them", () => {
    const Broker = load('./src/broker') as new (options: object) => WireBroker & Record<string, unknown>;
    const ConnectionPool = load('./src/network/connectionPool') as new (options: object) => object;
    const loggers = load('./src/loggers') as {
      createLogger: (options: object) => unknown;
      LEVELS: Record<string, number>;
    };
    const { createLogger, LEVELS } = loggers;
    const logger = createLogger({ level: LEVELS['NOTHING'], logCreator: () => () => undefined }) as {
      namespace(name: string): unknown;
    };
    const pool = new ConnectionPool({ host: '127.0.0.1', port: 1, clientId: 'contract', logger, requestTimeout: 1000 });
    const broker = new Broker({ connectionPool: pool, logger, nodeId: 0 });
    const side = wire!.sideConnection(broker);
    expect(side).toBeDefined();
    expect(typeof side!.open).toBe('function');
    for (const call of ['joinGroup', 'syncGroup', 'heartbeat', 'leaveGroup', 'findGroupCoordinator']) {
      expect(typeof broker[call]).toBe('function');
    }
  });
});

describe("the consumer's cluster, as KafkaJS hands it to a partition assigner", () => {
  /** The `cluster` a real KafkaJS consumer gives its assigner factories (no broker needed). */
  function consumerCluster(): Record<string, unknown> {
    let captured: Record<string, unknown> | undefined;
    const capture: PartitionAssigner = ({ cluster }) => {
      captured = cluster;
      return {
        name: 'capture',
        version: 0,
        protocol: () => ({ name: 'capture', metadata: Buffer.alloc(0) }),
        assign: () => Promise.resolve([]),
      };
    };
    const kafka = new Kafka({ clientId: 'contract', brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING });
    kafka.consumer({ groupId: 'contract', partitionAssigners: [capture] });
    return captured!;
  }

  it('has every method the assigner, its views and the rejoin path call or wrap', () => {
    const cluster = consumerCluster();
    for (const method of [
      'findGroupCoordinator',
      'connect',
      'disconnect',
      'refreshMetadata',
      'refreshMetadataIfNecessary',
      'fetchTopicsOffset',
      'findTopicPartitionMetadata',
      'findBroker',
      'metadata',
      'addMultipleTargetTopics',
    ]) {
      expect({ method, type: typeof cluster[method] }).toEqual({ method, type: 'function' });
    }
  });

  it('keeps its target topics in a Set, and broker metadata (with racks, once connected) in its broker pool', () => {
    const cluster = consumerCluster();
    expect(cluster['targetTopics']).toBeInstanceOf(Set);
    const pool = cluster['brokerPool'] as Record<string, unknown> | undefined;
    expect(pool).toBeDefined();
    expect('metadata' in pool!).toBe(true);
  });
});
