import type { Logger, TopicPartition } from '@load-aware/assignor';
import type { Clock, EndOffsetResult, EndOffsetsReader } from '@load-aware/weights-offset-rate';

/** Drains every queued promise callback (setImmediate runs after the microtask queue is empty). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Where {@link FakeClock}'s wall clock starts: its `epochMs()` is this plus `now()`. */
export const EPOCH_MS = 1_700_000_000_000;

/** A clock that only moves when told to; timers fire in time order as it advances. */
export class FakeClock implements Clock {
  private nowMs = 0;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.nowMs;
  }

  epochMs(): number {
    return EPOCH_MS + this.nowMs;
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.nowMs + delayMs, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers set and not yet fired or cleared. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing due timers in order and letting their work settle. */
  async advance(ms: number): Promise<void> {
    const target = this.nowMs + ms;
    await flush();
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.timers)
        if (entry[1].at <= target && (next === undefined || entry[1].at < next[1].at)) next = entry;
      if (next === undefined) break;
      this.timers.delete(next[0]);
      this.nowMs = Math.max(this.nowMs, next[1].at);
      next[1].callback();
      await flush();
    }
    this.nowMs = target;
    await flush();
  }
}

/** One recorded log call. */
export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps everything, for asserting on log lines. */
export function recordingLogger(): Logger & { records: LogRecord[]; messages(level: LogRecord['level']): string[] } {
  const records: LogRecord[] = [];
  const at =
    (level: LogRecord['level']) =>
    (fields: Record<string, unknown>, message?: string): void => {
      records.push({ level, fields, message: message ?? '' });
    };
  return {
    records,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    messages: (level) => records.filter((r) => r.level === level).map((r) => r.message),
  };
}

/** "topic:partition" */
export function keyOf(p: TopicPartition): string {
  return `${p.topic}:${String(p.partition)}`;
}

/**
 * A reader answering from a table the test controls: per "topic:partition" an offset (or a
 * function of the clock), an Error (that partition fails) or nothing (missing from the answer).
 * `failAll` makes the whole read reject; `hold` makes reads wait until released.
 */
export function fakeReader(clock: FakeClock): EndOffsetsReader & {
  offsets: Map<string, bigint | ((nowMs: number) => bigint) | Error>;
  calls: string[][];
  failAll: Error | undefined;
  hold: boolean;
  release(): void;
} {
  let waiting: Array<() => void> = [];
  const reader = {
    offsets: new Map<string, bigint | ((nowMs: number) => bigint) | Error>(),
    calls: [] as string[][],
    failAll: undefined as Error | undefined,
    hold: false,
    release(): void {
      const wake = waiting;
      waiting = [];
      for (const w of wake) w();
    },
    async read(partitions: ReadonlyArray<TopicPartition>): Promise<EndOffsetResult[]> {
      reader.calls.push(partitions.map(keyOf));
      if (reader.hold) await new Promise<void>((resolve) => waiting.push(resolve));
      if (reader.failAll !== undefined) throw reader.failAll;
      return partitions.flatMap((p): EndOffsetResult[] => {
        const value = reader.offsets.get(keyOf(p));
        if (value === undefined) return [];
        if (value instanceof Error) return [{ ...p, error: value }];
        return [{ ...p, offset: typeof value === 'function' ? value(clock.now()) : value }];
      });
    },
  };
  return reader;
}

/** Offsets growing at `perSecond` from `start` at time 0. */
export function growing(perSecond: number, start = 0n): (nowMs: number) => bigint {
  return (nowMs) => start + BigInt(Math.floor((perSecond * nowMs) / 1000));
}
