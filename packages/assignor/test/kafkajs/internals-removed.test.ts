import { createRequire } from 'node:module';
import { Kafka, logLevel, PartitionAssigners } from 'kafkajs';
import { Registry } from 'prom-client';
import { isLoadAwareError, KafkaJsInternalMissingError, LoadAwareAssigner } from '@load-aware/assignor';
import {
  CLUSTER_INTERNALS,
  KAFKAJS_INTERNALS,
  KAFKAJS_INTERNAL_NAMES,
  MODULE_INTERNALS,
  findModuleInternals,
  missingClusterInternals,
  missingModuleInternals,
  type KafkaJsFeature,
  type KafkaJsInternal,
} from '@load-aware/assignor/internal';
import { errorThrownBy, recordingLogger } from '@load-aware/test-support';

/**
 * The KafkaJS seam against the real `kafkajs` module, with each internal it reaches removed or
 * reshaped in turn: the module's own exports replaced in Node's module cache, a consumer cluster's
 * field shadowed as KafkaJS creates it. No broker: KafkaJS creates a consumer without connecting.
 */

const kafkajsRequire = createRequire(require.resolve('kafkajs'));
const CODE = 'LOAD_AWARE_KAFKAJS_INTERNAL_MISSING';

/** Runs `body` with the KafkaJS module at `path` exporting `replacement`, then restores it. */
function withModuleExports<T>(path: string, replacement: (real: unknown) => unknown, body: () => T): T {
  const resolved = kafkajsRequire.resolve(path);
  kafkajsRequire(path);
  const entry = kafkajsRequire.cache[resolved]!;
  const real: unknown = entry.exports;
  entry.exports = replacement(real);
  try {
    return body();
  } finally {
    entry.exports = real;
  }
}

/** Runs `body` with `Broker.prototype`'s private send renamed, then restores it. */
function withoutBrokerSend<T>(body: () => T): T {
  const proto = (kafkajsRequire('./src/broker') as { prototype: Record<symbol, unknown> }).prototype;
  const symbol = Object.getOwnPropertySymbols(proto).find((s) => s.description === 'private:Broker:sendRequest')!;
  const send = proto[symbol];
  Reflect.deleteProperty(proto, symbol);
  try {
    return body();
  } finally {
    proto[symbol] = send;
  }
}

/** How each module internal is taken away: its module reshaped, or its symbol renamed. */
const REMOVE_MODULE_INTERNAL: Record<string, <T>(body: () => T) => T> = {
  requests: (body) =>
    withModuleExports(
      './src/protocol/requests',
      (real) => {
        const { requests, ...rest } = real as { requests: Record<string, unknown> };
        const { JoinGroup: _dropped, ...others } = requests;
        return { ...rest, requests: others };
      },
      body,
    ),
  'Broker#sendRequest': withoutBrokerSend,
  Connection: (body) => withModuleExports('./src/network/connection', () => ({}), body),
};

/** How each cluster internal is taken away from a consumer's cluster as KafkaJS creates it. */
const RESHAPE_CLUSTER: Record<string, (cluster: Record<string, unknown>) => void> = {
  'cluster.findGroupCoordinator': (c) => void (c['findGroupCoordinator'] = undefined),
  'cluster.connect': (c) => void (c['connect'] = undefined),
  'cluster.disconnect': (c) => void (c['disconnect'] = undefined),
  'cluster.refreshMetadataIfNecessary': (c) => void (c['refreshMetadataIfNecessary'] = undefined),
  'cluster.fetchTopicsOffset': (c) => void (c['fetchTopicsOffset'] = undefined),
  'cluster.addMultipleTargetTopics': (c) => void (c['addMultipleTargetTopics'] = undefined),
  // Reshaped rather than removed: an array where 2.2.4 keeps a Set.
  'cluster.targetTopics': (c) => void (c['targetTopics'] = []),
  'cluster.brokerPool.metadata': (c) => void (c['brokerPool'] = {}),
};

/** The option that turns on each feature a user can opt into. */
const OPT_IN: Partial<Record<KafkaJsFeature, Record<string, unknown>>> = {
  staticMembership: { staticMembership: true },
  racks: { rack: 'rack-a' },
  crossGroup: { crossGroup: { groups: ['orders', 'payments'] } },
};
const OPTION_NAME: Partial<Record<KafkaJsFeature, string>> = {
  staticMembership: 'staticMembership',
  racks: 'rack',
  crossGroup: 'crossGroup',
};

/** A KafkaJS client whose consumers' clusters get `reshape` applied as KafkaJS creates them. */
function kafkaReshaping(reshape?: (cluster: Record<string, unknown>) => void): Kafka {
  const kafka = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING });
  const holder = kafka as unknown as Record<symbol, (options: object) => Record<string, unknown>>;
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster')!;
  const create = holder[symbol]!;
  holder[symbol] = (options) => {
    const cluster = create(options);
    reshape?.(cluster);
    return cluster;
  };
  return kafka;
}

/** Creates one consumer of group `orders` with the assigner built from `options`. */
function createConsumer(kafka: Kafka, options: Record<string, unknown>) {
  const logger = recordingLogger();
  const registry = new Registry();
  const build = () => {
    const assigner = LoadAwareAssigner({ instanceId: 'seam-pod', logger, registry, ...options });
    return kafka.consumer({ groupId: 'orders', partitionAssigners: [assigner, PartitionAssigners.roundRobin] });
  };
  return { logger, registry, build };
}

/** The gauge's value per internal, as exported. */
async function missingGauge(registry: Registry): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric('load_aware_kafkajs_internal_missing');
  const values = metric === undefined ? [] : (await metric.get()).values;
  return Object.fromEntries(values.map((v) => [String(v.labels['internal']), v.value]));
}

/** Runs `body` with `internal` removed, whichever kind it is. */
function withInternalRemoved<T>(internal: KafkaJsInternal, body: (kafka: Kafka) => T): T {
  const removeModule = REMOVE_MODULE_INTERNAL[internal];
  if (removeModule !== undefined) return removeModule(() => body(kafkaReshaping()));
  return body(kafkaReshaping(RESHAPE_CLUSTER[internal]));
}

describe('the KafkaJS seam, with the real kafkajs module', () => {
  it('has a removal case for every internal of the catalogue, and the catalogue splits into module and cluster', () => {
    expect(Object.keys({ ...REMOVE_MODULE_INTERNAL, ...RESHAPE_CLUSTER }).sort()).toEqual(
      [...KAFKAJS_INTERNAL_NAMES].sort(),
    );
    expect([...MODULE_INTERNALS, ...CLUSTER_INTERNALS].sort()).toEqual([...KAFKAJS_INTERNAL_NAMES].sort());
  });

  it('finds every internal in KafkaJS 2.2.4 as it is: no ERROR, every gauge 0', async () => {
    expect(missingModuleInternals()).toEqual([]);
    const found = findModuleInternals();
    expect(typeof found.Connection).toBe('function');
    expect(typeof found.sendSymbol).toBe('symbol');
    let cluster: Record<string, unknown> | undefined;
    const kafka = kafkaReshaping((c) => void (cluster = c));
    const { logger, registry, build } = createConsumer(kafka, { staticMembership: true, rack: 'rack-a' });
    build();
    expect(missingClusterInternals(cluster!)).toEqual([]);
    expect(cluster!['targetTopics']).toBeInstanceOf(Set);
    expect(logger.messages('error')).toEqual([]);
    const gauge = await missingGauge(registry);
    expect(Object.keys(gauge).sort()).toEqual([...KAFKAJS_INTERNAL_NAMES].sort());
    expect(Object.values(gauge).every((v) => v === 0)).toBe(true);
  });

  describe.each(KAFKAJS_INTERNAL_NAMES)('without %s', (internal) => {
    const { needs } = KAFKAJS_INTERNALS[internal];

    it('creates a consumer whose options need nothing of it, with an ERROR naming it and what is lost, its code and gauge 1', async () => {
      const { logger, registry } = withInternalRemoved(internal, (kafka) => {
        const consumer = createConsumer(kafka, {});
        consumer.build();
        return consumer;
      });
      const errors = logger.records.filter((r) => r.level === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]!.fields).toMatchObject({ internal, code: CODE });
      expect(errors[0]!.fields['lost']).toHaveLength(needs.length);
      expect(errors[0]!.message).toContain(`no usable ${internal}`);
      const gauge = await missingGauge(registry);
      expect(gauge[internal]).toBe(1);
      expect(Object.entries(gauge).filter(([name, v]) => name !== internal && v !== 0)).toEqual([]);
    });

    const optIns = needs.filter((feature) => OPT_IN[feature] !== undefined);
    if (optIns.length > 0) {
      it.each(optIns)(
        'refuses to create a consumer with %s turned on, naming the internal and the option',
        (feature) => {
          const err = withInternalRemoved(internal, (kafka) =>
            errorThrownBy(() => createConsumer(kafka, OPT_IN[feature]!).build(), KafkaJsInternalMissingError),
          );
          expect(isLoadAwareError(err, CODE)).toBe(true);
          expect(err).toMatchObject({ internal, option: OPTION_NAME[feature], retriable: false });
        },
      );
    }
  });
});
