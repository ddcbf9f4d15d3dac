/**
 * What the demo's two instance programs share (instance-main.ts for KafkaJS,
 * instance-platformatic-main.ts for @platformatic/kafka): the JSON lines they print
 * (protocol.ts), the logger that turns the library's own log lines into events, the warm-up
 * before joining, the `stats` lines, and the process's lifecycle. What differs between them, the
 * clients' consumers and assigners, stays in each program.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Registry } from 'prom-client';
import type { Logger } from '@load-aware/assignor';
import type { TriggerControllerOptions } from '@load-aware/trigger';
import type { OffsetRateWeightSource } from '@load-aware/weights-offset-rate';
import { ProcessingMonitor } from './processing.js';
import type { FastPreset, InstanceEvent, InstanceSpec } from './protocol.js';
import { processMessage } from './work.js';

/** Longest wait for the first measured rates before the consumers join. */
const WARM_UP_LIMIT_MS = 5000;

/** Prints one event for the parent. */
export function emit(event: InstanceEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/**
 * Forwards what the parent measures from the library's own logs: the leader's assignment lines
 * (with `durationMs`, and the defaulted-weight count), its "moves" line, the trigger's fires, and
 * every warning.
 */
export function reportingLogger(instanceId: string): Logger {
  const ignore = (): void => undefined;
  return {
    debug: ignore,
    info: (fields, message = '') => {
      const at = Date.now();
      const { durationMs, result, defaulted, moved, previouslyOwned } = fields;
      if (typeof durationMs === 'number' && typeof result === 'string') {
        emit({
          event: 'assignment',
          instanceId,
          result,
          durationMs,
          ...(typeof defaulted === 'number' ? { defaulted } : {}),
          at,
        });
      } else if (typeof moved === 'number' && typeof previouslyOwned === 'number') {
        emit({ event: 'placement', instanceId, moved, previouslyOwned, at });
      } else if (message.startsWith('rebalance initiated')) {
        emit({ event: 'trigger', instanceId, message, at });
      }
    },
    warn: (_fields, message = '') => {
      emit({ event: 'warn', instanceId, message, at: Date.now() });
    },
    error: (_fields, message = '') => {
      emit({ event: 'warn', instanceId, message, at: Date.now() });
    },
  };
}

/**
 * Reports an assignment of the client's own round-robin that began at `startedAt`
 * (`performance.now()`), as the load-aware leader's come from its log: the same event, so the
 * comparison costs round-robin nothing extra.
 */
export function roundRobinAssigned(instanceId: string, startedAt: number): void {
  emit({
    event: 'assignment',
    instanceId,
    result: 'round_robin',
    durationMs: performance.now() - startedAt,
    at: Date.now(),
  });
}

/** The trigger's options in the demo: the fast preset's check interval and thresholds. */
export function triggerOptions(preset: FastPreset, logger: Logger, registry: Registry): TriggerControllerOptions {
  return {
    checkIntervalMs: preset.checkIntervalMs,
    trigger: {
      threshold: preset.threshold,
      minViolatedChecks: preset.minViolatedChecks,
      cooldownMs: preset.cooldownMs,
      maxCooldownMs: preset.maxCooldownMs,
    },
    logger,
    registry,
  };
}

/**
 * With `trackAllPartitions`: samples every partition from the start and returns once rates are
 * known, so the first assignment is already weighed (as a restarted pod would do with
 * `track()`); bounded, then the instance joins anyway.
 */
export async function warmUp(weights: OffsetRateWeightSource, spec: InstanceSpec): Promise<void> {
  if (!spec.trackAllPartitions) return;
  const all = Array.from({ length: spec.partitions }, (_, partition) => ({ topic: spec.topic, partition }));
  weights.track(all);
  const warmUntil = Date.now() + WARM_UP_LIMIT_MS;
  while ((await weights.getWeights(all)).length < all.length && Date.now() < warmUntil) await sleep(200);
}

/**
 * What the instance processed and holds, printed as a `stats` line every `statsIntervalMs`
 * from construction; with `pauseThresholdMs`, the lines also carry the processing report.
 */
export class InstanceStats {
  private consumed = 0;
  private readonly offsets: Record<string, number> = {};
  /** Each consumer's partitions of the topic, by consumer. */
  private readonly assignedBy = new Map<object, number[]>();
  private readonly monitor: ProcessingMonitor | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly spec: InstanceSpec) {
    this.monitor =
      spec.pauseThresholdMs === undefined ? undefined : new ProcessingMonitor(spec.pauseThresholdMs, spec.members);
    this.timer = setInterval(() => {
      this.emit();
    }, spec.statsIntervalMs);
  }

  /** Does the demo's per-message work for one message of `member`, then counts it. */
  async process(member: number, partition: number, offset: string | bigint, value: Buffer | null): Promise<void> {
    await processMessage(value, this.spec.workMs, this.spec.cpuMs);
    this.monitor?.processed(member, partition, Number(offset), Date.now());
    this.consumed++;
    this.offsets[String(partition)] = Number(offset) + 1;
  }

  /** What `consumer` holds since its last join. */
  assigned(consumer: object, partitions: number[]): void {
    this.assignedBy.set(consumer, partitions);
  }

  /** Every member runs: the monitor starts counting pauses, and the parent hears `ready`. */
  ready(): void {
    const readyAt = Date.now();
    this.monitor?.ready(readyAt);
    emit({ event: 'ready', instanceId: this.spec.instanceId, at: readyAt });
  }

  /** No more periodic lines. */
  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * The last line, once the consumers have disconnected: what was processed since the previous
   * line (and while disconnecting), or the parent would count it as lost. Only with processing
   * reports, so the demo's lines stay as they were; pauses still going are the process's own
   * downtime, not reported.
   */
  final(): void {
    if (this.monitor !== undefined) this.emit(true);
  }

  private emit(last = false): void {
    const at = Date.now();
    emit({
      event: 'stats',
      instanceId: this.spec.instanceId,
      consumed: this.consumed,
      offsets: { ...this.offsets },
      assigned: [...this.assignedBy.values()].flat().sort((a, b) => a - b),
      ...(this.monitor === undefined ? {} : { processing: this.monitor.report(at, !last) }),
      at,
    });
    this.consumed = 0;
  }
}

/**
 * Stops the instance when its stdin (the parent's lifeline) closes, on SIGINT (Ctrl-C reaches the
 * whole process group: stop cleanly rather than die mid-commit), or after `lifetimeMs`: it never
 * outlives the demo. `leave`: the process is gone for good. SIGTERM, what a rolling deploy sends a
 * pod that comes back, is the one stop without it.
 */
export function stopWhenAsked(spec: InstanceSpec, stop: (leave: boolean) => Promise<void>): void {
  setTimeout(() => void stop(true), spec.lifetimeMs).unref();
  process.stdin.on('end', () => void stop(true));
  process.stdin.on('error', () => void stop(true));
  process.stdin.resume();
  process.on('SIGTERM', () => void stop(false));
  process.on('SIGINT', () => void stop(true));
}

/** Runs an instance program's main; a failure is printed to stderr and exits 1. */
export function runInstance(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
