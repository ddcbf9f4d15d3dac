import { partitionLags } from '@load-aware/cli/internal';

test('lag is the end offset minus the commit; partitions without a commit have none', () => {
  const lags = partitionLags(
    [
      {
        topic: 't',
        partitions: [
          { partition: 0, offset: '40' },
          { partition: 1, offset: '-1' },
          { partition: 2, offset: '9' },
        ],
      },
    ],
    [
      {
        topic: 't',
        partitions: [
          { partition: 0, high: '100' },
          { partition: 1, high: '5' },
          { partition: 2, high: '7' },
        ],
      },
    ],
  );
  expect([...lags]).toEqual([
    ['t\u00000', 60],
    // A commit past the end (a truncated log) is no negative lag.
    ['t\u00002', 0],
  ]);
});
