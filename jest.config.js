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
      testMatch: ['<rootDir>/test/**/*.int.test.ts'],
      testPathIgnorePatterns: ignore,
      modulePathIgnorePatterns: ['<rootDir>/.*/\\.build/'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/support/jest-timeout.ts'],
    },
  ],
};
