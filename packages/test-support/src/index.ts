/**
 * @packageDocumentation
 * One home for what the unit tests and benchmarks of every load-aware package share: a logger
 * that records, a clock that only moves when told to, stand-ins for the few KafkaJS calls the
 * packages make, and the public-API report that locks each package's surface. Private: never
 * published, never imported by package sources.
 */
export { recordingLogger, type LogRecord, type RecordingLogger } from './recording-logger.js';
export { FakeClock, EPOCH_MS, flush, manualClock } from './clock.js';
export {
  fakeCluster,
  silentKafkaLogger,
  partitionMetadata,
  metadataAnswer,
  member,
  memberWithUserData,
  decodeAssignments,
  decodeAssignedPartitions,
  allPartitions,
  type FakeCluster,
  type FakeClusterOptions,
} from './kafkajs-fakes.js';
export { publicApiReport, expectPublicApi } from './api-report.js';
export { errorThrownBy, rejectionOf, type ErrorClass } from './thrown.js';
export { createRandom, type Random } from './random.js';
export { markdownTable } from './markdown-table.js';
