// Lint: typescript-eslint's strict type-checked rules everywhere, plus the purity fence around
// the balancing core (no I/O, clock, randomness or client libraries), which keeps balance()
// deterministic and cheap to test.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The core's import fence, for a file whose way out of `core/` is `up`: no client library or
 * Node API, and nothing of the assignor outside the core but its error catalogue.
 */
function corePatterns(up) {
  return [
    {
      group: ['node:*', 'kafkajs', 'pino', 'prom-client', 'axios', 'zod'],
      message: 'The core is pure: no I/O or client libraries.',
    },
    {
      group: [`${up}*`, `!${up}errors`, `!${up}core`],
      message: 'The core imports nothing of the assignor outside core/ but errors/.',
    },
  ];
}

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/.build/**', 'coverage/**', 'out/**', 'jest.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // noUncheckedIndexedAccess types every typed-array read as possibly undefined; the hot
      // loops index within their own bounds, where `!` is the honest, allocation-free answer.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['packages/assignor/src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: corePatterns('../') }],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: 'The core has no clock.' },
        { name: 'performance', message: 'The core has no clock.' },
        { name: 'process', message: 'The core does no I/O.' },
        { name: 'setTimeout', message: 'The core has no timers.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'The core is deterministic.' },
      ],
    },
  },
  {
    // One folder deeper, '../' stays inside the core and '../../' is the way out.
    files: ['packages/assignor/src/core/*/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: corePatterns('../../') }] },
  },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    // Plain CommonJS build scripts run by node directly.
    files: ['scripts/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
