#!/usr/bin/env node
/** The `load-aware` executable: runs the CLI on this process's argv and streams. */
import { runCli } from './main.js';
import { printWarningsExceptKafkaJsTimeouts } from './warnings.js';

printWarningsExceptKafkaJsTimeouts();
void runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    // Exit explicitly: a KafkaJS socket still closing, or a time-boxed request that never
    // answered, must not keep the command from returning.
    process.exitCode = code;
    process.stdout.write('', () => process.exit(code));
  },
);
