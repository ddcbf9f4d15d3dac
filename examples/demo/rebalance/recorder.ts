/**
 * Folds one run's member events into what the analysis and the waits need: every member's
 * processed timestamps, heartbeats, joins and rebalance notices, the pause histogram readings,
 * and when partitions at or past `firstAddedPartition` were first processed.
 */
import type { HeartbeatRecord, MemberSeries } from './analysis.js';
import type { MemberEvent, PauseSeries } from './protocol.js';

/** A member's latest join: its assignment and when it got it. */
export interface JoinRecord {
  readonly instanceId: string;
  readonly isLeader: boolean;
  readonly partitions: readonly number[];
  readonly at: number;
}

/** What the recorder keeps of one run. */
export class RunRecorder {
  private readonly times = new Map<string, number[]>();
  readonly heartbeats: HeartbeatRecord[] = [];
  readonly joins: JoinRecord[] = [];
  readonly rebalancings: Array<{ instanceId: string; at: number }> = [];
  readonly requests: Array<{ instanceId: string; api: string; sentAt: number; durationMs: number }> = [];
  readonly notes: string[] = [];
  readonly crashes: Array<{ instanceId: string; message: string; at: number }> = [];
  /** Other events (running, fired, leaving, left, connected) by `${event}:${instanceId}`, first one. */
  private readonly marks = new Map<string, number>();
  private readonly metrics = new Map<string, { available: boolean; series: PauseSeries[]; at: number }>();
  /** Wall time the first message of an added partition was processed. */
  firstAddedProcessedAt: number | undefined;

  constructor(private readonly firstAddedPartition: number) {}

  onEvent(event: MemberEvent): void {
    switch (event.event) {
      case 'processed': {
        const list = this.times.get(event.instanceId) ?? [];
        this.times.set(event.instanceId, list);
        for (const [i, t] of event.t.entries()) {
          list.push(t);
          if (event.p[i]! >= this.firstAddedPartition && this.firstAddedProcessedAt === undefined) {
            this.firstAddedProcessedAt = t;
          }
        }
        return;
      }
      case 'heartbeat':
        this.heartbeats.push({ instanceId: event.instanceId, generationId: event.generationId, at: event.at });
        return;
      case 'join':
        this.joins.push({
          instanceId: event.instanceId,
          isLeader: event.isLeader,
          partitions: event.partitions,
          at: event.at,
        });
        return;
      case 'rebalancing':
        this.rebalancings.push({ instanceId: event.instanceId, at: event.at });
        return;
      case 'request':
        this.requests.push({
          instanceId: event.instanceId,
          api: event.api,
          sentAt: event.sentAt,
          durationMs: event.durationMs,
        });
        return;
      case 'pauseMetric':
        this.metrics.set(event.instanceId, { available: event.available, series: event.series, at: event.at });
        return;
      case 'crash':
        this.crashes.push({ instanceId: event.instanceId, message: event.message, at: event.at });
        this.notes.push(`${event.instanceId} ${event.event}: ${event.message}`);
        return;
      case 'warn':
        this.notes.push(`${event.instanceId} ${event.event}: ${event.message}`);
        return;
      default: {
        const key = `${event.event}:${event.instanceId}`;
        if (!this.marks.has(key)) this.marks.set(key, event.at);
      }
    }
  }

  /** When `instanceId` first reported `event` (running, fired, leaving, ...). */
  mark(event: string, instanceId: string): number | undefined {
    return this.marks.get(`${event}:${instanceId}`);
  }

  /** The members' processed timestamps, ascending. */
  series(instanceIds: readonly string[]): MemberSeries[] {
    return instanceIds.map((instanceId) => ({
      instanceId,
      times: [...(this.times.get(instanceId) ?? [])].sort((a, b) => a - b),
    }));
  }

  /** The latest join of each listed member. */
  latestJoins(instanceIds: readonly string[]): Map<string, JoinRecord> {
    const latest = new Map<string, JoinRecord>();
    for (const j of this.joins) if (instanceIds.includes(j.instanceId)) latest.set(j.instanceId, j);
    return latest;
  }

  /** The latest heartbeat time of a member. */
  lastHeartbeatAt(instanceId: string): number | undefined {
    for (let i = this.heartbeats.length - 1; i >= 0; i--) {
      if (this.heartbeats[i]!.instanceId === instanceId) return this.heartbeats[i]!.at;
    }
    return undefined;
  }

  /** The time of the latest join or rebalance notice of any member. */
  lastGroupActivityAt(): number {
    const joins = this.joins.at(-1)?.at ?? -Infinity;
    const notices = this.rebalancings.at(-1)?.at ?? -Infinity;
    return Math.max(joins, notices);
  }

  /** The latest pause-histogram reading of a member, if it sent one after `since`. */
  pauseMetric(instanceId: string, since: number): { available: boolean; series: PauseSeries[] } | undefined {
    const m = this.metrics.get(instanceId);
    return m !== undefined && m.at >= since ? m : undefined;
  }
}

/** One group event of a run, for result.json: ms after the cause, the member, and what happened. */
export type TimelineEntry = [atMs: number, instanceId: string, what: string];

/**
 * The group events from `from` to `to` relative to `causeAt`, in time order: rebalance notices,
 * joins (L: as leader), group requests as sent (with how long they took) and crashes.
 */
export function timeline(recorder: RunRecorder, causeAt: number, from: number, to: number): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const add = (at: number, instanceId: string, what: string): void => {
    if (at >= from && at <= to) entries.push([Math.round((at - causeAt) * 10) / 10, instanceId, what]);
  };
  for (const r of recorder.rebalancings) add(r.at, r.instanceId, 'rebalancing');
  for (const j of recorder.joins) add(j.at, j.instanceId, `join${j.isLeader ? ' L' : ''} [${j.partitions.join(',')}]`);
  for (const q of recorder.requests) add(q.sentAt, q.instanceId, `${q.api} ${String(q.durationMs)} ms`);
  for (const c of recorder.crashes) add(c.at, c.instanceId, `crash: ${c.message}`);
  return entries.sort((x, y) => x[0] - y[0]);
}
