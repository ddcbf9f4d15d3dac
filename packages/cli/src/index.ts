/**
 * @packageDocumentation
 * `@load-aware/cli`: the `load-aware` command (`inspect`, `plan`). The root exports the one entry
 * point for running it from another program; the report's pieces live in `./internal`.
 */
export { runCli, EXIT, type CliIo } from './main.js';
