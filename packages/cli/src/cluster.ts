/**
 * The CLI's only I/O with Kafka: describe the group, list its partitions, read its lag, and ask
 * the weight source. Everything is read-only, and every call is time-boxed by `--timeout` so an
 * unreachable broker gives an error, not a hang.
 */
import { readFile } from 'node:fs/promises';
import { Kafka, logLevel, type Admin, type KafkaConfig, type SASLOptions } from 'kafkajs';
import { withReplicaRacks } from './kafkajs/replica-racks.js';
import { errorCodeOf, errorMessageOf, withTimeout, type TopicPartition } from '@load-aware/assignor/internal';
import { observeGroup } from '@load-aware/trigger/internal';
import type { CliOptions } from './args.js';
import { CliError } from './errors.js';
import { partitionLags } from './lag.js';
import { checkGroup, type GroupSnapshot, type MemberClient } from './report.js';
import { readWeights, type ReadHooks } from './weights.js';

/** A snapshot and the description of its weights. */
export interface ClusterRead {
  readonly snapshot: GroupSnapshot;
  readonly weightsLabel: string;
}

/**
 * KafkaJS configuration from the options: bounded connection and requests, few retries, silent.
 *
 * @param trustedCa - the `--ssl-ca` file's content, read by the caller.
 */
export function kafkaConfig(options: CliOptions, trustedCa?: string): KafkaConfig {
  return {
    clientId: options.clientId,
    brokers: [...options.brokers],
    ssl: trustedCa === undefined ? options.ssl : { ca: [trustedCa] },
    ...(options.sasl === undefined ? {} : { sasl: options.sasl as SASLOptions }),
    connectionTimeout: options.timeoutMs,
    authenticationTimeout: options.timeoutMs,
    requestTimeout: options.timeoutMs,
    // A CLI answers or says why, quickly: the overall --timeout bounds every step anyway.
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: options.timeoutMs },
    logLevel: logLevel.NOTHING,
  };
}

/**
 * Reads everything one report needs.
 *
 * @throws {@link CliError} for an unreachable broker, an unknown, dead, empty or rebalancing group.
 */
export async function readCluster(options: CliOptions, hooks: ReadHooks): Promise<ClusterRead> {
  const kafka = new Kafka(kafkaConfig(options, await readTrustedCa(options.sslCa)));
  const admin = kafka.admin();
  // `step` names the step for --verbose; `failure` starts the timeout's message.
  const bounded = async <T>(step: string, work: Promise<T>, failure = step): Promise<T> => {
    const startedAt = performance.now();
    const result = await withTimeout(
      work,
      options.timeoutMs,
      () => new CliError(`${failure}: no answer within ${seconds(options.timeoutMs)}`),
    );
    hooks.step(step, performance.now() - startedAt);
    return result;
  };
  try {
    await bounded('connect', admin.connect(), `cannot reach ${options.brokers.join(',')}`).catch((err: unknown) => {
      if (err instanceof CliError) throw err;
      throw new CliError(`cannot reach ${options.brokers.join(',')}: ${errorMessageOf(err)}`, { cause: err });
    });
    const { groups } = await bounded('describe group', admin.describeGroups([options.groupId]));
    const description = groups[0];
    if (description === undefined) throw new CliError(`group '${options.groupId}' was not described`);
    const group = observeGroup(description);
    checkGroup(group);
    const clients = new Map<string, MemberClient>(
      description.members.map((m) => [m.memberId, { clientId: m.clientId, clientHost: m.clientHost }]),
    );

    const topics = [...new Set(group.members.flatMap((m) => [...m.topics, ...m.assigned.map((p) => p.topic)]))].sort();
    const listed = await bounded('list partitions', listPartitions(admin, topics));
    const { missingTopics } = listed;
    const partitions = await bounded('read replica racks', withReplicaRacks(kafka, listed.partitions));
    const present = topics.filter((t) => !missingTopics.includes(t));
    const lags = await bounded('read offsets', readLags(admin, options.groupId, present));
    const weighingStartedAt = performance.now();
    const { weights, label } = await readWeights(kafka, options, partitions, hooks.progress).catch((err: unknown) => {
      if (err instanceof CliError) throw err;
      throw new CliError(`weights (${options.weights.kind}): ${errorMessageOf(err)}`, { cause: err });
    });
    hooks.step('weigh partitions', performance.now() - weighingStartedAt);
    return { snapshot: { group, clients, partitions, weights, lags, missingTopics }, weightsLabel: label };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Partitions of the topics that exist, and the topics that do not: a member may still subscribe
 * to a deleted topic, and asking for its metadata would fail the whole read.
 */
async function listPartitions(
  admin: Admin,
  topics: ReadonlyArray<string>,
): Promise<{ partitions: TopicPartition[]; missingTopics: string[] }> {
  if (topics.length === 0) return { partitions: [], missingTopics: [] };
  const existing = new Set(await admin.listTopics());
  const present = topics.filter((t) => existing.has(t));
  const missingTopics = topics.filter((t) => !existing.has(t));
  if (present.length === 0) return { partitions: [], missingTopics };
  const metadata = await admin.fetchTopicMetadata({ topics: present });
  const partitions = metadata.topics.flatMap((t) =>
    t.partitions.map((p) => ({ topic: t.name, partition: p.partitionId })),
  );
  return { partitions, missingTopics };
}

async function readLags(admin: Admin, groupId: string, topics: ReadonlyArray<string>): Promise<Map<string, number>> {
  if (topics.length === 0) return new Map();
  const [committed, ends] = await Promise.all([
    admin.fetchOffsets({ groupId, topics: [...topics] }),
    Promise.all(topics.map(async (topic) => ({ topic, partitions: await admin.fetchTopicOffsets(topic) }))),
  ]);
  return partitionLags(committed, ends);
}

async function readTrustedCa(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  const pem = await readFile(path, 'utf8').catch((err: unknown) => {
    // The code alone: Node's message repeats the path.
    throw new CliError(`--ssl-ca: cannot read ${path} (${errorCodeOf(err) ?? errorMessageOf(err)})`, { cause: err });
  });
  // A wrong file would otherwise surface later as a vague TLS failure against the broker.
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new CliError(`--ssl-ca: ${path} holds no PEM certificate`);
  return pem;
}

function seconds(ms: number): string {
  return `${String(ms / 1000)} s`;
}
