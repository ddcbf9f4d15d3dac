import { AssignerProtocol, type GroupMember } from 'kafkajs';
import { memberFromRecord, type DecodedMember } from './member-record.js';
import { subscriptionShapeProblem } from './subscription-shape.js';

export { OWN_INSTANCE_PREFIX, type DecodedMember } from './member-record.js';

/**
 * Reads one KafkaJS member's metadata (see {@link memberFromRecord}). Never throws: metadata that
 * cannot be read leaves the topics undefined and makes the member an instance of its own.
 */
export function decodeMember(member: GroupMember): DecodedMember {
  // KafkaJS's decoder loops on a forged topic count: metadata of another shape is not handed to it.
  if (subscriptionShapeProblem(member.memberMetadata) !== undefined) {
    return memberFromRecord(member.memberId, undefined, undefined);
  }
  let topics: ReadonlyArray<string> | undefined;
  let userData: Buffer | undefined;
  try {
    const metadata = AssignerProtocol.MemberMetadata.decode(member.memberMetadata) as unknown;
    const m = metadata as { topics?: unknown; userData?: unknown } | null;
    if (m !== null && Array.isArray(m.topics) && m.topics.every((t) => typeof t === 'string')) {
      topics = m.topics;
    }
    if (m !== null && Buffer.isBuffer(m.userData)) userData = m.userData;
  } catch {
    // Leaves topics undefined; the caller decides what an unreadable subscription means.
  }
  return memberFromRecord(member.memberId, topics, userData);
}
