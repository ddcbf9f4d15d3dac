import { rename, writeFile } from 'node:fs/promises';
import type { TriggerInstanceEvent, TriggerInstanceSpec, WeightsFile } from '../fixtures/trigger-instance';
import { startFixtureProcess, type FixtureProcess } from './fixture-process';
export { eventually } from './wait';

/** A trigger instance running in its own process (see fixtures/trigger-instance.ts; `send` command: `attach`). */
export interface TriggerInstance extends Omit<FixtureProcess<TriggerInstanceEvent>, 'last'> {
  readonly spec: TriggerInstanceSpec;
  /** The latest value of this process's `load_aware_trigger_coordinator` gauge (0 before any). */
  coordinator(): number;
  /** The latest generation id this instance's consumer heartbeated with (-1 before any). */
  generation(): number;
  /** Log lines of this instance at `level` or any level, in order. */
  logs(level?: 'debug' | 'info' | 'warn' | 'error'): Array<Extract<TriggerInstanceEvent, { event: 'log' }>>;
}

/** Starts one trigger instance (see {@link startFixtureProcess}: its stdin is a lifeline, so it never outlives the test process). */
export function startTriggerInstance(spec: TriggerInstanceSpec): TriggerInstance {
  const child = startFixtureProcess<TriggerInstanceEvent>({ fixture: 'trigger-instance', spec, name: spec.instanceId });
  return {
    ...child,
    spec,
    coordinator: () => child.last((e) => (e.event === 'coordinator' ? e.value : undefined), 0),
    generation: () => child.last((e) => (e.event === 'generation' ? e.generationId : undefined), -1),
    logs: (level) =>
      child.events.flatMap((e) => (e.event === 'log' && (level === undefined || e.level === level) ? [e] : [])),
  };
}

/** Replaces the weights file atomically, so an instance never reads half a file. */
export async function writeWeightsFile(path: string, content: WeightsFile): Promise<void> {
  const staging = `${path}.${String(process.pid)}.tmp`;
  await writeFile(staging, JSON.stringify(content));
  await rename(staging, path);
}
