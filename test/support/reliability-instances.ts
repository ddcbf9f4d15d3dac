import type { Admin } from 'kafkajs';
import type { ReliabilityEvent, ReliabilitySpec } from '../fixtures/reliability-instance';
import { startFixtureProcess, type FixtureProcess } from './fixture-process';
import { waitForStableGroup, type ObservedGroup } from './group';

/** A consumer process of the reliability tests (see fixtures/reliability-instance.ts). */
export interface ReliabilityInstance extends Omit<FixtureProcess<ReliabilityEvent>, 'last'> {
  readonly spec: ReliabilitySpec;
  /** Every value this process reported as consumed, in order (duplicates included). */
  consumed(): string[];
  /** The latest value of its coordinator gauge (0 before any). */
  coordinator(): number;
  /** Forwarded log lines, in order. */
  logs(): Array<Extract<ReliabilityEvent, { event: 'log' }>>;
}

/** Starts one process with `send` commands `slow <ms>` and `add` (see {@link startFixtureProcess}: its stdin is a lifeline, so it never outlives the test process). */
export function startReliabilityInstance(spec: ReliabilitySpec): ReliabilityInstance {
  const consumed: string[] = [];
  const child = startFixtureProcess<ReliabilityEvent>({
    fixture: 'reliability-instance',
    spec,
    name: spec.clientId,
    onEvent(event) {
      if (event.event !== 'consumed') return true;
      consumed.push(...event.values);
      return false;
    },
  });
  return {
    ...child,
    spec,
    consumed: () => consumed,
    coordinator: () => child.last((e) => (e.event === 'coordinator' ? e.value : undefined), 0),
    logs: () => child.events.flatMap((e) => (e.event === 'log' ? [e] : [])),
  };
}

/** The members' ids of a described group that start with `clientId` (member ids begin with it). */
export function membersOf(members: ReadonlyArray<{ memberId: string }>, clientId: string): string[] {
  return members.filter((m) => m.memberId.startsWith(`${clientId}-`)).map((m) => m.memberId);
}

/** What happened to every acknowledged message. */
export interface DeliveryReport {
  /** Messages the producer had acknowledged. */
  readonly produced: number;
  /** Messages the consumers reported, duplicates included. */
  readonly consumed: number;
  /** Acknowledged messages never consumed. */
  readonly missing: string[];
  /** Extra deliveries of a record already consumed (same partition and offset): redeliveries. */
  readonly redelivered: number;
  /** Extra copies of one value at different offsets: the producer retried a send that had landed. */
  readonly producerDuplicates: number;
}

/**
 * Accounts for every acknowledged message: `sent` is the per-partition count of acknowledged
 * messages (values 0..n-1, as produceAtRates sends them, keyed "topic:partition"), `consumed`
 * every `<partition>:<value>@<offset>` the consumers reported.
 */
export function accountFor(sent: Record<string, number>, consumed: ReadonlyArray<string>): DeliveryReport {
  const records = new Map<string, number>();
  const offsetsOfValue = new Map<string, Set<string>>();
  for (const entry of consumed) {
    records.set(entry, (records.get(entry) ?? 0) + 1);
    const at = entry.lastIndexOf('@');
    const value = entry.slice(0, at);
    let offsets = offsetsOfValue.get(value);
    if (offsets === undefined) offsetsOfValue.set(value, (offsets = new Set()));
    offsets.add(entry.slice(at + 1));
  }
  const missing: string[] = [];
  let produced = 0;
  for (const [key, n] of Object.entries(sent)) {
    const partition = key.slice(key.lastIndexOf(':') + 1);
    for (let i = 0; i < n; i++) {
      produced++;
      if (!offsetsOfValue.has(`${partition}:${String(i)}`)) missing.push(`${partition}:${String(i)}`);
    }
  }
  let producerDuplicates = 0;
  for (const offsets of offsetsOfValue.values()) producerDuplicates += offsets.size - 1;
  return {
    produced,
    consumed: consumed.length,
    missing,
    redelivered: consumed.length - records.size,
    producerDuplicates,
  };
}

/**
 * {@link waitForStableGroup} that rides out a cluster in failover: while the coordinator moves,
 * DescribeGroups itself fails (connection refused, NOT_COORDINATOR), which only means "not yet".
 */
export async function waitForStableGroupThroughFailover(
  admin: Admin,
  groupId: string,
  memberCount: number,
  partitionCount: number,
  timeoutMs: number,
): Promise<ObservedGroup> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await waitForStableGroup(
        admin,
        groupId,
        memberCount,
        partitionCount,
        Math.max(1000, deadline - Date.now()),
      );
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`group ${groupId} not stable in ${String(timeoutMs)} ms`, { cause: lastError });
}
