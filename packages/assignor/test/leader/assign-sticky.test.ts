import type { PartitionAssigner } from 'kafkajs';
import { Registry } from 'prom-client';
import {
  LoadAwareAssigner,
  resolveOptions,
  type LoadAwareAssignerOptions,
  type WeightSource,
} from '@load-aware/assignor/internal';
import { decodeAssignments, fakeCluster, member, recordingLogger } from '@load-aware/test-support';

/** Weights 1..n for partition 0..n-1 of `orders`, scaled by `factor(p)`. */
function weights(n: number, factor: (p: number) => number = () => 1): WeightSource {
  return {
    getWeights: (partitions) =>
      Promise.resolve(partitions.map((p) => ({ ...p, weight: (1 + ((p.partition * 7) % 13)) * factor(p.partition) }))),
  };
}

function changed(before: Map<string, string[]>, after: Map<string, string[]>): number {
  const owner = new Map<string, string>();
  for (const [m, ps] of after) for (const p of ps) owner.set(p, m);
  let n = 0;
  for (const [m, ps] of before) for (const p of ps) if (owner.get(p) !== m) n++;
  return n;
}

const members = [
  member('a1', ['orders'], 'A'),
  member('a2', ['orders'], 'A'),
  member('b1', ['orders'], 'B'),
  member('c1', ['orders'], 'C'),
];

function consumerOf(factory: PartitionAssigner, partitions = 40) {
  return factory({ cluster: fakeCluster({ orders: partitions }), groupId: 'g1', logger: undefined as never });
}

describe('LoadAwareAssigner stickiness', () => {
  it('hands out the same assignment again when members and weights are unchanged, and says so', async () => {
    const logger = recordingLogger();
    const registry = new Registry();
    const assigner = consumerOf(LoadAwareAssigner({ weights: weights(40), logger, registry }));
    const first = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    expect(logger.messages('info')).toContain('moves: no previous owner known for any partition');
    const second = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    expect(second).toEqual(first);
    expect(logger.messages('info')).toContain('moves: 0 of 40 previously owned partitions changed owner');
    const text = await registry.metrics();
    expect(text).toContain('load_aware_partitions_moved{group="g1"} 0');
    expect(text).toContain('load_aware_partitions_moved_total{group="g1"} 0');
    expect(text).toMatch(/load_aware_optimality_ratio\{group="g1"\} 1(\.0\d*)?\n/);
  });

  it('moves only a few partitions when weights drift by up to 10%', async () => {
    // Each call draws a different ±10% factor per partition.
    let call = 0;
    const source: WeightSource = {
      getWeights: (partitions) => {
        const seed = [37, 53, 71][call++ % 3]!;
        return weights(40, (p) => 0.9 + ((p * seed) % 21) / 100).getWeights(partitions);
      },
    };
    const assigner = consumerOf(LoadAwareAssigner({ weights: source }));
    let previous = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    for (let round = 0; round < 2; round++) {
      const next = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
      expect(changed(previous, next)).toBeLessThanOrEqual(2);
      previous = next;
    }
  });

  it('when a member leaves, moves mostly its own partitions', async () => {
    const logger = recordingLogger();
    const assigner = consumerOf(LoadAwareAssigner({ weights: weights(40), logger }));
    const first = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    const own = first.get('b1')!.length;
    const second = decodeAssignments(
      await assigner.assign({ members: members.filter((m) => m.memberId !== 'b1'), topics: ['orders'] }),
    );
    first.delete('b1');
    expect(changed(first, second)).toBeLessThan(own);
    expect(
      logger.messages('info').some((m) => m.includes(`(${String(own)} because their owner left or unsubscribed)`)),
    ).toBe(true);
  });

  it('shares its memory between the consumers of one assigner, so leadership moving inside the process keeps it', async () => {
    const factory = LoadAwareAssigner({ weights: weights(40) });
    const first = decodeAssignments(await consumerOf(factory).assign({ members, topics: ['orders'] }));
    const logger = recordingLogger();
    const other = LoadAwareAssigner({ weights: weights(40), logger });
    // Another process (another assigner) has no memory: it starts from scratch.
    await consumerOf(other).assign({ members, topics: ['orders'] });
    expect(logger.messages('info')).toContain('moves: no previous owner known for any partition');
    const again = decodeAssignments(await consumerOf(factory).assign({ members, topics: ['orders'] }));
    expect(again).toEqual(first);
  });

  it('respects maxMovesPerRebalance when the load shifts', async () => {
    let hot = -1;
    const source: WeightSource = {
      getWeights: (partitions) => weights(40, (p) => (p === hot ? 50 : 1)).getWeights(partitions),
    };
    const assigner = consumerOf(LoadAwareAssigner({ weights: source, maxMovesPerRebalance: 1, moveTolerance: 0 }));
    const first = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    hot = 3;
    const second = decodeAssignments(await assigner.assign({ members, topics: ['orders'] }));
    expect(changed(first, second)).toBeLessThanOrEqual(1);
  });

  it('validates the stickiness options', () => {
    expect(resolveOptions({}).moveTolerance).toBe(0.05);
    expect(resolveOptions({}).maxMovesPerRebalance).toBeUndefined();
    const bad: LoadAwareAssignerOptions[] = [
      { moveTolerance: -0.1 },
      { moveTolerance: 2 },
      { maxMovesPerRebalance: 1.5 },
    ];
    for (const options of bad) expect(() => resolveOptions(options)).toThrow(/moveTolerance|maxMovesPerRebalance/);
  });
});
