import { AssignerProtocol, type Cluster, type GroupMember, type GroupMemberAssignment } from 'kafkajs';
import { encodeUserData, type Logger } from '@load-aware/assignor';

/** One recorded log call. */
export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string | undefined;
}

/** A logger that keeps everything, for asserting on log lines. */
export function recordingLogger(): Logger & { records: LogRecord[]; messages(level: LogRecord['level']): string[] } {
  const records: LogRecord[] = [];
  const at =
    (level: LogRecord['level']) =>
    (fields: Record<string, unknown>, message?: string): void => {
      records.push({ level, fields, message });
    };
  return {
    records,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    messages: (level) => records.filter((r) => r.level === level).map((r) => r.message ?? ''),
  };
}

/**
 * A stand-in for the KafkaJS cluster: only the two calls the assigner makes. Topics in `hidden`
 * become visible once `addMultipleTargetTopics` asks for them, like metadata for topics the leader
 * does not subscribe to.
 */
export function fakeCluster(
  partitionsPerTopic: Record<string, number>,
  hidden: string[] = [],
): Cluster & { targetTopicCalls: string[][] } {
  const visible = new Set(Object.keys(partitionsPerTopic).filter((t) => !hidden.includes(t)));
  const targetTopicCalls: string[][] = [];
  const cluster = {
    targetTopicCalls,
    addMultipleTargetTopics: (topics: string[]) => {
      targetTopicCalls.push(topics);
      for (const t of topics) if (t in partitionsPerTopic) visible.add(t);
      return Promise.resolve();
    },
    findTopicPartitionMetadata: (topic: string) =>
      visible.has(topic)
        ? Array.from({ length: partitionsPerTopic[topic] ?? 0 }, (_, partitionId) => ({
            partitionId,
            leader: 1,
            partitionErrorCode: 0,
            replicas: [1],
            isr: [1],
            offlineReplicas: [],
          }))
        : [],
  };
  return cluster as unknown as Cluster & { targetTopicCalls: string[][] };
}

/** A group member whose metadata carries load-aware userData for `instanceId`. */
export function member(memberId: string, topics: string[], instanceId: string, capacity = 1): GroupMember {
  const userData = encodeUserData({ instanceId, capacity, epoch: 0 });
  return { memberId, memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData }) };
}

/** A group member with arbitrary userData bytes (another assigner's, an old version, garbage). */
export function memberWithUserData(memberId: string, topics: string[], userData: Buffer): GroupMember {
  return { memberId, memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData }) };
}

/** Decodes what assign() returned into member id → "topic:partition" strings. */
export function decodeAssignments(result: GroupMemberAssignment[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { memberId, memberAssignment } of result) {
    const decoded = AssignerProtocol.MemberAssignment.decode(memberAssignment);
    const list: string[] = [];
    for (const [topic, partitions] of Object.entries(decoded?.assignment ?? {})) {
      for (const p of partitions) list.push(`${topic}:${String(p)}`);
    }
    out.set(memberId, list.sort());
  }
  return out;
}

/** Every "topic:partition" of the given topic sizes. */
export function allPartitions(partitionsPerTopic: Record<string, number>): string[] {
  return Object.entries(partitionsPerTopic)
    .flatMap(([topic, n]) => Array.from({ length: n }, (_, p) => `${topic}:${String(p)}`))
    .sort();
}

/** A group member that also reports the partitions it owns (userData version 2). */
export function ownerMember(
  memberId: string,
  topics: string[],
  instanceId: string,
  owned: { generation: number; partitions: string[] },
): GroupMember {
  const partitions = owned.partitions.map((key) => {
    const at = key.lastIndexOf(':');
    return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)) };
  });
  const userData = encodeUserData({
    instanceId,
    capacity: 1,
    epoch: 0,
    owned: { generation: owned.generation, partitions },
  });
  return { memberId, memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData }) };
}
