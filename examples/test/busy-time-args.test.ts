import { DemoUsageError } from '../demo/options';
import { parseBusyTimeArgs } from '../demo/busy-time';

describe('parseBusyTimeArgs', () => {
  it('defaults to seed 1, 20 s windows and a local broker', () => {
    expect(parseBusyTimeArgs(['--busy-time'])).toEqual({ brokers: undefined, seed: 1, windowSeconds: 20 });
  });

  it('reads brokers, seed and window', () => {
    expect(
      parseBusyTimeArgs(['--busy-time', '--brokers', 'a:9092, b:9092', '--seed', '7', '--window-seconds', '30']),
    ).toEqual({ brokers: ['a:9092', 'b:9092'], seed: 7, windowSeconds: 30 });
  });

  it('answers help for --help', () => {
    expect(parseBusyTimeArgs(['--busy-time', '--help'])).toBe('help');
  });

  it('names an unknown flag, a missing value and a value out of range', () => {
    expect(() => parseBusyTimeArgs(['--phase-seconds', '10'])).toThrow(DemoUsageError);
    expect(() => parseBusyTimeArgs(['--seed'])).toThrow(/--seed: expected a value/);
    expect(() => parseBusyTimeArgs(['--window-seconds', '2'])).toThrow(/--window-seconds 2: expected an integer/);
  });
});
