/**
 * Work a reader started and may have stopped waiting for. A timeout abandons a request, but the
 * request keeps running; closing the client under it would let a KafkaJS retry reconnect after
 * the disconnect, so `close()` first waits for everything still in flight.
 */
export class InflightWork {
  private readonly pending = new Set<Promise<unknown>>();

  /** Tracks `work` until it settles and returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    const forget = (): void => {
      this.pending.delete(work);
    };
    work.then(forget, forget);
    return work;
  }

  /** Resolves once everything tracked so far has settled, fulfilled or rejected. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }
}
