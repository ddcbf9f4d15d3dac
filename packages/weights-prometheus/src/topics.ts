/** Longest topic name Kafka accepts. */
export const MAX_TOPIC_LENGTH = 249;

// Kafka's own rule (org.apache.kafka.common.internals.Topic): ASCII letters, digits, '.', '_', '-'.
const LEGAL_TOPIC = /^[a-zA-Z0-9._-]+$/;

/** True when Kafka would accept `topic` as a topic name (and "." / ".." are excluded as Kafka does). */
export function isLegalTopic(topic: string): boolean {
  return topic.length <= MAX_TOPIC_LENGTH && LEGAL_TOPIC.test(topic) && topic !== '.' && topic !== '..';
}

// Every RE2 metacharacter. Legal topics can only contain '.', but escaping the full set keeps
// this function correct on its own and costs nothing.
const RE2_META = /[\\.+*?()|[\]{}^$]/g;

/**
 * Escapes `text` so that an RE2 regular expression (what PromQL's `=~` uses) matches it literally.
 * Topic `orders.v2` becomes `orders\.v2`, which no longer matches `ordersXv2`.
 */
export function escapeRegex(text: string): string {
  return text.replace(RE2_META, '\\$&');
}
