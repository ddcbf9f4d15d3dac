import type { InstanceEvent, InstanceSpec } from '../fixtures/consumer-instance';
import { startFixtureProcess } from './fixture-process';

/** A consumer instance running in its own process (see fixtures/consumer-instance.ts). */
export interface InstanceProcess {
  readonly events: InstanceEvent[];
  /** Resolves once every consumer of the instance runs. */
  readonly ready: Promise<void>;
  /** Waits until `predicate` holds over the events seen so far (bounded by `timeoutMs`). */
  waitFor(predicate: (events: InstanceEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Asks the process to disconnect its consumers and exit; kills it if it does not. */
  stop(): Promise<void>;
}

/**
 * Starts one instance process (see {@link startFixtureProcess}: its stdin is a lifeline, so no
 * consumer outlives its test).
 */
export function startInstance(spec: InstanceSpec): InstanceProcess {
  const child = startFixtureProcess<InstanceEvent>({
    fixture: 'consumer-instance',
    spec,
    name: `instance ${spec.instanceId}`,
  });
  return {
    events: child.events,
    ready: child.waitFor((e) => e.some((x) => x.event === 'ready'), 'ready'),
    waitFor: (predicate, timeoutMs) => child.waitFor(predicate, 'condition', timeoutMs),
    stop: () => child.stop(),
  };
}
