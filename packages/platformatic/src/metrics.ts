import { Counter, Gauge, type Registry } from 'prom-client';
import { getOrCreateMetric } from '@load-aware/assignor/portable';
import type { ForeignMember } from './subscriptions.js';

/**
 * The metrics only this adapter has, beside the assignor's own (`load_aware_assignments_total`
 * and the rest, recorded through the assignor's helpers under the same names). Label `group`
 * (and a closed `kind`) only: member ids would make the series unbounded.
 */
export interface PlatformaticMetrics {
  /** Records how old the weights the last assignment read were. */
  weightsAge(groupId: string, ageSeconds: number): void;
  /** Records a cooperative round: how many partitions were taken this round for the next. */
  withheld(groupId: string, partitions: number): void;
  /** Counts members that break cooperative mode's requirements, by kind. */
  foreign(groupId: string, members: ReadonlyArray<ForeignMember>): void;
}

const noopMetrics: PlatformaticMetrics = {
  weightsAge: () => undefined,
  withheld: () => undefined,
  foreign: () => undefined,
};

/** Creates (or reuses, when another assigner registered them there) the metrics on `registry`. */
export function createPlatformaticMetrics(registry: Registry | undefined): PlatformaticMetrics {
  if (registry === undefined) return noopMetrics;
  const age = getOrCreateMetric(
    registry,
    'load_aware_weights_age_seconds',
    (name) =>
      new Gauge({
        name,
        help: 'Age of the weight snapshot the last assignment read (platformatic: assignments are synchronous and read weights refreshed beforehand).',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const withheld = getOrCreateMetric(
    registry,
    'load_aware_cooperative_withheld_partitions',
    (name) =>
      new Gauge({
        name,
        help: 'Cooperative mode: partitions taken from their owner in the last assignment, to be given to their new owner in the follow-up round.',
        labelNames: ['group'],
        registers: [registry],
      }),
  );
  const foreign = getOrCreateMetric(
    registry,
    'load_aware_cooperative_foreign_members_total',
    (name) =>
      new Counter({
        name,
        help: 'Cooperative mode: members seen at an assignment that break its requirements, by kind (plain_cooperative_sticky: no load-aware record; eager_member: offers only the eager protocol, so the group runs eagerly).',
        labelNames: ['group', 'kind'],
        registers: [registry],
      }),
  );
  return {
    weightsAge(group, ageSeconds) {
      age.set({ group }, ageSeconds);
    },
    withheld(group, partitions) {
      withheld.set({ group }, partitions);
    },
    foreign(group, members) {
      for (const m of members) foreign.inc({ group, kind: m.kind });
    },
  };
}
