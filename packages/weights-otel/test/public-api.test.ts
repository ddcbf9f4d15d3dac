import { join } from 'node:path';
import { expectPublicApi } from '@load-aware/test-support';

// What users can import from the package root is a promise: it changes only on purpose.
test('the public API is the one in public-api.md', () => {
  expectPublicApi(
    require.resolve('@load-aware/weights-otel/package.json').replace(/package\.json$/, 'dist/index.d.ts'),
    join(__dirname, '..', 'public-api.md'),
  );
});
