import { packageName } from '@load-aware/trigger';

describe('@load-aware/trigger skeleton', () => {
  it('is importable by its own package name', () => {
    expect(packageName).toBe('@load-aware/trigger');
  });
});
