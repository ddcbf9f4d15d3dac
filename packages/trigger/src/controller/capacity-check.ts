import { deriveMemberCapacity, errorMessageOf, type BusyTimeWindow, type Logger } from '@load-aware/assignor/internal';
import type { SizingSettings } from '../config/options.js';
import { figure } from '../contract/text.js';

/** The member capacity one sizing check used, and where it came from. */
export interface UsedCapacity {
  /** What one member processes at 100% busy, in the weights' units. */
  readonly memberCapacity: number;
  /** `stated`: `sizing.memberCapacity`; `derived`: from busy time (`sizing.measured`). */
  readonly source: CapacitySource;
  /** The measured seconds of work per message (derived capacities only), when busy time measured one. */
  readonly secondsPerMessage: number | undefined;
}

/** Where a member capacity came from: the values of the `source` label of `load_aware_member_capacity`. */
export const CAPACITY_SOURCES = ['stated', 'derived'] as const;

/** Where a member capacity came from. */
export type CapacitySource = (typeof CAPACITY_SOURCES)[number];

/** Where a capacity check's answer goes: the gauge. */
export interface CapacitySink {
  memberCapacity(group: string, used: UsedCapacity): void;
}

/**
 * How many checks back the measured window reaches: at the default 30 s interval, 5 minutes, long
 * enough that a quiet spell does not leave a handful of messages to set the capacity, short enough
 * that a handler that got slower (a dependency degraded) shows within minutes.
 */
export const CAPACITY_WINDOW_CHECKS = 10;

/** A derived capacity is logged again when it moved this much (either way) since it last was. */
const RELOG_CHANGE = 0.2;

/**
 * Creates the capacity check of one controller: at each sizing check, the member capacity to size
 * with. A stated `memberCapacity` always wins. Otherwise it is derived from busy time
 * (`deriveMemberCapacity`) over the growth of the recorder's totals in the last
 * {@link CAPACITY_WINDOW_CHECKS} checks (since the process started, for the first ones).
 *
 * Measurement is never trusted blindly: a window without handled messages keeps the last derived
 * capacity (an idle handler costs what it did); figures no capacity follows from (NaN, negative,
 * messages in no time, a recorder that throws) keep it too, with a WARN per streak. Before any
 * capacity exists the answer is undefined, with a WARN per streak: the group is not sized rather
 * than sized at a guess.
 */
export function createCapacityCheck(settings: SizingSettings, sink: CapacitySink) {
  // Snapshots of the totals at the last checks, oldest first (the process start counts as zero):
  // a check measures the growth since the oldest, over CAPACITY_WINDOW_CHECKS check intervals.
  const snapshots: BusyTimeWindow[] = [{ busySeconds: 0, messages: 0 }];
  let last: UsedCapacity | undefined;
  let logged: UsedCapacity | undefined;
  let warning = false;

  const read = (): BusyTimeWindow | string => {
    const source = settings.measured?.busyTime;
    if (source === undefined) return { busySeconds: 0, messages: 0 };
    try {
      const { busySeconds, messages } = source.totals();
      return { busySeconds, messages };
    } catch (err) {
      return `the busy-time recorder's totals() threw: ${errorMessageOf(err)}`;
    }
  };

  const publish = (group: string, used: UsedCapacity, logger: Logger): UsedCapacity => {
    // After a streak of bad readings that kept an older capacity, say the streak is over; a first
    // capacity is announced by its own line below.
    if (warning && last !== undefined) {
      logger.info({ memberCapacity: used.memberCapacity }, 'member capacity derived again from busy time');
    }
    warning = false;
    last = used;
    sink.memberCapacity(group, used);
    if (materiallyNew(logged, used)) {
      logged = used;
      logCapacity(logger, used, settings);
    }
    return used;
  };

  return (group: string, logger: Logger): UsedCapacity | undefined => {
    if (settings.memberCapacity !== undefined) {
      return publish(
        group,
        { memberCapacity: settings.memberCapacity, source: 'stated', secondsPerMessage: undefined },
        logger,
      );
    }
    const measured = settings.measured;
    if (measured === undefined) return undefined;

    const now = read();
    let window: BusyTimeWindow | undefined;
    if (typeof now !== 'string') {
      const oldest = snapshots[0]!;
      window = { busySeconds: now.busySeconds - oldest.busySeconds, messages: now.messages - oldest.messages };
      // Only usable totals join the window: one NaN would spoil every window it is part of.
      if (Number.isFinite(now.busySeconds) && Number.isFinite(now.messages)) {
        snapshots.push(now);
        if (snapshots.length > CAPACITY_WINDOW_CHECKS) snapshots.shift();
      }
    }
    const derived =
      typeof now === 'string'
        ? ({ ok: false, problem: 'invalid_samples', reason: now } as const)
        : deriveMemberCapacity({ weights: measured.weightUnits, slots: measured.slots, measured: window });
    if (derived.ok) {
      return publish(
        group,
        {
          memberCapacity: derived.memberCapacity,
          source: 'derived',
          // Busy-time weights need no messages for their capacity; a window without any keeps the
          // work a message last cost (a latency SLA's target derives from it).
          secondsPerMessage: derived.secondsPerMessage ?? last?.secondsPerMessage,
        },
        logger,
      );
    }
    // An idle spell says nothing new about the handler: the capacity it last measured stands.
    if (derived.problem === 'no_samples' && last !== undefined) {
      logger.debug({ memberCapacity: last.memberCapacity }, `member capacity kept: ${derived.reason}`);
      sink.memberCapacity(group, last);
      return last;
    }
    if (!warning) {
      warning = true;
      const consequence =
        last === undefined
          ? 'the group is not sized until the handler has measured messages (or state sizing.memberCapacity)'
          : `sizing keeps the last derived capacity, ${figure(last.memberCapacity)}`;
      logger.warn(
        { problem: derived.problem, memberCapacity: last?.memberCapacity },
        `member capacity not derived: ${derived.reason}; ${consequence}`,
      );
    } else {
      logger.debug({ problem: derived.problem }, `member capacity still not derived: ${derived.reason}`);
    }
    if (last !== undefined) sink.memberCapacity(group, last);
    return last;
  };
}

/** True on the first capacity, a change of source, or a derived one that moved by {@link RELOG_CHANGE}. */
function materiallyNew(before: UsedCapacity | undefined, now: UsedCapacity): boolean {
  if (before === undefined || before.source !== now.source) return true;
  const ratio = now.memberCapacity / before.memberCapacity;
  return ratio >= 1 + RELOG_CHANGE || ratio <= 1 / (1 + RELOG_CHANGE);
}

function logCapacity(logger: Logger, used: UsedCapacity, settings: SizingSettings): void {
  const fields = {
    memberCapacity: used.memberCapacity,
    capacitySource: used.source,
    secondsPerMessage: used.secondsPerMessage,
    slots: settings.measured?.slots,
    weightUnits: settings.measured?.weightUnits,
  };
  let how: string;
  if (used.source === 'stated') how = 'as stated (sizing.memberCapacity)';
  else if (settings.measured?.weightUnits === 'busy' || used.secondsPerMessage === undefined) {
    how = `derived: busy-time weights, ${String(settings.measured?.slots)} busy second(s) per second`;
  } else {
    how =
      `derived from busy time: ${figure(used.secondsPerMessage * 1000)} ms of work a message, ` +
      `${String(settings.measured?.slots)} slot(s)`;
  }
  logger.info(fields, `member capacity: ${figure(used.memberCapacity)} per member at 100%, ${how}`);
}
