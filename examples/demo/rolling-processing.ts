/**
 * The parent's side of the processing reports of the rolling-restart benchmark (processing.ts
 * writes them): it folds every instance process's pauses, first message and processed offset
 * ranges into a {@link ProcessingRecord}, counting duplicates as they arrive and lost messages
 * at the end. Pure bookkeeping, unit-tested without a broker; times in the record are seconds
 * since the consumers' start, like the rest of the run's record.
 */
import type { ProcessingReport } from './protocol.js';

/** One stretch without a processed message, as the record keeps it. */
export interface PauseRecord {
  instanceId: string;
  /** Which process of the instance (0 = the first, 1 = after its restart, ...). */
  process: number;
  /** Member index inside the process; absent for a pause of the whole process. */
  member?: number;
  from: number;
  to: number;
  /** Still going at the last report (the process stopped, or the run ended). */
  open: boolean;
}

/** One instance process, as the benchmark saw it. */
export interface ProcessRecord {
  instanceId: string;
  process: number;
  /** Its `ready` line: every member joined. */
  readyAt: number | null;
  /** Its first processed message. */
  firstProcessedAt: number | null;
}

/** Messages produced and processed over the whole run, after the drain at its end. */
export interface DeliveryRecord {
  /** Sum of the partitions' end offsets once the producer stopped. */
  produced: number;
  /** Every processed message, a duplicate included. */
  processed: number;
  /** Distinct offsets processed. */
  unique: number;
  /** processed − unique: messages processed again (by another member, or after a restart). */
  duplicates: number;
  /** Offsets below the end offset that no member ever processed. */
  lost: number;
  /** Every produced message was processed before the drain's time limit. */
  drained: boolean;
  /** From the producer's stop until everything was processed (or the limit). */
  drainSeconds: number;
}

/** What the benchmark records about processing; see {@link ProcessingCollector}. */
export interface ProcessingRecord {
  /** A stretch longer than this without a processed message is a pause. */
  thresholdMs: number;
  processes: ProcessRecord[];
  memberPauses: PauseRecord[];
  instancePauses: PauseRecord[];
  /** Per stats line that reported them: when, which instance, how many offsets processed again. */
  duplicates: Array<{ t: number; instanceId: string; count: number }>;
  /** Per stats line: the longest stretch between two messages of the process that ended in it. */
  gaps: Array<{ t: number; instanceId: string; process: number; seconds: number }>;
  delivery?: DeliveryRecord;
}

/** Sorted, disjoint `[from, to)` ranges of one partition's processed offsets. */
type Ranges = Array<[number, number]>;

/** Offsets of `[from, to)` already in `ranges`. */
function overlap(ranges: Ranges, from: number, to: number): number {
  let n = 0;
  for (const [a, b] of ranges) {
    if (a >= to) break;
    n += Math.max(0, Math.min(b, to) - Math.max(a, from));
  }
  return n;
}

/** `ranges` ∪ `[from, to)`, still sorted and disjoint (touching ranges merged). */
function union(ranges: Ranges, from: number, to: number): Ranges {
  const out: Ranges = [];
  let lo = from;
  let hi = to;
  let placed = false;
  for (const [a, b] of ranges) {
    if (b < lo) out.push([a, b]);
    else if (a > hi) {
      if (!placed) out.push([lo, hi]);
      placed = true;
      out.push([a, b]);
    } else {
      lo = Math.min(lo, a);
      hi = Math.max(hi, b);
    }
  }
  if (!placed) out.push([lo, hi]);
  return out;
}

/**
 * Collects the processing reports of every instance process of one run. `since` turns a wall
 * clock ms into the record's seconds.
 */
export class ProcessingCollector {
  private readonly processes = new Map<string, ProcessRecord>();
  /** Keyed by instance, process, member and start: a pause reported open, then again, is one. */
  private readonly pauses = new Map<string, PauseRecord>();
  private readonly processed = new Map<number, Ranges>();
  private readonly duplicates: ProcessingRecord['duplicates'] = [];
  private readonly gaps: ProcessingRecord['gaps'] = [];
  private total = 0;

  constructor(
    private readonly thresholdMs: number,
    private readonly since: (at: number) => number,
  ) {}

  private process(instanceId: string, process: number): ProcessRecord {
    const key = `${instanceId}#${String(process)}`;
    let p = this.processes.get(key);
    if (p === undefined) {
      p = { instanceId, process, readyAt: null, firstProcessedAt: null };
      this.processes.set(key, p);
    }
    return p;
  }

  /** The process's `ready` line. */
  ready(instanceId: string, process: number, at: number): void {
    this.process(instanceId, process).readyAt = this.since(at);
  }

  /** One `stats` line's processing report, of process `process` of `instanceId`. */
  report(instanceId: string, process: number, at: number, report: ProcessingReport): void {
    const p = this.process(instanceId, process);
    if (report.firstProcessedAt !== undefined) p.firstProcessedAt ??= this.since(report.firstProcessedAt);
    const pause = (from: number, to: number, open: boolean, member?: number): void => {
      const key = `${instanceId}#${String(process)}#${String(member ?? '-')}#${String(from)}`;
      const known = this.pauses.get(key);
      const record: PauseRecord = {
        instanceId,
        process,
        ...(member === undefined ? {} : { member }),
        from: this.since(from),
        to: Math.max(known?.to ?? 0, this.since(to)),
        open,
      };
      this.pauses.set(key, record);
    };
    for (const m of report.memberPauses) pause(m.from, m.to, m.open === true, m.member);
    for (const i of report.instancePauses) pause(i.from, i.to, i.open === true);
    if (report.longestGapMs > 0) {
      this.gaps.push({ t: this.since(at), instanceId, process, seconds: report.longestGapMs / 1000 });
    }
    let again = 0;
    for (const [key, ranges] of Object.entries(report.processed)) {
      const partition = Number(key);
      let known = this.processed.get(partition) ?? [];
      for (const [from, to] of ranges) {
        this.total += to - from;
        again += overlap(known, from, to);
        known = union(known, from, to);
      }
      this.processed.set(partition, known);
    }
    if (again > 0) this.duplicates.push({ t: this.since(at), instanceId, count: again });
  }

  /** Messages below each partition's end offset that no report covered yet. */
  unprocessed(ends: ReadonlyArray<{ partition: number; offset: string }>): number {
    let missing = 0;
    for (const { partition, offset } of ends) {
      const end = Number(offset);
      missing += end - overlap(this.processed.get(partition) ?? [], 0, end);
    }
    return missing;
  }

  /**
   * The record. `ends`: the end offsets once the producer stopped and the drain ended (absent:
   * no delivery numbers, e.g. an interrupted run).
   */
  finish(drain?: {
    ends: ReadonlyArray<{ partition: number; offset: string }>;
    drained: boolean;
    drainSeconds: number;
  }): ProcessingRecord {
    const pauses = [...this.pauses.values()].sort((a, b) => a.from - b.from);
    let delivery: DeliveryRecord | undefined;
    if (drain !== undefined) {
      const produced = drain.ends.reduce((n, e) => n + Number(e.offset), 0);
      const unique = [...this.processed.values()].reduce(
        (n, ranges) => n + ranges.reduce((m, [a, b]) => m + b - a, 0),
        0,
      );
      delivery = {
        produced,
        processed: this.total,
        unique,
        duplicates: this.total - unique,
        lost: this.unprocessed(drain.ends),
        drained: drain.drained,
        drainSeconds: drain.drainSeconds,
      };
    }
    return {
      thresholdMs: this.thresholdMs,
      processes: [...this.processes.values()],
      memberPauses: pauses.filter((p) => p.member !== undefined),
      instancePauses: pauses.filter((p) => p.member === undefined),
      duplicates: this.duplicates,
      gaps: this.gaps,
      ...(delivery === undefined ? {} : { delivery }),
    };
  }
}
