/**
 * @packageDocumentation
 * Placeholder entry point of `@load-aware/weights-offset-rate`; its implementation lands with its own issue.
 */

/** The package name, exported so the skeleton has a real entry point to build and import. */
export const packageName = '@load-aware/weights-offset-rate';
