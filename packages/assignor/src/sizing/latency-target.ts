/**
 * The utilization a latency SLA allows: how busy a member may run and still finish a given share
 * of its messages within the SLA of their arrival.
 *
 * A member is a queue. Messages arrive at its partitions' rates and wait for a free handler slot.
 * Kingman's heavy-traffic approximation for a queue with general arrivals and work (GI/G/1) says a
 * message finds the handler free with probability 1 − ρ (ρ the utilization) and otherwise waits
 * about exponentially long, with mean `s·v ÷ (2(1 − ρ))`: `s` the work one message costs and `v`
 * the variability, ca² + cs² (the squared coefficients of variation of the gaps between arrivals
 * and of the work). So
 *
 *     P(wait > t) ≈ ρ · exp(−2(1 − ρ)·t ÷ (s·v))
 *
 * which is exact for Poisson arrivals and exponential work (v = 2, the M/M/1 queue). A message
 * misses the SLA when its wait and its own work together exceed it, so the target is the largest ρ
 * with P(wait > sla − s) ≤ 1 − quantile. The left side grows with ρ, so one root, found by
 * bisection.
 *
 * With `slots` handlers working at once, the tail decays `slots` times faster (the queue drains
 * through all of them), while the chance of waiting at all is kept at ρ, above what `slots` servers
 * give (Erlang's C): the answer errs low, never high.
 *
 * What it leaves out: the time a message spends before the handler sees it (the produce, the
 * fetch). State the SLA less that transport time when it matters.
 */

/** The share of messages an SLA is held for, when not given: the p99. */
export const DEFAULT_SLA_QUANTILE = 0.99;

/**
 * ca² + cs² when not given: Poisson arrivals and work as variable as an exponential draw, the
 * M/M/1 queue. A handler of fixed cost on Poisson traffic is 1; bursty traffic is above 2.
 */
export const DEFAULT_VARIABILITY = 2;

/** What {@link utilizationForLatency} derives from. */
export interface LatencyTargetInput {
  /** The SLA: seconds from a message's arrival to its handler finishing it. */
  readonly slaSeconds: number;
  /** The share of messages the SLA holds for, in (0, 1); default {@link DEFAULT_SLA_QUANTILE}. */
  readonly quantile?: number;
  /** The work one message costs, seconds (busy time's busy seconds ÷ messages). */
  readonly secondsPerMessage: number;
  /** Handler slots of one member that work at once without slowing each other; default 1. */
  readonly slots?: number;
  /** ca² + cs², see the file comment; default {@link DEFAULT_VARIABILITY}. */
  readonly variability?: number;
}

/** What {@link utilizationForLatency} answers: a target utilization, or why there is none. */
export type LatencyTarget =
  | {
      readonly ok: true;
      /** The largest share of a member's capacity that holds the SLA, in (0, 1). */
      readonly utilization: number;
    }
  | {
      readonly ok: false;
      /** One message's work alone takes the SLA or longer: no utilization holds it. */
      readonly problem: 'sla_below_work';
      /** The problem in words, for a log line. */
      readonly reason: string;
    };

/** Bisection steps: each halves the interval, so 60 reach below a double's resolution at 1. */
const BISECTION_STEPS = 60;

/**
 * The largest utilization at which a member holds the latency SLA (see the file comment).
 * Measured figures never throw: a message costing the SLA or more is answered as a problem.
 *
 * @throws RangeError when `slaSeconds` is not positive and finite, `quantile` is outside (0, 1),
 * `slots` is not a positive integer, `variability` is not positive and finite, or
 * `secondsPerMessage` is not positive and finite.
 */
export function utilizationForLatency(input: LatencyTargetInput): LatencyTarget {
  const quantile = input.quantile ?? DEFAULT_SLA_QUANTILE;
  const slots = input.slots ?? 1;
  const variability = input.variability ?? DEFAULT_VARIABILITY;
  const work = input.secondsPerMessage;
  const sla = input.slaSeconds;
  if (!(Number.isFinite(sla) && sla > 0))
    throw new RangeError(`slaSeconds must be a positive number, got ${String(sla)}`);
  if (!(quantile > 0 && quantile < 1)) throw new RangeError(`quantile must be in (0, 1), got ${String(quantile)}`);
  if (!(Number.isInteger(slots) && slots >= 1))
    throw new RangeError(`slots must be a positive integer, got ${String(slots)}`);
  if (!(Number.isFinite(variability) && variability > 0)) {
    throw new RangeError(`variability must be a positive number, got ${String(variability)}`);
  }
  if (!(Number.isFinite(work) && work > 0)) {
    throw new RangeError(`secondsPerMessage must be a positive number, got ${String(work)}`);
  }
  const waitBudget = sla - work;
  if (!(waitBudget > 0)) {
    return {
      ok: false,
      problem: 'sla_below_work',
      // Three significant digits: the reason is read in a log line, not computed with.
      reason: `one message's work (${String(Number(work.toPrecision(3)))} s) alone takes the ${String(sla)} s SLA or longer`,
    };
  }
  // In logs, so that budgets of millions of messages' work neither overflow nor round to 1:
  // late(ρ) = ln ρ − decay·(1 − ρ) − ln(1 − quantile), increasing in ρ, below 0 where the SLA holds.
  const decay = (2 * slots * waitBudget) / (work * variability);
  const allowed = Math.log(1 - quantile);
  const late = (rho: number): number => Math.log(rho) - decay * (1 - rho) - allowed;
  let holds = 0;
  let fails = 1;
  for (let step = 0; step < BISECTION_STEPS; step++) {
    const middle = (holds + fails) / 2;
    if (late(middle) <= 0) holds = middle;
    else fails = middle;
  }
  return { ok: true, utilization: holds };
}
