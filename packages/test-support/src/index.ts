/**
 * @packageDocumentation
 * One home for what the unit tests and benchmarks of every load-aware package share: a logger
 * that records, a clock that only moves when told to, stand-ins for the few KafkaJS calls the
 * packages make, the public-API report that locks each package's surface, and the seeded
 * scenarios, timing and child-process plumbing of the benchmarks. Private: never
 * published, never imported by package sources.
 */
export { recordingLogger, type LogRecord, type RecordingLogger } from './recording-logger.js';
export { FakeClock, EPOCH_MS, flush, manualClock } from './clock.js';
export {
  fakeCluster,
  unconnectedClusterShape,
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
export {
  measure,
  measureAllocation,
  DEFAULT_MEASURE_OPTIONS,
  type Measurement,
  type MeasureOptions,
  type Allocation,
} from './bench-measure.js';
export { buildScenario, scenarioPartitions, SCENARIO_IDS, type Scenario } from './bench-scenarios.js';
export { runBenchChild, replyToBenchParent, benchCaseArg, benchHeading } from './bench-child.js';
export { typeScriptFilesUnder } from './source-files.js';
