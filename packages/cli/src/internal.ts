/**
 * @packageDocumentation
 * Internals of `@load-aware/cli` for its tests: argument parsing, the report, the renderers.
 * **Unstable**: anything here may change in any release.
 */
export * from './index.js';
export { parseCliArgs, UsageError, USAGE, SASL_PASSWORD_ENV, type CliOptions, type ParsedArgs } from './args.js';
export { buildReport, checkGroup, HOST_INSTANCE_PREFIX, type GroupReport, type GroupSnapshot } from './report.js';
export { partitionLags } from './lag.js';
export { renderJson, renderText } from './render.js';
export { kafkaConfig, readCluster } from './cluster.js';
export { CliError } from './errors.js';
export { runCliWith, type ClusterReader } from './main.js';
export type { Progress, ReadHooks } from './weights.js';
