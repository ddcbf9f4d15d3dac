import { Kafka, logLevel } from 'kafkajs';
import { kafkaBrokersFromEnv } from './index';
import { startFixtureProcess, type FixtureProcess } from './fixture-process';
import { platformaticNode } from './platformatic-node';
import { useSharedBrokerAdmin, type SharedBrokerAdmin } from './shared-broker';
import type { PlatformaticInstanceEvent, PlatformaticInstanceSpec } from '../fixtures/platformatic-instance';

/** One @platformatic/kafka instance process (`fixtures/platformatic-instance.ts`). */
export type PlatformaticInstance = FixtureProcess<PlatformaticInstanceEvent>;

/** What a test file of platformatic instances shares: see {@link usePlatformaticFleet}. */
export interface PlatformaticFleet {
  /** Whether this Node runs platformatic; `describe` or `describe.skip` to match. */
  readonly supported: boolean;
  /** The suffix of a skipped block's title, saying why. */
  readonly reason: string;
  readonly describeOnSupportedNode: jest.Describe;
  readonly brokers: string[];
  /** A KafkaJS client of the shared broker (producers, admin). */
  readonly kafka: Kafka;
  /** The shared broker's admin and topic factory; undefined where platformatic cannot run. */
  readonly shared: SharedBrokerAdmin | undefined;
  /** Starts an instance process; every one is stopped after each test. */
  start(spec: Omit<PlatformaticInstanceSpec, 'brokers' | 'lifetimeMs'>): PlatformaticInstance;
  /** Waits for an instance's `ready` line (every consumer consumes). */
  ready(instance: PlatformaticInstance): Promise<void>;
}

/**
 * The common start of a platformatic integration file: the Node check, a KafkaJS client of the
 * shared broker, its admin (topics deleted after the file) and instance processes stopped after
 * each test. Call it at the top level of the file; `name` prefixes its topics and client id.
 */
export function usePlatformaticFleet(name: string, lifetimeMs = 170_000): PlatformaticFleet {
  const { supported, reason } = platformaticNode();
  const brokers = supported ? kafkaBrokersFromEnv() : [];
  const kafka = new Kafka({
    clientId: `${name}-int`,
    brokers: supported ? brokers : ['127.0.0.1:1'],
    logLevel: logLevel.NOTHING,
  });
  const shared = supported ? useSharedBrokerAdmin(kafka, name, { deleteTopicsAfterAll: true }) : undefined;
  const running: PlatformaticInstance[] = [];
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map((p) => p.stop()));
  });
  return {
    supported,
    reason,
    describeOnSupportedNode: supported ? describe : describe.skip,
    brokers,
    kafka,
    shared,
    start(spec) {
      const child = startFixtureProcess<PlatformaticInstanceEvent>({
        fixture: 'platformatic-instance',
        spec: { ...spec, brokers, lifetimeMs },
        name: `platformatic ${spec.instanceId}`,
      });
      running.push(child);
      return child;
    },
    ready: (instance) => instance.waitFor((e) => e.some((x) => x.event === 'ready'), 'ready', 90_000),
  };
}
