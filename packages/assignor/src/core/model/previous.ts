import type { BalanceInput } from '../types.js';
import type { BalanceModel } from './model.js';
import { compareStrings, sortedIndexOf } from '../structures/order.js';
import { hasInstance } from './subscribers.js';

/** The usable part of `BalanceInput.previous`, per partition of the model. */
export interface PreviousOwners {
  /** Member index of the previous owner when it is still a member subscribed to the topic, else -1. */
  readonly member: Int32Array;
  /**
   * Instance the partition would rather stay on: its valid owner's, or the recorded instance of
   * an owner that left when that instance is still present and may take the topic; else -1.
   */
  readonly instance: Int32Array;
  /** 1 when `previous` names an owner for the partition (valid or not). */
  readonly listed: Uint8Array;
}

/**
 * Reads `previous` defensively: members may have left, topics been unsubscribed or deleted, a partition be
 * listed under two members. Such entries are dropped, never an error. Of two claims, a still-valid owner
 * beats one that left, then the smaller member id wins, so the map's order cannot matter.
 */
export function resolvePrevious(model: BalanceModel, input: BalanceInput): PreviousOwners {
  const count = model.partitionCount;
  const member = new Int32Array(count).fill(-1);
  const instance = new Int32Array(count).fill(-1);
  const listed = new Uint8Array(count);
  const previous = input.previous;
  if (previous === undefined || previous.size === 0) return { member, instance, listed };

  const lookup = createPartitionLookup(model);
  const memberIndex = new Map(model.memberIds.map((id, m) => [id, m]));
  const instanceIndex = new Map(model.instanceIds.map((id, i) => [id, i]));
  const owners = [...previous.keys()].sort(compareStrings);
  for (const owner of owners) {
    const m = memberIndex.get(owner);
    const recorded = m === undefined ? input.previousInstances?.get(owner) : undefined;
    const departedInstance = recorded === undefined ? -1 : (instanceIndex.get(recorded) ?? -1);
    // Whether the owner may keep, or its instance take, the current topic: asked once per run of a topic.
    let topic = -1;
    let keeps = false;
    let takes = false;
    for (const tp of previous.get(owner) ?? []) {
      const p = lookup(tp.topic, tp.partition);
      if (p < 0) continue;
      listed[p] = 1;
      if (member[p]! >= 0) continue; // an earlier valid claim wins
      if (model.topicOf[p] !== topic) {
        topic = model.topicOf[p]!;
        keeps = m !== undefined && isSubscribed(model, m, p);
        takes = departedInstance >= 0 && hasInstance(model.subscribersOf[model.topicOf[p]!]!, departedInstance);
      }
      if (keeps) {
        member[p] = m!;
        instance[p] = model.memberInstance[m!]!;
      } else if (instance[p]! < 0 && takes) {
        instance[p] = departedInstance;
      }
    }
  }
  return { member, instance, listed };
}

/**
 * The model index of a placeable partition, or -1. A topic whose partitions are numbered 0..n-1
 * (the usual case) is looked up by position; any other gets a map the first time it is asked.
 */
function createPartitionLookup(model: BalanceModel): (topic: string, partition: number) => number {
  const byTopic: Array<Map<number, number> | undefined> = [];
  const dense = new Int8Array(model.topics.length); // 0 unknown, 1 dense, -1 map
  // An owner's list usually holds runs of one topic: compare with the last one before hashing.
  let lastTopic = '';
  let last: number | undefined;
  return (topic, partition) => {
    const t = last !== undefined && topic === lastTopic ? last : model.topicIndex.get(topic);
    lastTopic = topic;
    last = t;
    if (t === undefined) return -1;
    const start = model.topicStart[t]!;
    const size = model.topicStart[t + 1]! - start;
    if (dense[t] === 0) {
      let ok = true;
      for (let k = 0; k < size && ok; k++) ok = model.partitionOf[model.canonical[start + k]!] === k;
      dense[t] = ok ? 1 : -1;
    }
    if (dense[t] === 1) {
      return Number.isInteger(partition) && partition >= 0 && partition < size
        ? model.canonical[start + partition]!
        : -1;
    }
    let map = byTopic[t];
    if (map === undefined) {
      map = new Map();
      for (let k = 0; k < size; k++) {
        const p = model.canonical[start + k]!;
        map.set(model.partitionOf[p]!, p);
      }
      byTopic[t] = map;
    }
    return map.get(partition === 0 ? 0 : partition) ?? -1;
  };
}

/** True when member `m` subscribes to partition `p`'s topic. */
function isSubscribed(model: BalanceModel, m: number, p: number): boolean {
  const subs = model.subscribersOf[model.topicOf[p]!]!;
  const slot = sortedIndexOf(subs.instances, model.memberInstance[m]!);
  return slot >= 0 && sortedIndexOf(subs.membersByInstance[slot]!, m) >= 0;
}
