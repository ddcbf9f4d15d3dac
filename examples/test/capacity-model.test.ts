import { defaultOptions } from '../demo/options.js';
import { capacityModel } from '../demo/sustainable.js';

describe('capacityModel', () => {
  it("is the demo's nominal capacity, capped by the member that holds the hottest partition", () => {
    const m = capacityModel(defaultOptions());
    expect(m.memberRate).toBeCloseTo(1000 / 2.05, 6);
    expect(m.members).toBe(6);
    expect(m.groupRate).toBeCloseTo(2927, 0);
    expect(m.hottestShare).toBeCloseTo(0.1983, 3);
    expect(m.ceiling).toBeCloseTo(m.memberRate / m.hottestShare, 6);
  });

  it('is the group capacity when no partition is hotter than a member can take', () => {
    const m = capacityModel({ ...defaultOptions(), zipfExponent: 0 });
    expect(m.ceiling).toBeCloseTo(m.groupRate, 6);
  });
});
