import { packageName } from '@load-aware/weights-prometheus';

describe('@load-aware/weights-prometheus skeleton', () => {
  it('is importable by its own package name', () => {
    expect(packageName).toBe('@load-aware/weights-prometheus');
  });
});
