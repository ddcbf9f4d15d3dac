import { performance } from 'node:perf_hooks';
import type { BusyClock } from './options.js';

/** Reads one clock, in seconds from an arbitrary origin. Tests pass fakes. */
export type SecondsClock = () => number;

/** The two clocks a recorder can measure with. */
export type Clocks = Readonly<Record<BusyClock, SecondsClock>>;

/** Monotonic wall time and the process's user + system CPU time. */
export const systemClocks: Clocks = Object.freeze({
  // performance.now(), not Date.now(): a wall-clock step (NTP, manual change) must not turn
  // into negative or huge busy time.
  wall: () => performance.now() / 1000,
  cpu: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  },
});
