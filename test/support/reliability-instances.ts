import { spawn } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Admin } from 'kafkajs';
import type { ReliabilityEvent, ReliabilitySpec } from '../fixtures/reliability-instance';
import { waitForStableGroup, type ObservedGroup } from './group';

/** A consumer process of the reliability tests (see fixtures/reliability-instance.ts). */
export interface ReliabilityInstance {
  readonly spec: ReliabilitySpec;
  readonly events: ReliabilityEvent[];
  /** Waits until `predicate` holds over the events seen so far (bounded by `timeoutMs`). */
  waitFor(predicate: (events: ReliabilityEvent[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Every value this process reported as consumed, in order (duplicates included). */
  consumed(): string[];
  /** The latest value of its coordinator gauge (0 before any). */
  coordinator(): number;
  /** Forwarded log lines, in order. */
  logs(): Array<Extract<ReliabilityEvent, { event: 'log' }>>;
  /** Writes one command line (`slow <ms>`, `add`). */
  send(command: string): void;
  /** Whether the process has exited. */
  exited(): boolean;
  /** Disconnects cleanly (stdin closes) and waits for the exit; SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** SIGKILL, as a crashed pod dies: no LeaveGroup, no commit. */
  kill(): Promise<void>;
}

const TEST_ROOT = basename(dirname(__dirname)) === '.build' ? join(__dirname, '..', '..') : join(__dirname, '..');
const FIXTURE = join(TEST_ROOT, '.build', 'fixtures', 'reliability-instance.js');

/** Starts one process; its stdin is a lifeline, so it never outlives the test process. */
export function startReliabilityInstance(spec: ReliabilitySpec): ReliabilityInstance {
  const child = spawn(process.execPath, [FIXTURE, JSON.stringify(spec)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const events: ReliabilityEvent[] = [];
  const consumed: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let hasExited = false;
  const exited = new Promise<void>((resolve) => {
    child.on('exit', () => {
      hasExited = true;
      resolve();
    });
  });
  const listeners = new Set<() => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    let event: ReliabilityEvent;
    try {
      event = JSON.parse(line) as ReliabilityEvent;
    } catch {
      return;
    }
    if (event.event === 'consumed') consumed.push(...event.values);
    else events.push(event);
    for (const l of listeners) l();
  });

  const last = <T>(pick: (e: ReliabilityEvent) => T | undefined, fallback: T): T => {
    for (let i = events.length - 1; i >= 0; i--) {
      const value = pick(events[i]!);
      if (value !== undefined) return value;
    }
    return fallback;
  };

  return {
    spec,
    events,
    waitFor: (predicate, what, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!predicate(events)) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${spec.clientId}: ${what} not seen in ${String(timeoutMs)} ms; stderr: ${stderr}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then(() => {
          if (!listeners.has(check)) return;
          done();
          reject(new Error(`${spec.clientId} exited while waiting for ${what}; stderr: ${stderr}`));
        });
        check();
      }),
    consumed: () => consumed,
    coordinator: () => last((e) => (e.event === 'coordinator' ? e.value : undefined), 0),
    logs: () => events.flatMap((e) => (e.event === 'log' ? [e] : [])),
    send(command) {
      if (!hasExited) child.stdin.write(`${command}\n`);
    },
    exited: () => hasExited,
    async stop() {
      if (hasExited) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (hasExited) return;
      child.kill('SIGKILL');
      await exited;
    },
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
