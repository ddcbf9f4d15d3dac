// One jest run, two projects: fast unit tests of every package and the integration suite that
// needs a real Kafka broker (started once by its global setup). Tests import the packages by
// name, so they run against the built `dist/` output (`tsc -b` runs first) and exercise the
// `exports` maps exactly as users do.
/** @type {import('jest').Config['transform']} */
const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};
// Sources use NodeNext-style `./x.js` specifiers; map them back to the .ts files under test.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
const ignore = ['/node_modules/', '/dist/', '/\\.build/'];
// Integration files too heavy to share a 2-core machine (reliability-load: 10 000 partitions and
// 52 consumers; beside other files it ran past its 300 s limit), or whose measure is throughput
// that two busy lanes distort (racks: busiest ÷ ideal by fetched bytes, 1.02–1.03 alone, up to
// 1.12 beside the lanes as consumers fell behind their producers). scripts/test.sh runs the others
// several at a time with INTEGRATION_FILES=parallel, then these alone with INTEGRATION_FILES=alone;
// unset, the project has every file.
// Three more load the machine enough to push the CLI's timed inspections (5 s) past their bound
// when they share a lane with it (6.5 s, 7.2 s): kafka-tools-view starts a JVM for each of Kafka's
// own tool runs, platformatic-delivery runs five consumer processes at 480 msg/s, and
// reliability-at-least-once five more for 50 s beside a broker of its own.
// coordinator-move-rebalances starts a 3-node cluster (three JVMs) and stops the coordinator's
// node: beside two busy lanes the group once sat in CompletingRebalance past the failover wait and
// the starved cluster then timed out a CreateTopics (Kafka 4.4.0, both retries); alone it passes
// in 95 s.
const ALONE = [
  'reliability-load',
  'racks',
  'kafka-tools-view',
  'platformatic-delivery',
  'reliability-at-least-once',
  'coordinator-move-rebalances',
];
const integrationFiles = process.env['INTEGRATION_FILES'];

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      // examples/test: the pure parts of the demo and its benchmark.
      testMatch: ['<rootDir>/packages/*/test/**/*.test.ts', '<rootDir>/examples/test/**/*.test.ts'],
      testPathIgnorePatterns: ignore,
      modulePathIgnorePatterns: ['<rootDir>/.*/\\.build/'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      moduleNameMapper,
      testMatch:
        integrationFiles === 'alone'
          ? ALONE.map((name) => `<rootDir>/test/${name}.int.test.ts`)
          : ['<rootDir>/test/**/*.int.test.ts'],
      testPathIgnorePatterns:
        integrationFiles === 'parallel'
          ? [...ignore, ...ALONE.map((name) => `/test/${name}\\.int\\.test\\.ts$`)]
          : ignore,
      modulePathIgnorePatterns: ['<rootDir>/.*/\\.build/'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/jest-timeout.ts'],
    },
  ],
};
