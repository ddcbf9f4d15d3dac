import { MinCostFlow } from '../../../src/core/structures/min-cost-flow.js';

describe('MinCostFlow', () => {
  it('sends the most it can, over the cheapest edges first', () => {
    // source 0, sink 3; via 1 is cheap but narrow, via 2 dear but wide.
    const flow = new MinCostFlow(4, 4);
    const cheapIn = flow.addEdge(0, 1, 3, 1);
    const dearIn = flow.addEdge(0, 2, 3, 5);
    const cheapOut = flow.addEdge(1, 3, 2, 0);
    const dearOut = flow.addEdge(2, 3, 5, 0);
    expect(flow.run(0, 3)).toBe(5);
    expect([...flow.flowsOn(Int32Array.of(cheapIn, dearIn, cheapOut, dearOut))]).toEqual([2, 3, 2, 3]);
  });

  it('reroutes an earlier path through its residual edge when that is cheaper overall', () => {
    // The first cheapest path takes a→c; the second unit can only reach the sink by pushing a
    // over to d (cost 1), which is the optimum: total cost 1, not infeasible.
    const [s, a, b, c, d, t] = [0, 1, 2, 3, 4, 5];
    const flow = new MinCostFlow(6, 7);
    flow.addEdge(s, a, 1, 0);
    flow.addEdge(s, b, 1, 0);
    const ac = flow.addEdge(a, c, 1, 0);
    const ad = flow.addEdge(a, d, 1, 1);
    const bc = flow.addEdge(b, c, 1, 0);
    flow.addEdge(c, t, 1, 0);
    flow.addEdge(d, t, 1, 0);
    expect(flow.run(s, t)).toBe(2);
    expect([...flow.flowsOn(Int32Array.of(ac, ad, bc, -1))]).toEqual([0, 1, 1, 0]);
  });

  it('keeps amounts aggregated: a million units in a few rounds', () => {
    const flow = new MinCostFlow(3, 2);
    flow.addEdge(0, 1, 1_000_000, 2);
    const out = flow.addEdge(1, 2, 750_000, 0);
    expect(flow.run(0, 2)).toBe(750_000);
    expect(flow.flowsOn(Int32Array.of(out))[0]).toBe(750_000);
  });

  it('refuses more edges than it was made for', () => {
    const flow = new MinCostFlow(2, 1);
    flow.addEdge(0, 1, 1, 0);
    expect(() => flow.addEdge(0, 1, 1, 0)).toThrow(RangeError);
  });
});
