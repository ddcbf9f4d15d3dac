/**
 * A member's capacity from measurement: the rate at which it can process, in the weights' units.
 *
 * Busy time (`@load-aware/busy-time`) counts, per partition, the wall seconds a handler ran and the
 * messages it finished. Over a window, busy seconds ÷ messages is the work one message costs, `s`.
 * A handler slot (KafkaJS runs one partition's handler at a time per slot; `n` slots with
 * `partitionsConsumedConcurrently: n`) busy one second per second processes 1 ÷ `s` messages a
 * second, so:
 *
 * - weights in events/s (offset rates, a records-rate query): capacity = slots ÷ `s`;
 * - weights in busy seconds per second (busy time, a blend of it): capacity = slots, whatever `s`,
 *   since a slot is busy at most one second per second.
 *
 * A member's slots only add up when its handlers overlap without slowing each other (awaited I/O);
 * a CPU-bound handler shares one event loop, so it has one slot however many KafkaJS runs.
 */

/** What the weights the group is sized on measure. */
export type SizingWeightUnits = 'events' | 'busy';

/** Busy time over a window: what {@link deriveMemberCapacity} derives from. */
export interface BusyTimeWindow {
  /** Handler seconds spent in the window, failed attempts included (a retry costs its time too). */
  readonly busySeconds: number;
  /** Messages the handler finished in the window. */
  readonly messages: number;
}

/** What {@link deriveMemberCapacity} derives from. */
export interface CapacityDerivationInput {
  /** The units of the weights the group is sized on. */
  readonly weights: SizingWeightUnits;
  /** Handler slots of one member that run at once without slowing each other; default 1. */
  readonly slots?: number;
  /** Busy time over a recent window; needed with `weights: 'events'`, unused with `'busy'`. */
  readonly measured?: BusyTimeWindow | undefined;
}

/** Why a capacity could not be derived. */
export type CapacityProblem = 'no_samples' | 'invalid_samples';

/** What {@link deriveMemberCapacity} answers: a capacity, or why there is none. */
export type CapacityDerivation =
  | {
      readonly ok: true;
      /** What one member processes at 100% busy, in the weights' units. */
      readonly memberCapacity: number;
      /** The measured seconds of work per message; undefined when the window measured none. */
      readonly secondsPerMessage: number | undefined;
    }
  | {
      readonly ok: false;
      /** `no_samples`: no message finished in the window; `invalid_samples`: figures no capacity follows from. */
      readonly problem: CapacityProblem;
      /** The problem in words, for a log line. */
      readonly reason: string;
    };

/**
 * A member's capacity in the weights' units, derived from measured busy time (see the file
 * comment). Never throws on measured figures: a window without messages, or with figures that are
 * not finite, negative, or messages done in no time at all (an infinite capacity), is answered as
 * a problem for the caller to report.
 *
 * @throws RangeError when `slots` is not a positive integer (a configuration error).
 */
export function deriveMemberCapacity(input: CapacityDerivationInput): CapacityDerivation {
  const slots = input.slots ?? 1;
  if (!(Number.isInteger(slots) && slots >= 1)) {
    throw new RangeError(`slots must be a positive integer, got ${String(slots)}`);
  }
  const measured = input.measured;
  if (input.weights === 'busy') {
    // The capacity needs no measurement; the work a message costs is still told when measured
    // (a latency SLA's target is derived from it).
    const usable =
      measured !== undefined &&
      Number.isFinite(measured.busySeconds) &&
      Number.isFinite(measured.messages) &&
      measured.busySeconds > 0 &&
      measured.messages > 0;
    return {
      ok: true,
      memberCapacity: slots,
      secondsPerMessage: usable ? measured.busySeconds / measured.messages : undefined,
    };
  }

  if (measured === undefined) return problem('no_samples', 'no busy time measured yet');
  const { busySeconds, messages } = measured;
  if (!Number.isFinite(busySeconds) || !Number.isFinite(messages) || busySeconds < 0 || messages < 0) {
    return problem(
      'invalid_samples',
      `busy time is not a usable measurement (${String(busySeconds)} s over ${String(messages)} messages)`,
    );
  }
  if (messages === 0) return problem('no_samples', 'no message handled in the window');
  if (busySeconds === 0) {
    return problem(
      'invalid_samples',
      `${String(messages)} messages handled in no measurable time: a capacity would be infinite`,
    );
  }
  const secondsPerMessage = busySeconds / messages;
  return { ok: true, memberCapacity: slots / secondsPerMessage, secondsPerMessage };
}

function problem(kind: CapacityProblem, reason: string): CapacityDerivation {
  return { ok: false, problem: kind, reason };
}
