/**
 * What the controller watches and acts through: the assignor's {@link TriggerTarget}, which both
 * adapters build (`assigner.triggerTarget(...)`), so this package depends on no client.
 */
import { z } from 'zod';
import { isWeightSource, type TriggerTarget } from '@load-aware/assignor/internal';

export type { MembershipEvent, TriggerAssigner, TriggerTarget } from '@load-aware/assignor/internal';

function hasMethods(value: unknown, names: ReadonlyArray<string>): boolean {
  if (typeof value !== 'object' && typeof value !== 'function') return false;
  if (value === null) return false;
  const v = value as Record<string, unknown>;
  return names.every((n) => typeof v[n] === 'function');
}

/** The zod check of a {@link TriggerTarget}: what `createTriggerController({ target })` accepts. */
export const targetSchema = z.custom<TriggerTarget>(
  (t) =>
    hasMethods(t, ['describeGroup', 'onMembership']) &&
    hasMethods((t as { assigner?: unknown }).assigner, ['bumpEpoch', 'startRebalance']) &&
    isWeightSource((t as { assigner: { weights?: unknown } }).assigner.weights),
  {
    message:
      'expected a TriggerTarget: { assigner: { weights, bumpEpoch, startRebalance, ... }, describeGroup(), onMembership() }',
  },
);
