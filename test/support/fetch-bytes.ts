import type { Consumer } from 'kafkajs';

/** Fetch response bytes one consumer received, per broker address (`host:port`). */
export interface FetchBytesMeter {
  /** Bytes per broker address since the last `reset()`. */
  snapshot(): ReadonlyMap<string, number>;
  /** Forgets everything counted so far: the measurement window starts now. */
  reset(): void;
  /** Stops listening. */
  stop(): void;
}

/**
 * Counts what `consumer` actually fetched and from where: KafkaJS emits a `consumer.network.request`
 * event for every completed request with the broker it went to and the response size on the
 * wire, so Fetch responses tell which replica each member reads from, after follower fetching
 * (KIP-392) redirected it, and how many bytes crossed. Headers and empty polls count too, as they
 * do on a cloud bill.
 */
export function meterFetchBytes(consumer: Consumer): FetchBytesMeter {
  let bytes = new Map<string, number>();
  const remove = consumer.on(consumer.events.REQUEST, ({ payload }) => {
    if (payload.apiName !== 'Fetch') return;
    bytes.set(payload.broker, (bytes.get(payload.broker) ?? 0) + payload.size);
  });
  return {
    snapshot: () => new Map(bytes),
    reset: () => {
      bytes = new Map();
    },
    stop: remove,
  };
}
