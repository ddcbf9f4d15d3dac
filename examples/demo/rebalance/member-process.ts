/**
 * What the rebalance benchmark's two member programs share (member-main.ts for KafkaJS,
 * member-platformatic-main.ts for @platformatic/kafka): the JSON lines they print
 * (protocol.ts), the per-message work, the batched `processed` lines, the commands on stdin and
 * the process's lifecycle. What differs, the client's consumer and how a fire is made, is handed
 * in by each program.
 */
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Registry } from 'prom-client';
import type { FireResult } from './member-fire.js';
import { readPauseMetric } from './member-metrics.js';
import type { FireMode, MemberCommand, MemberEvent, MemberSpec } from './protocol.js';

/** Prints one event for the parent. */
export function emit(event: MemberEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/** Wall clock with sub-millisecond resolution, rounded to 0.1 ms. */
export function now(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 10) / 10;
}

/** `workMs` of real time per message: a timer (I/O-like latency) or a busy loop (CPU). */
export async function work(spec: MemberSpec): Promise<void> {
  if (spec.workMs <= 0) return;
  if (spec.workMode === 'sleep') {
    await sleep(spec.workMs);
    return;
  }
  const until = performance.now() + spec.workMs;
  while (performance.now() < until) {
    // spin: CPU work that cannot overlap with anything else in this process
  }
}

/** What each program hands in. */
export interface MemberClient {
  /** Makes a proactive fire; undefined when this member cannot (it is not load-aware). */
  readonly fire: ((mode: FireMode) => Promise<FireResult>) | undefined;
  /** Disconnects the consumer (and whatever else the program opened); errors are the program's to report. */
  readonly close: () => Promise<void>;
}

/** A running member process, as its program drives it. */
export interface MemberProcess {
  /** Counts one processed message of `partition`, finished now. */
  processed(partition: number): void;
  /** Resolves at the spec's `runAt`, or on the parent's `run` command when it is null. */
  untilRun(): Promise<void>;
  /** True once a stop began (the program must not start consuming then). */
  readonly stopping: boolean;
}

/**
 * Serves the member's side of the protocol: processed times flushed every `flushIntervalMs`,
 * commands read from stdin, and a stop (flush, `left` when it was asked to leave, exit) when
 * stdin, the parent's lifeline, closes, on SIGINT/SIGTERM, on a `leave` command, or after
 * `lifetimeMs`: it never outlives the benchmark.
 */
export function serveMember(spec: MemberSpec, registry: Registry, client: MemberClient): MemberProcess {
  const { instanceId } = spec;
  let times: number[] = [];
  let partitions: number[] = [];
  const flush = (): void => {
    if (times.length === 0) return;
    emit({ event: 'processed', instanceId, t: times, p: partitions });
    times = [];
    partitions = [];
  };
  const flusher = setInterval(flush, spec.flushIntervalMs);

  let stopping: Promise<void> | undefined;
  const stop = (leave: boolean): Promise<void> =>
    (stopping ??= (async () => {
      if (leave) emit({ event: 'leaving', instanceId, at: now() });
      await client.close();
      clearInterval(flusher);
      flush();
      if (leave) emit({ event: 'left', instanceId, at: now() });
      process.exit(0);
    })());

  let runNow: () => void = () => undefined;
  const runCommanded = new Promise<void>((resolve) => {
    runNow = resolve;
  });
  const onCommand = async (command: MemberCommand): Promise<void> => {
    switch (command.cmd) {
      case 'run':
        runNow();
        return;
      case 'fire': {
        if (client.fire === undefined) {
          emit({ event: 'warn', instanceId, message: 'fire: not a load-aware member', at: now() });
          return;
        }
        const at = now();
        const { epoch, asked } = await client.fire(command.mode);
        emit({ event: 'fired', instanceId, mode: command.mode, epoch, asked, at });
        return;
      }
      case 'leave':
        await stop(true);
        return;
      case 'report':
        flush();
        emit({ event: 'pauseMetric', instanceId, ...(await readPauseMetric(registry)), at: now() });
        return;
    }
  };
  createInterface({ input: process.stdin }).on('line', (line) => {
    let command: MemberCommand;
    try {
      command = JSON.parse(line) as MemberCommand;
    } catch {
      return;
    }
    onCommand(command).catch((err: unknown) => {
      emit({ event: 'warn', instanceId, message: `${command.cmd}: ${String(err)}`, at: now() });
    });
  });
  process.stdin.on('end', () => void stop(false));
  process.stdin.on('error', () => void stop(false));
  process.on('SIGTERM', () => void stop(false));
  // Ctrl-C reaches the whole process group; stop cleanly rather than die mid-commit.
  process.on('SIGINT', () => void stop(false));
  setTimeout(() => void stop(false), spec.lifetimeMs).unref();

  return {
    processed(partition) {
      times.push(now());
      partitions.push(partition);
    },
    async untilRun() {
      if (spec.runAt === null) await runCommanded;
      else await sleep(Math.max(0, spec.runAt - Date.now()));
    },
    get stopping() {
      return stopping !== undefined;
    },
  };
}
