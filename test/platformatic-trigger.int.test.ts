import { setTimeout as sleep } from 'node:timers/promises';
import { uniqueName } from './support';
import { waitForStableGroup, type ObservedGroup } from './support/group';
import { usePlatformaticFleet, type PlatformaticInstance } from './support/platformatic-fleet';

/**
 * `@load-aware/trigger` on platformatic consumers (issue 29, item 4): every member runs the
 * controller through `assigner.triggerTarget(consumer, admin)`; one is elected coordinator, it
 * judges the group with the assigner's weights and, when the load drifts, forces one rebalance
 * through platformatic's own `joinGroup()`, in eager and in cooperative mode. Each instance is a
 * process of its own (platformatic is ESM only and needs Node >= 22.22 or >= 24.6; skipped,
 * visibly, on Node 20).
 */

const fleet = usePlatformaticFleet('platformatic-trigger');
const { shared, describeOnSupportedNode, reason } = fleet;
type Instance = PlatformaticInstance;

const CHECK_INTERVAL_MS = 1000;

const startInstance = (spec: Parameters<typeof fleet.start>[0]): Instance => fleet.start(spec);
const ready = (i: Instance) => fleet.ready(i);
const logsOf = (i: Instance, prefix: string) => i.events.filter((e) => e.event === 'log' && e.msg.startsWith(prefix));
const fires = (instances: ReadonlyArray<Instance>) => instances.flatMap((i) => logsOf(i, 'rebalance initiated')).length;

/** Busiest member's load in the broker's view of the group. */
function busiest(group: ObservedGroup, weights: Record<string, number>): number {
  return Math.max(...group.members.map((m) => m.assigned.reduce((s, p) => s + (weights[p] ?? 0), 0)));
}

describeOnSupportedNode(`@load-aware/trigger on platformatic consumers${reason}`, () => {
  it.each(['eager', 'cooperative'] as const)(
    'elects one coordinator and, when the load drifts, forces exactly one rebalance that restores the balance (%s)',
    async (mode) => {
      const partitions = 6;
      const topic = await shared!.createTopic(partitions);
      const groupId = uniqueName(`group-trigger-${mode}`);
      const even = Object.fromEntries(Array.from({ length: partitions }, (_, p) => [`${topic}:${String(p)}`, 100]));
      const instances = ['trig-a', 'trig-b', 'trig-c'].map((instanceId) =>
        startInstance({
          groupId,
          topic,
          instanceId,
          members: 1,
          weights: even,
          mode,
          trigger: { checkIntervalMs: CHECK_INTERVAL_MS },
        }),
      );
      for (const i of instances) await ready(i);
      const before = await waitForStableGroup(shared!.admin, groupId, 3, partitions, 90_000);
      expect(before.protocol).toBe(mode === 'cooperative' ? 'cooperative-sticky' : 'LoadAwareAssigner');

      // Election: one coordinator among the three, and balanced checks fire nothing.
      await sleep(4 * CHECK_INTERVAL_MS);
      const coordinators = instances.filter((i) => logsOf(i, 'this member is now the trigger coordinator').length > 0);
      expect(coordinators).toHaveLength(1);
      expect(fires(instances)).toBe(0);

      // Drift: one member's two partitions triple. Busiest now 600 where 400 is the best any
      // placement of 300, 300, 100 × 4 on three members can do (ratio 1.5, threshold 1.1).
      const hot = before.members.find((m) => m.assigned.length === 2)!;
      const drifted = { ...even, ...Object.fromEntries(hot.assigned.map((p) => [p, 300])) };
      expect(busiest(before, drifted)).toBe(600);
      const drift = Date.now();
      for (const i of instances) i.send(`weights ${JSON.stringify(drifted)}`);

      await Promise.race(instances.map((i) => i.waitFor(() => fires(instances) > 0, 'rebalance initiated', 30_000)));
      const firedAfterMs = Date.now() - drift;
      let after: ObservedGroup | undefined;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        after = await waitForStableGroup(shared!.admin, groupId, 3, partitions, 60_000);
        if (busiest(after, drifted) < 600) break;
        await sleep(500);
      }
      const held = after!.members.flatMap((m) => m.assigned).sort();
      expect(held).toEqual(Object.keys(even).sort());
      // A few more checks: the group is balanced now, so no second fire.
      await sleep(5 * CHECK_INTERVAL_MS);
      process.stdout.write(
        `platformatic trigger (${mode}): fired ${String(firedAfterMs)} ms after the drift, fires ${String(fires(instances))}, ` +
          `busiest ${String(busiest(before, drifted))} -> ${String(busiest(after!, drifted))} (best 400), ` +
          `protocol ${after!.protocol}\n`,
      );
      expect(fires(instances)).toBe(1);
      expect(busiest(after!, drifted)).toBeLessThanOrEqual(400);
      expect(after!.protocol).toBe(before.protocol);
    },
  );
});
