import { Registry } from 'prom-client';
import type { Cluster } from 'kafkajs';
import { LoadAwareAssigner, type WeightSource } from '@load-aware/assignor';
import { createTriggerController, type TriggerController } from '@load-aware/trigger';
import { likelyCauses } from '@load-aware/trigger/internal';
import { recordingLogger, type RecordingLogger } from '@load-aware/test-support';
import { description, fakeConsumer } from './fakes';

/**
 * Member ids embed each member's client id and the protocol name is whatever its assigners call
 * themselves: strings other processes chose. In message text they are escaped, so a newline, a
 * terminal escape or a bidi override cannot forge or hide log lines.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function unsafeMessages(logger: RecordingLogger): string[] {
  return logger.records.filter((r) => UNSAFE.test(r.message)).map((r) => JSON.stringify(r.message));
}

const tenEach: WeightSource = {
  getWeights: (partitions) => Promise.resolve(partitions.map((p) => ({ ...p, weight: 10 }))),
};

describe('trigger log lines with hostile ids', () => {
  const controllers: TriggerController[] = [];
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
  });

  it('escapes the elected member id in message text', async () => {
    const hostile = 'a\nINFO forged\u2028-1';
    const logger = recordingLogger();
    const assigner = LoadAwareAssigner({ instanceId: 'pod-x', weights: tenEach });
    assigner({ cluster: {} as Cluster, groupId: 'g', logger: undefined as never }).protocol({ topics: ['t'] });
    const consumer = fakeConsumer(() =>
      Promise.resolve(
        description('g', [
          { memberId: hostile, instanceId: 'pod-a', partitions: [0, 1] },
          { memberId: 'b-1', instanceId: 'pod-b', partitions: [2, 3] },
        ]),
      ),
    );
    const controller = createTriggerController(
      { target: assigner.triggerTarget(consumer) },
      { checkIntervalMs: 3_600_000, logger, registry: new Registry() },
    );
    controllers.push(controller);
    consumer.emit('GROUP_JOIN', { memberId: 'b-1', groupId: 'g', isLeader: false, leaderId: 'z' });
    expect(await controller.checkNow()).toMatchObject({ outcome: 'skipped' });
    expect(unsafeMessages(logger)).toEqual([]);
    expect(logger.messages('info')).toContain('trigger coordinator is member a\\u000aINFO forged\\u2028-1');
    // Fields stay raw: JSON loggers escape them, and tools match on the exact id.
    expect(logger.records.map((r) => r.fields['coordinatorId'])).toContain(hostile);
  });

  it('escapes a foreign protocol name in the likely causes of the cooldown-growth WARN', () => {
    const causes = likelyCauses(
      { groupId: 'g', memberId: 'a-1', protocol: 'Evil\n\u001b[31mERROR forged', foreignMembers: 0 },
      { fromMs: 10_000, toMs: 20_000, assignmentChangedSinceFire: false },
    );
    const text = causes.map((c) => c.text).join('; ');
    expect(UNSAFE.test(text)).toBe(false);
    expect(text).toContain('protocol Evil\\u000a\\u001b[31mERROR forged, not');
  });
});
