import { eventually } from './wait';

/** A consumer process that reports the trigger's `load_aware_trigger_coordinator` gauge. */
export interface CoordinatorGaugeReporter {
  readonly spec: { readonly clientId: string };
  /** The latest value of its coordinator gauge (0 before any). */
  coordinator(): number;
}

/**
 * The process the trigger's election must pick, once it alone reports the coordinator post.
 * Each member republishes its gauge on its own check, so for a moment after the group changes a
 * member may still report the post it held before: this waits for `expected` alone, and throws
 * after `timeoutMs` naming whoever reports it instead.
 */
export async function settledCoordinator<T extends CoordinatorGaugeReporter>(
  instances: ReadonlyArray<T>,
  expected: string,
  timeoutMs = 30_000,
): Promise<T> {
  const reporting = (): string =>
    instances
      .filter((i) => i.coordinator() === 1)
      .map((i) => i.spec.clientId)
      .join();
  await eventually(() => reporting() === expected, `${expected} alone coordinator`, timeoutMs).catch(() => {
    throw new Error(`expected ${expected} alone as coordinator, reporting: [${reporting()}]`);
  });
  return instances.find((i) => i.spec.clientId === expected)!;
}
