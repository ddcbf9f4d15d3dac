import { EventEmitter } from 'node:events';
import { AssignerProtocol, type Consumer, type GroupDescription } from 'kafkajs';
import { encodeUserData } from '@load-aware/assignor/internal';
import { createThresholdTrigger, type ThresholdTriggerOptions } from '@load-aware/trigger';
import type { ObservedMember, Observation } from '@load-aware/trigger/internal';
import { manualClock } from '@load-aware/test-support';

/** Members `m<i>` on instances given by `instances[i]`, all subscribed to topic `t`. */
export function observation(
  assignment: Record<string, number[]>,
  weights: Array<number | undefined>,
  options: { state?: string; instanceOf?: Record<string, string>; capacity?: Record<string, number> } = {},
): Observation {
  const members: ObservedMember[] = Object.entries(assignment).map(([memberId, partitions]) => ({
    memberId,
    instanceId: options.instanceOf?.[memberId] ?? `pod-${memberId}`,
    topics: ['t'],
    assigned: partitions.map((partition) => ({ topic: 't', partition })),
    capacity: options.capacity?.[memberId],
  }));
  return {
    state: options.state ?? 'Stable',
    members,
    partitions: weights.map((weight, partition) =>
      weight === undefined ? { topic: 't', partition } : { topic: 't', partition, weight },
    ),
  };
}

/** A described member of a load-aware group. */
export interface FakeMember {
  memberId: string;
  instanceId?: string;
  partitions: number[];
  topic?: string;
}

/** What DescribeGroups would answer for these members. */
export function description(
  groupId: string,
  members: FakeMember[],
  state = 'Stable',
  protocol = 'LoadAwareAssigner',
): GroupDescription {
  return {
    groupId,
    state: state as GroupDescription['state'],
    protocol,
    protocolType: 'consumer',
    members: members.map((m) => {
      const topic = m.topic ?? 't';
      const userData =
        m.instanceId === undefined
          ? Buffer.alloc(0)
          : encodeUserData({ instanceId: m.instanceId, capacity: 1, epoch: 0 });
      return {
        memberId: m.memberId,
        clientId: 'c',
        clientHost: '/127.0.0.1',
        memberMetadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics: [topic], userData }),
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 0,
          assignment: { [topic]: m.partitions },
          userData: Buffer.alloc(0),
        }),
      };
    }),
  };
}

/** The parts of a KafkaJS consumer the controller uses, driven by the test. */
export type FakeConsumer = Consumer & {
  describe: jest.Mock<Promise<GroupDescription>, []>;
  emit(event: 'GROUP_JOIN' | 'HEARTBEAT' | 'STOP' | 'CRASH' | 'DISCONNECT', payload?: Record<string, unknown>): void;
  listenerCount(): number;
};

export function fakeConsumer(describe: () => Promise<GroupDescription>): FakeConsumer {
  const emitter = new EventEmitter();
  const events = {
    GROUP_JOIN: 'consumer.group_join',
    HEARTBEAT: 'consumer.heartbeat',
    STOP: 'consumer.stop',
    CRASH: 'consumer.crash',
    DISCONNECT: 'consumer.disconnect',
  } as const;
  const mock = jest.fn(describe);
  const consumer = {
    events,
    describe: mock,
    describeGroup: mock,
    on(name: string, listener: (event: unknown) => void) {
      emitter.on(name, listener);
      return () => emitter.off(name, listener);
    },
    emit(event: keyof typeof events, payload: Record<string, unknown> = {}) {
      emitter.emit(events[event], { payload });
    },
    listenerCount: () => emitter.eventNames().reduce((n, name) => n + emitter.listenerCount(name), 0),
  };
  return consumer as unknown as FakeConsumer;
}

/**
 * A threshold trigger on a manual clock (wall and monotonic time alike), with a 10 s cooldown
 * doubling up to 40 s unless `options` say otherwise: the state-machine tests' common start.
 */
export function setup(options: ThresholdTriggerOptions = {}) {
  const clock = manualClock(1_000_000);
  const trigger = createThresholdTrigger({
    cooldownMs: 10_000,
    maxCooldownMs: 40_000,
    ...options,
    now: clock.now,
    monotonicNow: clock.now,
  });
  return { clock, trigger };
}
