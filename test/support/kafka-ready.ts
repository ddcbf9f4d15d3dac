import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { Kafka, logLevel, type Admin } from 'kafkajs';

/** How long to keep probing and what makes waiting pointless. */
export interface ReadinessProbe {
  /** `host:port` bootstrap addresses to connect to. */
  readonly brokers: readonly string[];
  /** Give up after this long. */
  readonly timeoutMs: number;
  /** Returns why waiting is pointless (a JVM exited), or undefined while it is worth waiting. */
  readonly failure: () => string | undefined;
}

/**
 * Waits until the cluster can create and delete a topic with `replicationFactor` replicas: the
 * first moment a broker accepts connections it may still lack a controller, metadata, or (with
 * three nodes) registered peers, so only a real round trip through the controller proves it works.
 */
export async function waitForTopicRoundTrip(probe: ReadinessProbe, replicationFactor: number): Promise<void> {
  // Topics of failed attempts may or may not exist (a timed-out request can still succeed): each
  // gets one best-effort delete and is then forgotten, so it can never fail a later attempt.
  const leftovers: string[] = [];
  await retryUntilReady(probe, async (admin) => {
    for (const topic of leftovers.splice(0)) {
      await admin.deleteTopics({ topics: [topic], timeout: 5_000 }).catch(() => undefined);
    }
    const topic = `__load-aware-ready-${randomBytes(4).toString('hex')}`;
    leftovers.push(topic);
    await admin.createTopics({
      topics: [{ topic, numPartitions: 1, replicationFactor }],
      waitForLeaders: true,
      timeout: 5_000,
    });
    await admin.deleteTopics({ topics: [topic], timeout: 5_000 });
    leftovers.pop();
  });
}

/**
 * Waits until node `nodeId` is back in the cluster metadata served by `probe.brokers`: a broker is
 * listed only once it has caught up with the metadata log and been unfenced by the controller.
 */
export async function waitForBrokerRegistered(probe: ReadinessProbe, nodeId: number): Promise<void> {
  await retryUntilReady(probe, async (admin) => {
    const { brokers } = await admin.describeCluster();
    if (!brokers.some((broker) => broker.nodeId === nodeId)) {
      throw new Error(`node ${String(nodeId)} not yet in metadata (have ${brokers.map((b) => b.nodeId).join(',')})`);
    }
  });
}

async function retryUntilReady(probe: ReadinessProbe, attempt: (admin: Admin) => Promise<void>): Promise<void> {
  const deadline = Date.now() + probe.timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const failure = probe.failure();
    if (failure !== undefined) {
      throw new Error(failure, { cause: lastError });
    }
    // A fresh client each time: one that connected too early can keep stale metadata.
    const admin = new Kafka({
      clientId: 'load-aware-readiness',
      brokers: [...probe.brokers],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1_000,
      requestTimeout: 5_000,
      retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 1_000 },
    }).admin();
    try {
      await withTimeout(
        (async () => {
          await admin.connect();
          await attempt(admin);
        })(),
        Math.min(15_000, Math.max(1_000, deadline - Date.now())),
      );
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await sleep(250);
  }
  const waited = `${String(probe.timeoutMs)} ms`;
  throw new Error(
    `Kafka at ${probe.brokers.join(',')} not ready within ${waited}; last error: ${describe(lastError)}`,
    {
      cause: lastError,
    },
  );
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`attempt timed out after ${String(timeoutMs)} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    // If the timeout won, the abandoned attempt may still fail later; nobody is waiting for it.
    work.catch(() => undefined);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
