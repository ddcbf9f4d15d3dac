import { packageName } from '@load-aware/weights-offset-rate';

describe('@load-aware/weights-offset-rate skeleton', () => {
  it('is importable by its own package name', () => {
    expect(packageName).toBe('@load-aware/weights-offset-rate');
  });
});
