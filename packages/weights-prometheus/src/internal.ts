/**
 * @packageDocumentation
 * Internals of `@load-aware/weights-prometheus` for the tests: option resolution, the query
 * template parser, topic-name rules, the response parsers and their limits. **Unstable**: anything
 * here may change in any release. Users import from the package root.
 */
export * from './index.js';
export { resolveOptions, type ResolvedPrometheusWeightSourceOptions } from './options.js';
export { parseQueryTemplate, TOPIC_PLACEHOLDER, type QueryTemplate, type ParsedTemplate } from './query-template.js';
export { escapeRegex, isLegalTopic, MAX_TOPIC_LENGTH } from './topics.js';
export { parseInstantVector, parseSampleValue, type InstantVector, type VectorSample } from './response.js';
export { MAX_EXCERPT_LENGTH } from './redaction.js';
export { MAX_RESPONSE_BYTES } from './instant-query.js';
export type { QueryResult } from './metrics.js';
export type { LookupResult } from './cache.js';
