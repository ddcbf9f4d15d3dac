import type { BalanceModel } from '../model/model.js';
import type { PreviousOwners } from '../model/previous.js';
import { MinCostFlow } from '../structures/min-cost-flow.js';
import { setCrossesRack, type RackModel } from './rack-model.js';

/** Rack sets × groups beyond this many: the general path runs instead (bounds the tables). */
const MAX_CELLS = 4096;

/** Instances × rack sets beyond this many: the general path runs instead (bounds the keep table). */
const MAX_KEEP_CELLS = 1 << 20;

/**
 * Rack matching on Kafka's terms (equal weights and capacities, no base loads) when every instance subscribes
 * to every topic: balance is a count, each instance holding ⌊P/I⌋ or one more, and the rest is a transport
 * problem small enough to solve exactly. A minimum-cost flow ({@link planFlow}) decides how many partitions of
 * each rack set each instance keeps and each group (a rack, or no rack) takes; crossing racks costs more than
 * every move together, so it finds the fewest cross-rack partitions, then the fewest moves. The partitions
 * are then placed as it says: homes first, the rest filling each group's room in model order.
 *
 * Undefined where it does not apply (restricted subscriptions, too many rack sets) or its moves exceed
 * `movesLimit`; the caller then runs the general path.
 */
export function placeByCounts(
  model: BalanceModel,
  rm: RackModel,
  previous: PreviousOwners,
  movesLimit: number,
): { readonly instance: Int32Array; readonly moves: number } | undefined {
  const instanceCount = model.instanceIds.length;
  for (const subs of model.subscribersOf) {
    if (subs !== undefined && subs.instances.length !== instanceCount) return undefined;
  }
  const racks = rm.racks.length;
  const groups = racks + 1; // the racks, then the instances without one
  const sets = rm.setCount + 1; // no preference, then the rack sets
  if (instanceCount === 0 || sets * groups > MAX_CELLS || instanceCount * sets > MAX_KEEP_CELLS) return undefined;

  const partitionCount = model.partitionCount;
  const groupOf = new Int32Array(instanceCount);
  for (let i = 0; i < instanceCount; i++) groupOf[i] = rm.instanceRack[i]! < 0 ? racks : rm.instanceRack[i]!;
  const quota = Math.floor(partitionCount / instanceCount);
  const plan = planFlow(rm, groupOf, previous, { quota, extras: partitionCount - quota * instanceCount });
  const room = roomAfterKeeps(plan, groupOf, quota, sets);

  // Homes first: the planned keeps, then any partition that would rather stay (owner left, instance stayed,
  // or a tie left it movable) where its group takes its set and its instance has room beyond the keeps.
  const instance = new Int32Array(partitionCount).fill(-1);
  const { kept, arrive: need } = plan;
  const { member, instance: preferred } = previous;
  const setOf = rm.setOf;
  for (let p = 0; p < partitionCount; p++) {
    const h = preferred[p]!;
    if (h < 0) continue;
    const s = setOf[p]! + 1;
    const k = h * sets + s;
    if (member[p]! >= 0 && kept[k]! > 0) {
      kept[k] = kept[k]! - 1;
      instance[p] = h;
      continue;
    }
    const cell = s * groups + groupOf[h]!;
    if (room[h]! > 0 && need[cell]! > 0) {
      instance[p] = h;
      room[h] = room[h]! - 1;
      need[cell] = need[cell]! - 1;
    }
  }
  const moves = fillRest(rm, groupOf, need, room, instance, previous);
  return moves < 0 || moves > movesLimit ? undefined : { instance, moves };
}

/** Each instance's room after its planned keeps: ⌊P/I⌋, plus one if it or its group's arrivals take an extra slot. */
function roomAfterKeeps(plan: FlowPlan, groupOf: Int32Array, quota: number, sets: number): Int32Array {
  const room = new Int32Array(groupOf.length);
  const arrivalExtras = plan.arrivalExtras;
  for (let i = 0; i < groupOf.length; i++) {
    const g = groupOf[i]!;
    let slots = quota + plan.keepsExtra[i]!;
    if (plan.keepsExtra[i] === 0 && arrivalExtras[g]! > 0) {
      slots++;
      arrivalExtras[g] = arrivalExtras[g]! - 1;
    }
    for (let s = 0; s < sets; s++) slots -= plan.kept[i * sets + s]!;
    room[i] = slots;
  }
  return room;
}

/** True when flow set `s` (0: no preference) crosses racks in group `g` (the last, rackless group never does). */
function crosses(rm: RackModel, s: number, g: number): boolean {
  return setCrossesRack(rm, s - 1, g < rm.racks.length ? g : -1);
}

/** What the flow decided. */
interface FlowPlan {
  /** Counted homes of each set each instance keeps, `[instance * sets + set]`. */
  readonly kept: Float64Array;
  /** 1 for an instance that keeps ⌊P/I⌋ + 1 homes, on one of the extra slots. */
  readonly keepsExtra: Float64Array;
  /** Partitions of each set arriving in each group, `[set * groups + group]`. */
  readonly arrive: Float64Array;
  /** Extra slots of each group taken by arrivals. */
  readonly arrivalExtras: Float64Array;
}

/**
 * The minimum-cost flow of {@link placeByCounts}. Counted homes by instance and set (a class each) either
 * stay on their instance's keep node or pass through their set's pool (one move) into any group; partitions
 * without a counted home go straight to their pool. Each instance keeps at most ⌊P/I⌋ on its group's regular
 * slots and one more on its extra slots; groups take ⌊P/I⌋ per instance, plus extra slots shared by all
 * groups (P mod I in all, one per instance at most).
 */
function planFlow(
  rm: RackModel,
  groupOf: Int32Array,
  previous: PreviousOwners,
  counts: { readonly quota: number; readonly extras: number },
): FlowPlan {
  const { quota, extras } = counts;
  const instanceCount = groupOf.length;
  const groups = rm.racks.length + 1;
  const sets = rm.setCount + 1;
  const partitionCount = previous.member.length;
  // More than every counted move together: locality before stickiness.
  const crossCost = partitionCount + 1;
  const homes = new Float64Array(instanceCount * sets);
  const homeless = new Float64Array(sets);
  const { setOf } = rm;
  const { member, instance } = previous;
  for (let p = 0; p < partitionCount; p++) {
    const s = setOf[p]! + 1;
    // A counted home: leaving it is a move.
    if (member[p]! < 0) homeless[s] = homeless[s]! + 1;
    else homes[instance[p]! * sets + s] = homes[instance[p]! * sets + s]! + 1;
  }
  let classCount = 0;
  for (const n of homes) if (n > 0) classCount++;
  const size = new Float64Array(groups);
  for (const g of groupOf) size[g] = size[g]! + 1;

  const source = 0;
  const sink = 1;
  const extraNode = 2;
  const poolBase = 3;
  const groupBase = poolBase + sets; // a group node, then its extra slots
  const keepBase = groupBase + 2 * groups;
  const classBase = keepBase + instanceCount;
  const edgeCount = 3 * classCount + 2 * instanceCount + sets * (groups + 1) + 3 * groups + 1;
  const flow = new MinCostFlow(classBase + classCount, edgeCount);
  const keptEdge = new Int32Array(instanceCount * sets).fill(-1);
  let next = classBase;
  for (let i = 0; i < instanceCount; i++) {
    const g = groupOf[i]!;
    for (let s = 0; s < sets; s++) {
      const n = homes[i * sets + s]!;
      if (n === 0) continue;
      const node = next++;
      flow.addEdge(source, node, n, 0);
      keptEdge[i * sets + s] = flow.addEdge(node, keepBase + i, n, crosses(rm, s, g) ? crossCost : 0);
      flow.addEdge(node, poolBase + s, n, 1);
    }
  }
  const keepsExtraEdge = new Int32Array(instanceCount);
  for (let i = 0; i < instanceCount; i++) {
    const g = groupOf[i]!;
    flow.addEdge(keepBase + i, groupBase + 2 * g, quota, 0);
    keepsExtraEdge[i] = flow.addEdge(keepBase + i, groupBase + 2 * g + 1, extras > 0 ? 1 : 0, 0);
  }
  const arriveEdge = new Int32Array(sets * groups);
  for (let s = 0; s < sets; s++) {
    flow.addEdge(source, poolBase + s, homeless[s]!, 0);
    for (let g = 0; g < groups; g++) {
      const cost = crosses(rm, s, g) ? crossCost : 0;
      arriveEdge[s * groups + g] = flow.addEdge(poolBase + s, groupBase + 2 * g, partitionCount, cost);
    }
  }
  const arrivalExtraEdge = new Int32Array(groups);
  for (let g = 0; g < groups; g++) {
    flow.addEdge(groupBase + 2 * g, sink, quota * size[g]!, 0);
    arrivalExtraEdge[g] = flow.addEdge(groupBase + 2 * g, groupBase + 2 * g + 1, extras, 0);
    flow.addEdge(groupBase + 2 * g + 1, extraNode, Math.min(size[g]!, extras), 0);
  }
  flow.addEdge(extraNode, sink, extras, 0);
  flow.run(source, sink);

  return {
    kept: flow.flowsOn(keptEdge),
    keepsExtra: flow.flowsOn(keepsExtraEdge),
    arrive: flow.flowsOn(arriveEdge),
    arrivalExtras: flow.flowsOn(arrivalExtraEdge),
  };
}

/**
 * Places every partition still without an instance, in model order, in the first group that still takes its
 * set, on its first instance with room. Returns the counted moves, or -1 if anything is left over (which the
 * flow's totals rule out).
 */
function fillRest(
  rm: RackModel,
  groupOf: Int32Array,
  need: Float64Array,
  room: Int32Array,
  instance: Int32Array,
  previous: PreviousOwners,
): number {
  const groups = rm.racks.length + 1;
  const members: number[][] = Array.from({ length: groups }, () => []);
  groupOf.forEach((g, i) => members[g]!.push(i));
  const cursor = new Int32Array(groups);
  const { setOf } = rm;
  const { member, instance: home } = previous;
  let moves = 0;
  for (let p = 0; p < instance.length; p++) {
    if (instance[p]! >= 0) continue;
    const row = (setOf[p]! + 1) * groups;
    let g = 0;
    while (g < groups && !(need[row + g]! > 0)) g++;
    if (g === groups) return -1;
    const list = members[g]!;
    while (cursor[g]! < list.length && room[list[cursor[g]!]!]! === 0) cursor[g] = cursor[g]! + 1;
    if (cursor[g] === list.length) return -1;
    const i = list[cursor[g]!]!;
    instance[p] = i;
    room[i] = room[i]! - 1;
    need[row + g] = need[row + g]! - 1;
    if (member[p]! >= 0 && home[p] !== i) moves++;
  }
  return moves;
}
