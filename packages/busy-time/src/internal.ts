/**
 * @packageDocumentation
 * Internals of `@load-aware/busy-time` for the tests and benchmarks: option resolution, the
 * recorder with injectable clocks, the pure blend rule, the metric names. **Unstable**: anything
 * here may change in any release. Users import from the package root.
 */
export * from './index.js';
export { createRecorderWithClocks, divide } from './busy-time-recorder.js';
export { blendWeights, type BlendOutcome } from './blend-weight-source.js';
export { systemClocks, type Clocks, type SecondsClock } from './clocks.js';
export { BUSY_SECONDS_METRIC, MESSAGES_METRIC } from './metrics.js';
export {
  resolveRecorderOptions,
  resolveBlendOptions,
  type ResolvedBusyTimeRecorderOptions,
  type ResolvedBlendWeightSourceOptions,
} from './options.js';
