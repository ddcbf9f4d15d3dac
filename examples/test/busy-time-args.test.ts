import { DemoUsageError } from '../demo/options';
import { parseBusyTimeArgs } from '../demo/busy-time';

const now = new Date('2025-03-04T05:06:07.890Z');

describe('parseBusyTimeArgs', () => {
  it('defaults to seed 1, 20 s windows, a local broker and a timestamped output folder', () => {
    expect(parseBusyTimeArgs(['--busy-time'], now)).toEqual({
      brokers: undefined,
      seed: 1,
      windowSeconds: 20,
      outDir: 'out/busy-time-2025-03-04_05-06-07',
    });
  });

  it('reads brokers, seed, window and output folder', () => {
    expect(
      parseBusyTimeArgs(
        ['--busy-time', '--brokers', 'a:9092, b:9092', '--seed', '7', '--window-seconds', '30', '--out', 'runs/bt'],
        now,
      ),
    ).toEqual({ brokers: ['a:9092', 'b:9092'], seed: 7, windowSeconds: 30, outDir: 'runs/bt' });
  });

  it('answers help for --help', () => {
    expect(parseBusyTimeArgs(['--busy-time', '--help'])).toBe('help');
  });

  it('names an unknown flag, a missing value and a value out of range', () => {
    expect(() => parseBusyTimeArgs(['--phase-seconds', '10'])).toThrow(DemoUsageError);
    expect(() => parseBusyTimeArgs(['--seed'])).toThrow(/--seed: expected a value/);
    expect(() => parseBusyTimeArgs(['--window-seconds', '2'])).toThrow(/--window-seconds 2: expected an integer/);
    expect(() => parseBusyTimeArgs(['--out'])).toThrow(/--out: expected a value/);
  });
});
