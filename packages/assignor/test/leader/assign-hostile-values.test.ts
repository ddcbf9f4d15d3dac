import type { PartitionAssigner } from 'kafkajs';
import { LoadAwareAssigner } from '@load-aware/assignor';
import { decodeAssignments, fakeCluster, member, recordingLogger } from '@load-aware/test-support';

/**
 * A member whose userData claims a capacity of 1e300 used to get every partition in silence, and
 * the log then read "skew: max instance load 0.00 vs ideal 0.00 (1.00x)".
 */
describe('assign() with a capacity out of bounds in userData', () => {
  async function assignWith(capacity: number) {
    const logger = recordingLogger();
    const factory: PartitionAssigner = LoadAwareAssigner({ logger });
    const assigner = factory({ cluster: fakeCluster({ t: 3000 }), groupId: 'g', logger: undefined as never });
    const members = [
      member('a1', ['t'], 'pod-a', capacity),
      member('b1', ['t'], 'pod-b'),
      member('c1', ['t'], 'pod-c'),
    ];
    const result = decodeAssignments(await assigner.assign({ members, topics: ['t'] }));
    return { result, logger };
  }

  it('bounds it, warns naming the instance and its members, and logs a readable skew', async () => {
    const { result, logger } = await assignWith(1e300);
    expect(result.get('b1')!.length).toBeGreaterThan(0);
    expect(result.get('c1')!.length).toBeGreaterThan(0);
    const warning = logger.records.find((r) => r.level === 'warn' && r.message.includes('reported capacity'));
    expect(warning?.message).toContain('instance pod-a reported capacity 1e+300; using 1000');
    expect(warning?.fields).toMatchObject({ instanceId: 'pod-a', memberIds: ['a1'], capacity: 1000 });
    const skew = logger.messages('info').find((m) => m.startsWith('skew:'));
    expect(skew).toBeDefined();
    expect(skew).not.toContain('0.00 vs ideal 0.00');
  });

  it('does not warn about capacities within the bounds', async () => {
    const { logger } = await assignWith(4);
    expect(logger.records.filter((r) => r.message.includes('reported capacity'))).toEqual([]);
  });
});

describe('assign() with weights whose sums would overflow', () => {
  it('balances them and logs a finite skew, saying the weights were scaled', async () => {
    const logger = recordingLogger();
    const weights = {
      getWeights: (ps: ReadonlyArray<{ topic: string; partition: number }>) =>
        Promise.resolve(ps.map((p) => ({ ...p, weight: Number.MAX_VALUE }))),
    };
    const assigner = LoadAwareAssigner({ logger, weights })({
      cluster: fakeCluster({ t: 12 }),
      groupId: 'g',
      logger: undefined as never,
    });
    const members = [member('a1', ['t'], 'pod-a'), member('b1', ['t'], 'pod-b')];
    const result = decodeAssignments(await assigner.assign({ members, topics: ['t'] }));
    expect(result.get('a1')!.length).toBe(6);
    expect(result.get('b1')!.length).toBe(6);
    const skew = logger.messages('info').find((m) => m.startsWith('skew:'));
    expect(skew).toMatch(/\(1\.00x\)$/);
    expect(logger.messages('info').some((m) => m.includes('weights scaled by 2^'))).toBe(true);
  });
});
