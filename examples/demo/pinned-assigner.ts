/**
 * A KafkaJS PartitionAssigner that hands out a plan fixed in advance (the oracle's, oracle.ts):
 * the sustainable-throughput benchmark holds the best static assignment still with it, so its
 * rate is measured the same way as a live assigner's. Slot i of the plan goes to the i-th member
 * by member id; the demo's member ids start with their instance id, so slots follow the layout's
 * instance order. While fewer members than slots are in the group (it is still forming), the
 * slots are dealt round-robin over the members present; the benchmark only measures the full group.
 */
import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';

/** The plan's slots over the group's members, by member id (pure). */
export function dealSlots(memberIds: readonly string[], plan: readonly (readonly number[])[]): Map<string, number[]> {
  const sorted = [...memberIds].sort();
  const out = new Map(sorted.map((id) => [id, [] as number[]]));
  if (sorted.length === 0) return out;
  plan.forEach((partitions, slot) => out.get(sorted[slot % sorted.length]!)!.push(...partitions));
  for (const partitions of out.values()) partitions.sort((a, b) => a - b);
  return out;
}

/** An assigner giving `topic`'s partitions by `plan` (slot → partitions); other topics get nothing. */
export function pinnedAssigner(topic: string, plan: readonly (readonly number[])[]): PartitionAssigner {
  return () => ({
    name: 'PinnedAssigner',
    version: 0,
    protocol: ({ topics }) => ({
      name: 'PinnedAssigner',
      metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    }),
    assign: ({ members }) => {
      const dealt = dealSlots(
        members.map((m) => m.memberId),
        plan,
      );
      return Promise.resolve(
        [...dealt].map(([memberId, partitions]) => ({
          memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({
            version: 0,
            assignment: { [topic]: partitions },
            userData: Buffer.alloc(0),
          }),
        })),
      );
    },
  });
}
