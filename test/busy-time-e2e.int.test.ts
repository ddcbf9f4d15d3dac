/**
 * Issue 16's target on a real broker and a real Prometheus: with per-partition costs 10× apart
 * and rates that do not follow them, busy-time weights keep the busiest instance within 1.15 of
 * its fair share of busy time, where offset-rate weights cannot. The scenario and its three
 * phases (round-robin, offset-rate, busy-time) are in support/busy-time-scenario.ts, shared with
 * `npm run demo -- --busy-time`; this test prints their table and checks the target.
 */
import { kafkaBrokersFromEnv } from './support';
import { formatBusyTimeComparison, runBusyTimeComparison } from './support/busy-time-scenario';
import { describeWithServers } from './support/prometheus-process';
import { PROMETHEUS } from './support/prometheus-server';

/** The seed of the cost map and the rates: the first one tried, not a picked one. */
const SEED = 1;

describeWithServers([PROMETHEUS], 'busy-time weights on a real broker and a real Prometheus', () => {
  it('balances busy time within 1.15 of the fair share where offset-rate weights cannot', async () => {
    const result = await runBusyTimeComparison({ brokers: kafkaBrokersFromEnv(), seed: SEED });
    process.stdout.write(`${formatBusyTimeComparison(result)}\n`);

    const byName = new Map(result.phases.map((p) => [p.name, p]));
    const byBusy = byName.get('busy-time')!;
    const byRate = byName.get('offset-rate')!;
    expect(byBusy.busiestRatio).toBeLessThanOrEqual(1.15);
    expect(byRate.busiestRatio).toBeGreaterThan(byBusy.busiestRatio);
    // Costs really are about 10× apart as the handlers measured them: timer sleeps run a little
    // long, the short ones proportionally more on a loaded machine (9–10× seen alone; beside other
    // files at load 10-20 the 2 ms sleeps measured 3.6-5 ms, so 23 vs 2 ms read as 5.0-6.7×).
    // The overrun is the machine's timer latency, not the product: the bound is 4.5×, still far
    // from the 1× that would mean the costs do not differ.
    const measured = result.measuredMs.filter((ms) => ms > 0);
    expect(Math.max(...measured) / Math.min(...measured)).toBeGreaterThan(4.5);
  }, 300_000);
});
