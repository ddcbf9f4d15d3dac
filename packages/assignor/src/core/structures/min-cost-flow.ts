/**
 * A minimum-cost flow on a small graph of aggregated amounts, by the primal-dual method
 * ({@link MinCostFlow.run}). Capacities and costs must be non-negative integers whose totals stay below 2^53;
 * with no negative cycle at the start, none ever appears.
 */
export class MinCostFlow {
  private readonly head: Int32Array;
  private readonly to: Int32Array;
  private readonly next: Int32Array;
  private readonly capacity: Float64Array;
  private readonly cost: Float64Array;
  private arcs = 0;

  /** An empty graph on nodes `0 … nodeCount − 1`, with room for `maxEdges` edges. */
  constructor(
    private readonly nodeCount: number,
    maxEdges: number,
  ) {
    this.head = new Int32Array(nodeCount).fill(-1);
    // Each edge is two arcs: itself and its residual reverse.
    this.to = new Int32Array(2 * maxEdges);
    this.next = new Int32Array(2 * maxEdges);
    this.capacity = new Float64Array(2 * maxEdges);
    this.cost = new Float64Array(2 * maxEdges);
  }

  /** Adds an edge and returns its id, for {@link flowsOn}; zero capacities too, so ids do not depend on amounts. */
  addEdge(from: number, to: number, capacity: number, cost: number): number {
    if (this.arcs + 2 > this.to.length) throw new RangeError('MinCostFlow: more edges than it was made for');
    const id = this.arcs;
    this.link(from, to, capacity, cost);
    this.link(to, from, 0, -cost);
    return id;
  }

  /** The flow the last {@link run} put on each edge of `ids`; 0 where an id is negative (no edge). */
  flowsOn(ids: Int32Array): Float64Array {
    const flows = new Float64Array(ids.length);
    for (let k = 0; k < ids.length; k++) if (ids[k]! >= 0) flows[k] = this.capacity[ids[k]! + 1]!;
    return flows;
  }

  /**
   * Sends as much flow as possible from `source` to `sink` at the least cost; returns the amount. Finds the
   * cheapest residual path cost, saturates every path of that cost at once (a blocking flow, as in Dinic's),
   * and repeats: costs are small integers, so rounds are few.
   */
  run(source: number, sink: number): number {
    const distance = new Float64Array(this.nodeCount);
    let total = 0;
    for (;;) {
      this.cheapestCosts(source, distance);
      if (distance[sink] === Number.POSITIVE_INFINITY) return total;
      total += this.saturateCheapest(source, sink, distance);
    }
  }

  /** Cheapest residual cost from `source` to every node (Bellman-Ford over a queue). */
  private cheapestCosts(source: number, distance: Float64Array): void {
    const n = this.nodeCount;
    const queued = new Uint8Array(n);
    const queue = new Int32Array(n);
    distance.fill(Number.POSITIVE_INFINITY);
    distance[source] = 0;
    // A ring buffer: a node is in the queue at most once, so n slots suffice.
    let first = 0;
    let size = 1;
    queue[0] = source;
    queued[source] = 1;
    while (size > 0) {
      const u = queue[first]!;
      first = (first + 1) % n;
      size--;
      queued[u] = 0;
      for (let e = this.head[u]!; e >= 0; e = this.next[e]!) {
        if (this.capacity[e]! <= 0) continue;
        const v = this.to[e]!;
        const d = distance[u]! + this.cost[e]!;
        if (d >= distance[v]!) continue;
        distance[v] = d;
        if (queued[v] === 0) {
          queue[(first + size) % n] = v;
          size++;
          queued[v] = 1;
        }
      }
    }
  }

  /** A maximal flow over the edges on cheapest paths (`distance[u] + cost = distance[v]`), Dinic-style. */
  private saturateCheapest(source: number, sink: number, distance: Float64Array): number {
    const n = this.nodeCount;
    const tight = (e: number, u: number): boolean =>
      this.capacity[e]! > 0 && distance[u]! + this.cost[e]! === distance[this.to[e]!]!;
    const level = new Int32Array(n);
    const queue = new Int32Array(n);
    const current = new Int32Array(n);
    let total = 0;
    for (;;) {
      level.fill(-1);
      level[source] = 0;
      let tail = 0;
      queue[tail++] = source;
      for (let k = 0; k < tail; k++) {
        const u = queue[k]!;
        for (let e = this.head[u]!; e >= 0; e = this.next[e]!) {
          const v = this.to[e]!;
          if (level[v]! < 0 && tight(e, u)) {
            level[v] = level[u]! + 1;
            queue[tail++] = v;
          }
        }
      }
      if (level[sink]! < 0) return total;
      for (let u = 0; u < n; u++) current[u] = this.head[u]!;
      for (;;) {
        const pushed = this.augment(source, sink, Number.POSITIVE_INFINITY, level, current, tight);
        if (pushed === 0) break;
        total += pushed;
      }
    }
  }

  /** One augmenting path of the level graph from `u`, at most `limit`; returns what it pushed. */
  private augment(
    u: number,
    sink: number,
    limit: number,
    level: Int32Array,
    current: Int32Array,
    tight: (e: number, u: number) => boolean,
  ): number {
    if (u === sink) return limit;
    for (; current[u]! >= 0; current[u] = this.next[current[u]!]!) {
      const e = current[u]!;
      const v = this.to[e]!;
      if (level[v] !== level[u]! + 1 || !tight(e, u)) continue;
      const pushed = this.augment(v, sink, Math.min(limit, this.capacity[e]!), level, current, tight);
      if (pushed > 0) {
        this.capacity[e] = this.capacity[e]! - pushed;
        this.capacity[e ^ 1] = this.capacity[e ^ 1]! + pushed;
        return pushed;
      }
    }
    return 0;
  }

  private link(from: number, to: number, capacity: number, cost: number): void {
    const arc = this.arcs++;
    this.to[arc] = to;
    this.capacity[arc] = capacity;
    this.cost[arc] = cost;
    this.next[arc] = this.head[from]!;
    this.head[from] = arc;
  }
}
