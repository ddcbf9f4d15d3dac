import { withTopics, type BalanceModel, type TopicSubscribers } from '../model/model.js';
import type { RackModel } from './rack-model.js';

/** Above this many (topic, rack set) keys the pairs are numbered through a map. */
const DENSE_KEYS = 1 << 16;

/**
 * The instance-level problem with racks as eligibility: each partition may go only to its topic's subscribers
 * in a rack holding one of its replicas, or without a rack. A partition with no such subscriber, or marked in
 * `free` (let go by an over-full rack, racks/spill.ts), keeps all of them.
 *
 * A model whose "topics" are (topic, rack set) pairs, so the load search solves it as it does restricted
 * subscriptions. Pairs with equal in-rack subscribers share one array, which the search groups by reference.
 */
export function inRackModel(model: BalanceModel, rm: RackModel, free?: Uint8Array): BalanceModel {
  const width = rm.racks.length;
  const pairOf = new Map<number, number>();
  const subscribersOf: Array<TopicSubscribers | undefined> = [];
  const names: string[] = [];
  // (subscribers array, rack set) -> in-rack subscribers, so equal eligibility shares an array.
  const filtered = new Map<Int32Array, Map<number, TopicSubscribers>>();
  const topicOf = new Int32Array(model.partitionCount);
  // Pair numbers by key in a table when there are few keys (-1 until numbered), else the map.
  const keys = model.topics.length * (rm.setCount + 1);
  const dense = keys <= DENSE_KEYS ? new Int32Array(keys).fill(-1) : undefined;
  for (let p = 0; p < model.partitionCount; p++) {
    const t = model.topicOf[p]!;
    const set = free?.[p] === 1 ? -1 : rm.setOf[p]!;
    const key = t * (rm.setCount + 1) + (set + 1);
    let pair = dense === undefined ? pairOf.get(key) : dense[key]! < 0 ? undefined : dense[key];
    if (pair === undefined) {
      pair = subscribersOf.length;
      pairOf.set(key, pair);
      if (dense !== undefined) dense[key] = pair;
      names.push(model.topics[t]!);
      const all = model.subscribersOf[t]!;
      let bySet = filtered.get(all.instances);
      if (bySet === undefined) filtered.set(all.instances, (bySet = new Map<number, TopicSubscribers>()));
      let subs = bySet.get(set);
      if (subs === undefined) {
        subs = set < 0 ? all : inRack(all, rm, set, width);
        bySet.set(set, subs);
      }
      subscribersOf.push(subs);
    }
    topicOf[p] = pair;
  }
  return withTopics(model, names, topicOf, subscribersOf);
}

/** The subscribers in a rack of `set` or without a rack; all of them when there is none. */
function inRack(all: TopicSubscribers, rm: RackModel, set: number, width: number): TopicSubscribers {
  const keep: number[] = [];
  for (let k = 0; k < all.instances.length; k++) {
    const rack = rm.instanceRack[all.instances[k]!]!;
    if (rack < 0 || rm.local[set * width + rack] === 1) keep.push(k);
  }
  if (keep.length === 0 || keep.length === all.instances.length) return all;
  return {
    instances: Int32Array.from(keep, (k) => all.instances[k]!),
    membersByInstance: keep.map((k) => all.membersByInstance[k]!),
  };
}
