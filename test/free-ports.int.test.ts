import { findFreePorts, sliceFor } from './support/free-ports';

/**
 * The test harness's port draws: lanes and jest workers running side by side draw from disjoint
 * slices, and one process never hands out a port twice. CI once failed when a broker, restarted on
 * its old port, found it taken by another lane's broker drawn from the same band.
 */
describe('findFreePorts', () => {
  const band = { from: 20_768, to: 32_768 };

  it('gives every lane and worker a slice of its own inside the band', () => {
    const slices = [];
    for (let lane = 0; lane < 4; lane += 1) {
      for (let worker = 0; worker < 8; worker += 1) {
        slices.push(
          sliceFor(band, {
            LOAD_AWARE_PORT_LANE: String(lane),
            ...(worker > 0 ? { JEST_WORKER_ID: String(worker) } : {}),
          }),
        );
      }
    }
    const sorted = [...slices].sort((a, b) => a.from - b.from);
    expect(sorted[0]!.from).toBe(band.from);
    expect(sorted.at(-1)!.to).toBeLessThanOrEqual(band.to);
    for (let i = 1; i < sorted.length; i += 1) {
      expect(sorted[i]!.from).toBeGreaterThanOrEqual(sorted[i - 1]!.to);
      expect(sorted[i]!.to - sorted[i]!.from).toBeGreaterThanOrEqual(300);
    }
  });

  it("falls back to lane 0 and the main process's slot when the variables are missing or garbage", () => {
    const first = sliceFor(band, {});
    expect(sliceFor(band, { LOAD_AWARE_PORT_LANE: 'x', JEST_WORKER_ID: '-3' })).toEqual(first);
    expect(sliceFor(band, { JEST_WORKER_ID: '1' }).from).toBe(first.to);
    expect(first.from).toBe(band.from);
  });

  it('draws ports from its own slice and never hands one out twice', async () => {
    const first = await findFreePorts(20);
    const second = await findFreePorts(20);
    const all = [...first, ...second];
    expect(new Set(all).size).toBe(40);
    const range = await import('node:fs').then(({ readFileSync }) =>
      Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]),
    );
    const own = sliceFor({ from: Math.max(1024, range - 12_000), to: range }, process.env);
    for (const port of all) {
      expect(port).toBeGreaterThanOrEqual(own.from);
      expect(port).toBeLessThan(own.to);
    }
  });
});
