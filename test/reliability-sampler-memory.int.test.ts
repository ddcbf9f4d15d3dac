import { execFile } from 'node:child_process';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import type { MemoryRun } from './fixtures/reliability-sampler-memory';

/**
 * Memory stays flat over a long sampler run: 5000 samples of 2000 partitions through the real
 * offset-rate source (virtual clock, fast fake reader, an assignment's getWeights() every 50
 * samples), heap measured after a full GC in a child process run with --expose-gc. Once the rate
 * window is full (60 samples, thinned to at most 32 per partition), the heap must not grow with
 * the number of samples.
 */

/** The compiled fixture (`tsc -b` builds test/ into test/.build), from source or compiled alike. */
const SCRIPT =
  basename(__dirname) === '.build'
    ? join(__dirname, 'fixtures', 'reliability-sampler-memory.js')
    : join(__dirname, '.build', 'fixtures', 'reliability-sampler-memory.js');
const SAMPLES = 5000;
const PARTITIONS = 2000;

/** Least-squares slope of y over x. */
function slope(points: ReadonlyArray<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return num / den;
}

describe('offset-rate sampler memory over a long run', () => {
  it('does not grow per sample once the rate window is full', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', SCRIPT, JSON.stringify({ partitions: PARTITIONS, samples: SAMPLES, every: 250 })],
      { timeout: 240_000, maxBuffer: 1 << 20 },
    );
    const run = JSON.parse(stdout.trim()) as MemoryRun;
    expect(run.samples).toBe(SAMPLES);
    expect(run.weighed).toBe(PARTITIONS);
    // Warm-up: the first 500 samples fill every partition's window (60 s at one sample a second).
    const steady = run.heap.filter(([sample]) => sample >= 500);
    const heaps = steady.map(([, bytes]) => bytes);
    const growthPerSample = slope(steady);
    const spread = Math.max(...heaps) - Math.min(...heaps);
    const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(2);
    process.stdout.write(
      `sampler memory: ${String(SAMPLES)} samples x ${String(PARTITIONS)} partitions in ${(run.durationMs / 1000).toFixed(1)} s; ` +
        `heap after GC ${mb(heaps[0]!)} MB at sample 500 -> ${mb(heaps.at(-1)!)} MB at ${String(SAMPLES)}; ` +
        `spread ${mb(spread)} MB; slope ${growthPerSample.toFixed(1)} bytes/sample ` +
        `(${(growthPerSample / PARTITIONS).toFixed(3)} bytes/sample/partition)\n`,
    );
    // Flat: no trend (a leak of even one 8-byte slot per partition per sample would be 16 000 B/sample).
    expect(Math.abs(growthPerSample)).toBeLessThan(200);
    expect(spread).toBeLessThan(2 * 1024 * 1024);
  }, 300_000);
});
