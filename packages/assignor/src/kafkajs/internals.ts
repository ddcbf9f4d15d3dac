/**
 * The catalogue of KafkaJS 2.2.4 internals the assignor reaches, and the checks that find them.
 *
 * KafkaJS's public API has no static membership, no way to force a rebalance, no owned
 * partitions and no broker racks, so the assignor reaches past it. Every such reach is named here
 * once, with what it serves and what is lost without it; the modules of this folder are the only
 * ones that touch KafkaJS beyond its public API, and they take what they touch from here. The
 * assigner checks everything at construction (module internals) and when KafkaJS hands it a
 * consumer's cluster (cluster internals), so a KafkaJS that moved something fails at once and by
 * name, never as a slow silent loss of a feature (see {@link reportMissingInternals}).
 */
import { createRequire } from 'node:module';
import { ErrorCodes, KafkaJsInternalMissingError } from '../errors/errors.js';
import type { Logger } from '../base/logger.js';
import type { AssignorMetrics } from '../config/metrics.js';

/** A feature the assignor builds on KafkaJS internals, and what a consumer loses without it. */
export const KAFKAJS_FEATURES = {
  staticMembership: 'static membership: consumers would join as dynamic members',
  racks: 'rack-aware placement: brokers\u2019 racks are not known, so racks are ignored',
  crossGroup: 'cross-group balancing: the sibling groups cannot be described',
  stickiness: 'stickiness across leader changes: members cannot report the partitions they own',
  rejoin: 'rebalances on request (the trigger, late topic metadata): a consumer cannot be made to rejoin',
  backgroundFire: 'a trigger fire that does not pause the firing member: it falls back to a rejoin',
  triggerReads: 'the trigger\u2019s checks for partitions no member holds and for static members that are away',
  otherTopics: 'partitions of topics only other members subscribe to, and those learnt late',
} as const;

/** A feature of {@link KAFKAJS_FEATURES}. */
export type KafkaJsFeature = keyof typeof KAFKAJS_FEATURES;

/** One KafkaJS internal: what it is, and the features that need it. */
export interface KafkaJsInternalEntry {
  /** Where it lives in KafkaJS 2.2.4. */
  readonly what: string;
  /** The features lost without it. */
  readonly needs: ReadonlyArray<KafkaJsFeature>;
}

/** Every KafkaJS internal the assignor reaches, by the name logs, errors and metrics use. */
export const KAFKAJS_INTERNALS = {
  requests: {
    what: 'kafkajs/src/protocol/requests and apiKeys: JoinGroup v5, SyncGroup v3, Heartbeat v3, LeaveGroup v3',
    needs: ['staticMembership', 'backgroundFire'],
  },
  'Broker#sendRequest': {
    what: 'kafkajs/src/broker: the private send method (symbol "private:Broker:sendRequest")',
    needs: ['staticMembership'],
  },
  Connection: {
    what: 'kafkajs/src/network/connection, with a broker\u2019s connectionPool.pool to copy settings from',
    needs: ['backgroundFire'],
  },
  'cluster.findGroupCoordinator': {
    what: 'the consumer cluster\u2019s coordinator lookup, wrapped to see and shape group requests',
    needs: ['staticMembership', 'stickiness', 'crossGroup', 'triggerReads', 'backgroundFire'],
  },
  'cluster.connect': {
    what: 'the consumer cluster\u2019s connect, wrapped to reclaim a static place and reset rejoin state',
    needs: ['staticMembership', 'rejoin'],
  },
  'cluster.disconnect': {
    what: 'the consumer cluster\u2019s disconnect, wrapped to release a static place and forget ownership',
    needs: ['staticMembership', 'stickiness', 'rejoin'],
  },
  'cluster.refreshMetadataIfNecessary': {
    what: 'called first in every fetch-loop turn; wrapped to raise REBALANCE_IN_PROGRESS once on request',
    needs: ['rejoin'],
  },
  'cluster.fetchTopicsOffset': {
    what: 'the consumer cluster\u2019s ListOffsets, for the end offsets of an away member\u2019s partitions',
    needs: ['triggerReads'],
  },
  'cluster.addMultipleTargetTopics': {
    what: 'loads metadata of topics only other members subscribe to',
    needs: ['otherTopics'],
  },
  'cluster.targetTopics': {
    what: 'the Set of topics the cluster keeps metadata for; borrowed topics are taken out again',
    needs: ['otherTopics'],
  },
  'cluster.brokerPool.metadata': {
    what: 'the last metadata answer, whose broker list carries each broker\u2019s rack',
    needs: ['racks'],
  },
} as const satisfies Record<string, KafkaJsInternalEntry>;

/** The name of one internal of {@link KAFKAJS_INTERNALS}. */
export type KafkaJsInternal = keyof typeof KAFKAJS_INTERNALS;

/** Every internal, in catalogue order. */
export const KAFKAJS_INTERNAL_NAMES = Object.keys(KAFKAJS_INTERNALS) as KafkaJsInternal[];

/** The internals found in the KafkaJS module itself (not on a consumer's cluster). */
export const MODULE_INTERNALS: ReadonlyArray<KafkaJsInternal> = ['requests', 'Broker#sendRequest', 'Connection'];

/** The internals found on a consumer's cluster, checked when KafkaJS hands it to the assigner. */
export const CLUSTER_INTERNALS: ReadonlyArray<KafkaJsInternal> = KAFKAJS_INTERNAL_NAMES.filter(
  (name) => !MODULE_INTERNALS.includes(name),
);

/** Cluster methods the seam wraps or calls, each an internal of its own. */
const CLUSTER_METHODS = [
  'findGroupCoordinator',
  'connect',
  'disconnect',
  'refreshMetadataIfNecessary',
  'fetchTopicsOffset',
  'addMultipleTargetTopics',
] as const;

/** The KafkaJS module internals, as loaded from the copy of `kafkajs` the consumer runs. */
export interface ModuleInternals {
  /** Request definitions and API keys by request name (`JoinGroup`, ...), when found. */
  readonly requests?: { readonly definitions: Record<string, unknown>; readonly apiKeys: Record<string, unknown> };
  /** The symbol of `Broker`'s private send method, when found. */
  readonly sendSymbol?: symbol;
  /** KafkaJS's `Connection` class, when found. */
  readonly Connection?: new (options: object) => unknown;
}

/** Loads a module of the installed KafkaJS by its path inside the package. */
export type KafkaJsModuleLoader = (path: string) => unknown;

/** Loads from the copy of `kafkajs` this package resolves: the one the consumer runs. */
export const loadFromKafkaJs: KafkaJsModuleLoader = (path) => createRequire(require.resolve('kafkajs'))(path);

/**
 * Looks up the module internals, each on its own so that one that moved does not hide the
 * others. Never throws: what is not there is simply absent from the answer.
 */
export function findModuleInternals(load: KafkaJsModuleLoader = loadFromKafkaJs): ModuleInternals {
  const attempt = <T>(find: () => T | undefined): T | undefined => {
    try {
      return find();
    } catch {
      return undefined;
    }
  };
  const requests = attempt(() => {
    const definitions = (load('./src/protocol/requests') as { requests?: unknown }).requests;
    const apiKeys = load('./src/protocol/requests/apiKeys');
    if (typeof definitions !== 'object' || definitions === null) return undefined;
    if (typeof apiKeys !== 'object' || apiKeys === null) return undefined;
    return { definitions: definitions as Record<string, unknown>, apiKeys: apiKeys as Record<string, unknown> };
  });
  const sendSymbol = attempt(() => {
    const proto = (load('./src/broker') as { prototype?: object }).prototype;
    return proto && Object.getOwnPropertySymbols(proto).find((s) => s.description === 'private:Broker:sendRequest');
  });
  const Connection = attempt(() => {
    const found = load('./src/network/connection');
    return typeof found === 'function' ? (found as new (options: object) => unknown) : undefined;
  });
  return {
    ...(requests && { requests }),
    ...(sendSymbol && { sendSymbol }),
    ...(Connection && { Connection }),
  };
}

/**
 * The internals a consumer's cluster lacks, as KafkaJS hands it to the assigner factory (before
 * it connects: `brokerPool.metadata` is still null then, but the field is there).
 */
export function missingClusterInternals(cluster: object): KafkaJsInternal[] {
  const fields = cluster as Record<string, unknown>;
  const missing: KafkaJsInternal[] = [];
  for (const method of CLUSTER_METHODS) {
    if (typeof fields[method] !== 'function') missing.push(`cluster.${method}`);
  }
  if (!(fields['targetTopics'] instanceof Set)) missing.push('cluster.targetTopics');
  const pool = fields['brokerPool'];
  if (typeof pool !== 'object' || pool === null || !('metadata' in pool)) missing.push('cluster.brokerPool.metadata');
  return missing;
}

/** KafkaJS's `cluster.targetTopics`, or undefined when the cluster has no such Set. */
export function targetTopicsOf(cluster: object): Set<string> | undefined {
  const targets = (cluster as { targetTopics?: unknown }).targetTopics;
  return targets instanceof Set ? (targets as Set<string>) : undefined;
}

/** The brokers of KafkaJS's last metadata answer (`cluster.brokerPool.metadata.brokers`), if any. */
export function metadataBrokersOf(cluster: object): ReadonlyArray<unknown> | undefined {
  const pool = (cluster as { brokerPool?: { metadata?: { brokers?: unknown } | null } }).brokerPool;
  const brokers = pool?.metadata?.brokers;
  return Array.isArray(brokers) ? (brokers as unknown[]) : undefined;
}

/** Features the options turn on, each with the option that did: without them, refuse to start. */
export type OptedInFeatures = ReadonlyMap<KafkaJsFeature, string>;

/** Says what a check of KafkaJS internals found; one per assigner. */
export interface SeamReporter {
  /**
   * Records one check: the metric for every internal in `checked`, an ERROR the first time each
   * of `missing` is seen, then a {@link KafkaJsInternalMissingError} when one of them carries a
   * feature the options turned on.
   */
  report(checked: ReadonlyArray<KafkaJsInternal>, missing: ReadonlyArray<KafkaJsInternal>): void;
}

/**
 * A reporter that never lets a missing internal pass in silence: a feature lost is named in an
 * ERROR and a metric, and an opted-in feature stops the consumer from being created. `logger` is
 * asked for only when there is something to say.
 */
export function createSeamReporter(
  logger: () => Logger,
  metrics: AssignorMetrics,
  optedIn: OptedInFeatures,
): SeamReporter {
  const said = new Set<KafkaJsInternal>();
  return {
    report(checked, missing) {
      const absent = new Set(missing);
      for (const internal of checked) metrics.kafkaJsInternal(internal, absent.has(internal));
      let refusal: KafkaJsInternalMissingError | undefined;
      for (const internal of missing) {
        const { what, needs } = KAFKAJS_INTERNALS[internal];
        const refused = needs.find((feature) => optedIn.has(feature));
        if (refused !== undefined) {
          refusal ??= new KafkaJsInternalMissingError(internal, optedIn.get(refused)!, KAFKAJS_FEATURES[refused]);
        }
        if (said.has(internal)) continue;
        said.add(internal);
        const lost = needs.map((feature) => KAFKAJS_FEATURES[feature]);
        logger().error(
          { internal, what, lost, code: ErrorCodes.kafkaJsInternalMissing },
          `the installed KafkaJS has no usable ${internal}; lost: ${lost.join('; ')}. load-aware supports kafkajs ~2.2.4`,
        );
      }
      // After every ERROR: the operator sees all that is missing, not only the first refusal.
      if (refusal !== undefined) throw refusal;
    },
  };
}
