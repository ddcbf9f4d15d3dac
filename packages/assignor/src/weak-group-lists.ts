/**
 * Values per group, each held weakly: an assigner keeps one entry per consumer it was given, and a
 * consumer that is dropped without disconnecting must not be kept alive by its assigner. Dead
 * entries are pruned whenever a group gains one, so a list stays the size of its live consumers.
 */
export class WeakGroupLists<T extends object> {
  private readonly lists = new Map<string, Array<WeakRef<T>>>();

  /** Adds `value` to `group`'s list, in order. */
  add(group: string, value: T): void {
    const kept = (this.lists.get(group) ?? []).filter((ref) => ref.deref() !== undefined);
    kept.push(new WeakRef(value));
    this.lists.set(group, kept);
  }

  /** The values of `group` still alive, in the order they were added. */
  live(group: string): T[] {
    return (this.lists.get(group) ?? []).flatMap((ref) => {
      const value = ref.deref();
      return value === undefined ? [] : [value];
    });
  }
}
