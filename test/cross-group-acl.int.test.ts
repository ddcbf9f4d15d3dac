import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  Kafka,
  logLevel,
  PartitionAssigners,
  ResourcePatternTypes,
  type Consumer,
} from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { recordingLogger } from '@load-aware/test-support';
import { createTopicsWithLeaders, uniqueName } from './support';
import { waitForStableGroup } from './support/group';
import { startGroupConsumer } from './support/group-consumer';
import { startSecureKafka, type SecureKafka } from './support/reliability-secure-kafka';

/**
 * Cross-group balancing when a sibling group cannot be read: a real broker enforcing ACLs, where
 * the `orders` consumers' user may use its own group but not describe the sibling `payments`. The
 * leader must still hand out every partition, warn that it balances without the sibling's load,
 * and never fall back or fail.
 */

const PASSWORD = 'xgroup-acl-pw-7f3b';
const ORDERS_PARTITIONS = 6;

jest.setTimeout(180_000);

let secure: SecureKafka | undefined;
const consumers: Consumer[] = [];

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.disconnect().catch(() => undefined)));
  await secure?.stop();
}, 120_000);

it('balances without a sibling its user is not authorized to describe, with a WARN, never failing', async () => {
  secure = await startSecureKafka({ app: PASSWORD }, { authorizer: true });
  const orders = uniqueName('xacl-orders');
  const payments = uniqueName('xacl-payments');
  const ordersTopic = uniqueName('xacl-orders-topic');
  const paymentsTopic = uniqueName('xacl-payments-topic');
  const plain = new Kafka({ clientId: 'xacl-admin', brokers: secure.cluster.brokers, logLevel: logLevel.NOTHING });
  const admin = plain.admin();
  await admin.connect();
  try {
    await createTopicsWithLeaders(admin, [
      { topic: ordersTopic, numPartitions: ORDERS_PARTITIONS, replicationFactor: 1 },
      { topic: paymentsTopic, numPartitions: 3, replicationFactor: 1 },
    ]);
    // The app user may do anything with every topic and with its own group, nothing with payments.
    const allow = (resourceType: AclResourceTypes, resourceName: string) => ({
      resourceType,
      resourceName,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      principal: 'User:app',
      host: '*',
      operation: AclOperationTypes.ALL,
      permissionType: AclPermissionTypes.ALLOW,
    });
    await admin.createAcls({ acl: [allow(AclResourceTypes.TOPIC, '*'), allow(AclResourceTypes.GROUP, orders)] });

    // The sibling runs as a super user, so it is Stable and busy: only the ACL keeps it unread.
    await startGroupConsumer(plain, {
      groupId: payments,
      topic: paymentsTopic,
      partitionAssigners: [LoadAwareAssigner({ instanceId: 'pod-a' }), PartitionAssigners.roundRobin],
      created: (c) => consumers.push(c),
    });
    await waitForStableGroup(admin, payments, 1, 3);

    const logger = recordingLogger();
    const app = new Kafka({
      clientId: 'xacl-app',
      brokers: secure.secureBrokers,
      ssl: { ca: [secure.ca], servername: secure.servername },
      sasl: { mechanism: 'plain', username: 'app', password: PASSWORD },
      logLevel: logLevel.NOTHING,
    });
    for (const instanceId of ['pod-a', 'pod-b']) {
      const assigner = LoadAwareAssigner({ instanceId, logger, crossGroup: { groups: [orders, payments] } });
      await startGroupConsumer(app, {
        groupId: orders,
        topic: ordersTopic,
        partitionAssigners: [assigner, PartitionAssigners.roundRobin],
        created: (c) => consumers.push(c),
      });
    }
    const group = await waitForStableGroup(admin, orders, 2, ORDERS_PARTITIONS);

    // Every partition exactly once, by the load-aware assignor (not its round-robin fallback).
    const held = group.members.flatMap((m) => m.assigned);
    expect(new Set(held).size).toBe(ORDERS_PARTITIONS);
    expect(group.protocol).toBe('LoadAwareAssigner');
    const results = logger.records.filter((r) => r.fields['result'] !== undefined).map((r) => r.fields['result']);
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r === 'load_aware')).toBe(true);
    const leftOut = logger.records.filter((r) => r.level === 'warn' && r.fields['status'] === 'left_out');
    expect(leftOut.length).toBeGreaterThan(0);
    expect(leftOut[0]!.fields['siblingGroupId']).toBe(payments);
    // KafkaJS reports the refused FindCoordinator without its cause, as a coordinator not found.
    expect(leftOut[0]!.message).toMatch(
      /cannot be read: (Failed to find group coordinator|.*[Aa]uthoriz.*) and has no recent Stable reading; balancing without its load$/,
    );
    // The refusal is answered at once: it does not eat the assignment's time budget.
    const durations = logger.records.flatMap((r) =>
      typeof r.fields['durationMs'] === 'number' ? [r.fields['durationMs']] : [],
    );
    expect(Math.max(...durations)).toBeLessThan(5000);
    process.stdout.write(`cross-group ACL: ${leftOut[0]!.message}; assignments took ${durations.join(', ')} ms\n`);
  } finally {
    await admin.disconnect();
  }
});
