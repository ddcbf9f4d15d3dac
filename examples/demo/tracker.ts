import { isComplete } from './analysis.js';
import type { PhaseObserver, SampleContext } from './phase.js';
import type { InstanceEvent } from './protocol.js';
import type { GenerationRecord, PhaseRecord, Sample } from './record.js';

/** An instance whose last stats line is older than this many intervals counts as processing nothing. */
const SILENT_AFTER_INTERVALS = 2.5;

/** What the parent keeps from one instance's reports. */
interface InstanceState {
  consumedPerSec: number;
  lastStatsAt: number;
  assigned: number[];
  generations: Set<number>;
  running: boolean;
}

/**
 * Folds the instances' JSON lines into a {@link PhaseRecord} and builds a {@link Sample} from
 * them and the end offsets the parent reads. Times are kept relative to `t0`, the consumers'
 * start; consumption reported after `endAt` does not count towards the phase.
 */
export class PhaseTracker {
  private readonly state = new Map<string, InstanceState>();
  private readonly nextOffsets: number[];
  private readonly generations = new Map<number, GenerationRecord>();

  constructor(
    readonly record: PhaseRecord,
    private readonly t0: number,
    private readonly endAt: number,
    private readonly statsIntervalMs: number,
    private readonly observer: PhaseObserver,
  ) {
    for (const { instanceId } of record.instances) {
      this.state.set(instanceId, {
        consumedPerSec: 0,
        lastStatsAt: t0,
        assigned: [],
        generations: new Set(),
        running: true,
      });
    }
    this.nextOffsets = new Array<number>(record.partitions).fill(0);
  }

  /** Seconds since the consumers' start, to a tenth. */
  since(at: number): number {
    return Math.round((at - this.t0) / 100) / 10;
  }

  /**
   * Marks an instance's process as stopped (it holds nothing from now on, whatever it reported
   * last) or started again. Lines of a stopped instance are still taken.
   */
  setRunning(instanceId: string, running: boolean, at: number): void {
    const s = this.state.get(instanceId);
    if (s === undefined) return;
    s.running = running;
    s.assigned = [];
    s.consumedPerSec = 0;
    s.lastStatsAt = at;
  }

  /** The generations seen so far, in order (members are added as they report). */
  generationsSoFar(): GenerationRecord[] {
    return [...this.generations.values()].sort((a, b) => a.generationId - b.generationId);
  }

  /** Takes one line of an instance. */
  onEvent(event: InstanceEvent): void {
    const s = this.state.get(event.instanceId);
    if (s === undefined) return;
    const { record, observer } = this;
    switch (event.event) {
      case 'stats':
        if (event.at <= this.endAt) record.consumedMessages += event.consumed;
        for (const [p, offset] of Object.entries(event.offsets)) {
          const i = Number(p);
          this.nextOffsets[i] = Math.max(this.nextOffsets[i] ?? 0, offset);
        }
        // A stopping process may still print a line after it was marked stopped: it holds nothing.
        if (!s.running) break;
        s.consumedPerSec = (event.consumed * 1000) / Math.max(1, event.at - s.lastStatsAt);
        s.lastStatsAt = event.at;
        s.assigned = event.assigned;
        break;
      case 'generation': {
        s.generations.add(event.generationId);
        const t = this.since(event.joinedAt);
        let g = this.generations.get(event.generationId);
        if (g === undefined) {
          g = {
            generationId: event.generationId,
            t,
            leaderInstance: undefined,
            leaderMemberId: undefined,
            members: [],
          };
          this.generations.set(event.generationId, g);
          if (t > 1) observer.note(`${record.assigner}: rebalance, generation ${String(g.generationId)}`);
        }
        g.t = Math.min(g.t, t);
        if (event.isLeader) {
          g.leaderInstance = event.instanceId;
          g.leaderMemberId = event.memberId;
        }
        const { groupInstanceId } = event;
        const entry = {
          memberId: event.memberId,
          instanceId: event.instanceId,
          partitions: event.partitions,
          ...(groupInstanceId === undefined ? {} : { groupInstanceId }),
        };
        // A static member back within its session: the broker swapped its member id in this
        // generation, and hands it the old id's assignment (and leadership, if it led).
        const replaced =
          groupInstanceId === undefined
            ? -1
            : g.members.findIndex((m) => m.groupInstanceId === groupInstanceId && m.memberId !== event.memberId);
        if (replaced < 0) {
          g.members.push(entry);
          break;
        }
        const old = g.members[replaced]!;
        g.members[replaced] = entry;
        if (g.leaderMemberId === old.memberId) g.leaderMemberId = event.memberId;
        (record.staticRejoins ??= []).push({
          t,
          instanceId: event.instanceId,
          groupInstanceId: groupInstanceId!,
          generationId: event.generationId,
          samePartitions: old.partitions.join(',') === event.partitions.join(','),
        });
        observer.note(
          `${record.assigner}: ${groupInstanceId!} rejoined generation ${String(event.generationId)} as a static member`,
        );
        break;
      }
      case 'assignment': {
        const { instanceId, result, durationMs, defaulted } = event;
        record.assignments.push({
          t: this.since(event.at),
          instanceId,
          result,
          durationMs,
          ...(defaulted === undefined ? {} : { defaulted }),
        });
        break;
      }
      case 'placement': {
        // Logged right after the assignment line of the same leader.
        const last = record.assignments.findLast((a) => a.instanceId === event.instanceId);
        if (last !== undefined) {
          last.previouslyOwned = event.previouslyOwned;
          last.movedFromKnownOwner = event.moved;
        }
        break;
      }
      case 'trigger':
        record.triggers.push(this.since(event.at));
        observer.note(`${record.assigner}: trigger fired on ${event.instanceId}: ${event.message}`);
        break;
      case 'warn':
        record.warnings.push({ t: this.since(event.at), instanceId: event.instanceId, message: event.message });
        if (record.warnings.length <= 3) {
          observer.note(`${record.assigner}: WARN ${event.instanceId}: ${event.message}`);
        }
        break;
      case 'ready':
        break;
    }
  }

  /**
   * Records a sample at `now` from the topic's end offsets and the produce rates in force, and
   * shows it to the observer.
   */
  sample(
    now: number,
    ends: ReadonlyArray<{ partition: number; offset: string }>,
    rates: readonly number[],
    moved: boolean,
  ): void {
    const lagOf = this.partitionLags(ends);
    const sample: Sample = {
      t: this.since(now),
      producedPerSec: rates.reduce((a, b) => a + b, 0),
      totalLag: lagOf.reduce((a, b) => a + b, 0),
      assignedPartitions: new Set([...this.state.values()].flatMap((s) => s.assigned)).size,
      instances: {},
    };
    for (const [instanceId, s] of this.state) {
      const silent = now - s.lastStatsAt > SILENT_AFTER_INTERVALS * this.statsIntervalMs;
      sample.instances[instanceId] = {
        // A silent instance (starting up, or blocked in a rebalance) processed nothing lately.
        consumedPerSec: silent ? 0 : Math.round(s.consumedPerSec),
        lag: s.assigned.reduce((sum, p) => sum + (lagOf[p] ?? 0), 0),
        offeredPerSec: Math.round(s.assigned.reduce((sum, p) => sum + (rates[p] ?? 0), 0)),
        partitions: s.assigned.length,
        running: s.running,
      };
    }
    this.record.samples.push(sample);
    const context: SampleContext = {
      generation: Math.max(-1, ...this.generations.keys()),
      rebalances: Object.fromEntries([...this.state].map(([id, s]) => [id, s.generations.size])),
      triggers: this.record.triggers.length,
      moved,
    };
    this.observer.sample(sample, context);
  }

  /** Lag of each partition (index = partition): end offset − next offset to process. */
  partitionLags(ends: ReadonlyArray<{ partition: number; offset: string }>): number[] {
    const lagOf = new Array<number>(this.record.partitions).fill(0);
    for (const { partition, offset } of ends) {
      lagOf[partition] = Math.max(0, Number(offset) - (this.nextOffsets[partition] ?? 0));
    }
    return lagOf;
  }

  /** The newest generation reported so far, whether it is complete (every member, every partition). */
  latestGeneration(): { generation: GenerationRecord; complete: boolean } | undefined {
    const newest = Math.max(-1, ...this.generations.keys());
    const generation = this.generations.get(newest);
    return generation === undefined ? undefined : { generation, complete: isComplete(this.record, generation) };
  }

  /** The record, with generations in order and the steady producer's count added. */
  finish(steadyMessages: number): PhaseRecord {
    this.record.producedMessages += steadyMessages;
    this.record.generations = [...this.generations.values()].sort((a, b) => a.generationId - b.generationId);
    return this.record;
  }
}
