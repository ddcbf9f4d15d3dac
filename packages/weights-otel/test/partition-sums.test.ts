import { partitionOf } from '@load-aware/weights-otel/internal';

describe('partitionOf', () => {
  it.each([
    ['0', 0],
    ['12', 12],
    [7, 7],
    ['2147483647', 2_147_483_647],
  ])('reads %j as partition %d', (value, expected) => {
    expect(partitionOf(value)).toBe(expected);
  });

  it.each(['-1', '1.5', '', ' 1', '0x1', '2147483648', -1, 1.5, Number.NaN, null, undefined, true])(
    'refuses %j',
    (value) => {
      expect(partitionOf(value)).toBeUndefined();
    },
  );
});
