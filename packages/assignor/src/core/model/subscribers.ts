import { sortedIndexOf } from '../structures/order.js';

/** Members and instances of one topic's subscribers, as indexes into the model's arrays. */
export interface TopicSubscribers {
  /** Indexes of the instances with at least one subscribed member, ascending (= by instance id). */
  readonly instances: Int32Array;
  /** For each entry of `instances`, the subscribed member indexes of that instance, ascending. */
  readonly membersByInstance: ReadonlyArray<Int32Array>;
}

/** True when instance `i` is among `subs.instances`. */
export function hasInstance(subs: TopicSubscribers, i: number): boolean {
  return sortedIndexOf(subs.instances, i) >= 0;
}

/**
 * The subscribers of every topic of `topicIndex` (undefined for topics nobody subscribes to). Members arrive
 * sorted by id; listed topics without partitions are ignored. Work is per distinct subscription: a member
 * repeating the previous one's list shares its subscription without a lookup, and topics with the same
 * subscribers share one pair of arrays, so later levels compare them by reference.
 */
export function buildSubscribers(
  topicsOfMember: ReadonlyArray<ReadonlyArray<string>>,
  memberInstance: Int32Array,
  instanceCount: number,
  topicIndex: ReadonlyMap<string, number>,
): Array<TopicSubscribers | undefined> {
  const topicCount = topicIndex.size;
  // Distinct subscriptions (sorted topic indexes) and the members holding each.
  const subscriptionOf = new Map<string, number>();
  const subscriptionTopics: Int32Array[] = [];
  const subscriptionMembers: number[][] = [];
  let previous: ReadonlyArray<string> | undefined;
  let previousSubscription = -1;
  topicsOfMember.forEach((topics, member) => {
    let s = previous !== undefined && sameList(previous, topics) ? previousSubscription : -1;
    if (s < 0) {
      const indexes = subscribedTopics(topics, topicIndex);
      const key = indexes.join(',');
      s = subscriptionOf.get(key) ?? -1;
      if (s < 0) {
        s = subscriptionTopics.length;
        subscriptionOf.set(key, s);
        subscriptionTopics.push(indexes);
        subscriptionMembers.push([]);
      }
    }
    subscriptionMembers[s]!.push(member);
    previous = topics;
    previousSubscription = s;
  });

  // The subscriptions that include each topic; equal lists mean equal subscribers.
  const subscriptionsOfTopic: number[][] = Array.from({ length: topicCount }, () => []);
  subscriptionTopics.forEach((indexes, s) => {
    for (const t of indexes) subscriptionsOfTopic[t]!.push(s);
  });
  const shared = new Map<string, TopicSubscribers>();
  return subscriptionsOfTopic.map((subscriptions) => {
    if (subscriptions.length === 0) return undefined;
    const key = subscriptions.join(',');
    let subs = shared.get(key);
    if (subs === undefined) {
      subs = groupByInstance(subscriptions, subscriptionMembers, memberInstance, instanceCount);
      shared.set(key, subs);
    }
    return subs;
  });
}

/** True when two topic lists are element-wise equal. */
function sameList(a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** The indexes of the known topics in `topics`, each once, ascending. */
function subscribedTopics(topics: ReadonlyArray<string>, topicIndex: ReadonlyMap<string, number>): Int32Array {
  const found: number[] = [];
  for (const topic of topics) {
    const t = topicIndex.get(topic);
    if (t !== undefined) found.push(t);
  }
  const sorted = Int32Array.from(found).sort();
  let unique = 0;
  for (let k = 0; k < sorted.length; k++) if (k === 0 || sorted[k] !== sorted[k - 1]) sorted[unique++] = sorted[k]!;
  return sorted.subarray(0, unique);
}

/** The members of the given subscriptions, by instance. */
function groupByInstance(
  subscriptions: ReadonlyArray<number>,
  subscriptionMembers: ReadonlyArray<ReadonlyArray<number>>,
  memberInstance: Int32Array,
  instanceCount: number,
): TopicSubscribers {
  const members: number[] = [];
  for (const s of subscriptions) for (const m of subscriptionMembers[s]!) members.push(m);
  // Each subscription's members are ascending; several need a merge, which a sort does.
  const sorted = subscriptions.length === 1 ? Int32Array.from(members) : Int32Array.from(members).sort();
  const sizes = new Int32Array(instanceCount);
  for (const m of sorted) {
    const i = memberInstance[m]!;
    sizes[i] = sizes[i]! + 1;
  }
  let present = 0;
  for (let i = 0; i < instanceCount; i++) if (sizes[i]! > 0) present++;
  const instances = new Int32Array(present);
  const slotOf = new Int32Array(instanceCount).fill(-1);
  const membersByInstance: Int32Array[] = [];
  for (let i = 0, k = 0; i < instanceCount; i++) {
    if (sizes[i] === 0) continue;
    instances[k] = i;
    slotOf[i] = k++;
    membersByInstance.push(new Int32Array(sizes[i]!));
  }
  const filled = new Int32Array(present);
  for (const m of sorted) {
    const slot = slotOf[memberInstance[m]!]!;
    membersByInstance[slot]![filled[slot]!] = m;
    filled[slot] = filled[slot]! + 1;
  }
  return { instances, membersByInstance };
}
