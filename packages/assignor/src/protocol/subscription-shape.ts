/**
 * A cheap look at a consumer-protocol subscription before KafkaJS decodes it. KafkaJS's decoder
 * trusts the array count it reads and moves backwards on a negative string length, so ten bytes
 * of another member's garbage (a count of 33 million, then a negative length) kept a leader's
 * `assign()` busy for most of a second per decode, past any time budget. The layout is fixed
 * (version int16, topic count int32, then that many int16-length strings), so checking it costs
 * one pass over the bytes.
 */

/**
 * Why `metadata` cannot be a subscription's version and topic list, or undefined when its topic
 * list lies within the buffer: a count of -1 (no list) or a count no larger than the bytes left
 * allow, each topic a non-null string that ends inside the buffer.
 */
export function subscriptionShapeProblem(metadata: Buffer): string | undefined {
  const VERSION = 2;
  const COUNT = 4;
  const LENGTH = 2;
  if (metadata.length < VERSION + COUNT) return `${String(metadata.length)} bytes: too short for a subscription`;
  const count = metadata.readInt32BE(VERSION);
  if (count === -1) return undefined;
  let offset = VERSION + COUNT;
  // Each topic takes at least its two length bytes: a count above that is a lie, checked up front.
  if (count < 0 || count > (metadata.length - offset) / LENGTH) {
    return `topic count ${String(count)} does not fit in ${String(metadata.length)} bytes`;
  }
  for (let i = 0; i < count; i++) {
    if (offset + LENGTH > metadata.length) return `topic ${String(i)} starts past the end`;
    const length = metadata.readInt16BE(offset);
    offset += LENGTH;
    if (length < 0) return `topic ${String(i)} has length ${String(length)}`;
    if (offset + length > metadata.length) return `topic ${String(i)} ends past the end`;
    offset += length;
  }
  return undefined;
}
