import type { RackGroup } from './rack-group';

/** One member's share of a {@link RackTraffic} measurement. */
export interface MemberTraffic {
  readonly rack: string;
  readonly partitions: readonly number[];
  /** Fetch response bytes by the rack of the broker that served them. */
  readonly bytesByBrokerRack: Readonly<Record<string, number>>;
}

/** What a group fetched during one measurement window, judged by racks. */
export interface RackTraffic {
  /** Fetch response bytes of every member together. */
  readonly totalBytes: number;
  /** Those fetched from a broker in another rack than the member's. */
  readonly crossRackBytes: number;
  /** `crossRackBytes / totalBytes`. */
  readonly crossRackShare: number;
  /** The busiest member's bytes over the even share (total ÷ members); one member per instance. */
  readonly busiestOverIdeal: number;
  /**
   * The cross-rack share the assignment implies: the produced rate of every partition whose
   * replicas are all outside its member's rack, over the total rate. A measured share far from
   * this means members do not read where follower fetching should send them.
   */
  readonly expectedCrossRackShare: number;
  readonly members: readonly MemberTraffic[];
}

/** Where the group's topic lives and how busy each partition is, indexed by partition. */
export interface TopicLayout {
  /** The racks holding a replica of each partition (leader and followers alike). */
  readonly partitionRacks: ReadonlyArray<readonly string[]>;
  /** Produced messages per second of each partition. */
  readonly rates: readonly number[];
}

/**
 * Judges what `group`'s members fetched since their meters were last reset: each Fetch response
 * is in-rack or cross-rack by the rack of the broker address it came from (`rackOfBroker`).
 *
 * @throws when a member fetched from an address `rackOfBroker` does not know.
 */
export function measureRackTraffic(
  group: RackGroup,
  rackOfBroker: ReadonlyMap<string, string>,
  topic: TopicLayout,
): RackTraffic {
  let totalBytes = 0;
  let crossRackBytes = 0;
  let totalRate = 0;
  let crossRate = 0;
  const members = group.members.map((member) => {
    const bytesByBrokerRack: Record<string, number> = {};
    for (const [address, bytes] of member.fetched.snapshot()) {
      const rack = rackOfBroker.get(address);
      if (rack === undefined) throw new Error(`member in rack ${member.rack} fetched from unknown broker ${address}`);
      bytesByBrokerRack[rack] = (bytesByBrokerRack[rack] ?? 0) + bytes;
      totalBytes += bytes;
      if (rack !== member.rack) crossRackBytes += bytes;
    }
    const partitions = member.assigned();
    for (const partition of partitions) {
      const rate = topic.rates[partition] ?? 0;
      totalRate += rate;
      if (!(topic.partitionRacks[partition] ?? []).includes(member.rack)) crossRate += rate;
    }
    return { rack: member.rack, partitions, bytesByBrokerRack };
  });
  const memberBytes = members.map((m) => Object.values(m.bytesByBrokerRack).reduce((sum, b) => sum + b, 0));
  const ideal = totalBytes / Math.max(1, members.length);
  return {
    totalBytes,
    crossRackBytes,
    crossRackShare: totalBytes === 0 ? 0 : crossRackBytes / totalBytes,
    busiestOverIdeal: ideal === 0 ? 0 : Math.max(...memberBytes) / ideal,
    expectedCrossRackShare: totalRate === 0 ? 0 : crossRate / totalRate,
    members,
  };
}
