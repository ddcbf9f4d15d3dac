/**
 * A custom trigger composed with the shipped ones: rebalance when load drifts past the threshold
 * (any time), and — only within business hours — at least every PERIOD_MS, so placement is fresh
 * for the busy part of the day but the night is left alone.
 *
 *   BROKERS=localhost:9092 TOPIC=orders BUSINESS_HOURS=9-17 PERIOD_MS=3600000 \
 *     node examples/.build/custom-trigger.js
 *
 * A trigger is any object with `evaluate(observation)` returning `{ outcome, reason }`; the
 * business-hours one below is twenty lines. BUSINESS_HOURS is `start-end` in local hours, end
 * excluded; `22-6` wraps past midnight.
 */
import { Kafka, PartitionAssigners } from 'kafkajs';
import pino from 'pino';
import { LoadAwareAssigner, kafkaJsLogCreator } from '@load-aware/assignor';
import {
  createCompositeTrigger,
  createPeriodicTrigger,
  createThresholdTriggerFor,
  createTriggerController,
  type Trigger,
  type TriggerDecision,
  type TriggerOutcome,
} from '@load-aware/trigger';
import { brokersFromEnv, runUntilStopped } from './run-until';

/**
 * Votes `fired` within business hours and `not_due` outside them. Alone it would rebalance on
 * every check of the day: it is a gate, meant for an `all` composite.
 */
class BusinessHours implements Trigger {
  readonly outcomes: ReadonlyArray<TriggerOutcome> = ['fired', 'not_due'];

  constructor(
    private readonly startHour: number,
    private readonly endHour: number,
    /** Injectable, so the rule can be unit-tested at any hour. */
    private readonly now: () => Date = () => new Date(),
  ) {}

  evaluate(): TriggerDecision {
    const hour = this.now().getHours();
    const open =
      this.startHour <= this.endHour
        ? hour >= this.startHour && hour < this.endHour
        : hour >= this.startHour || hour < this.endHour;
    const window = `${String(this.startHour)}-${String(this.endHour)} h`;
    return open
      ? { kind: 'business-hours', outcome: 'fired', reason: `within business hours ${window}` }
      : { kind: 'business-hours', outcome: 'not_due', reason: `outside business hours ${window}` };
  }
}

/** `9-17` → [9, 17]; exits with a message on anything else (it is the user's only input here). */
function parseHours(text: string): [number, number] {
  const match = /^(\d{1,2})-(\d{1,2})$/.exec(text);
  const [start, end] = [Number(match?.[1]), Number(match?.[2])];
  if (match === null || start > 24 || end > 24) {
    throw new Error(`BUSINESS_HOURS must look like 9-17 (local hours 0-24), got ${JSON.stringify(text)}`);
  }
  return [start, end];
}

async function main(): Promise<void> {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'info' });
  const kafka = new Kafka({
    clientId: 'custom-trigger-example',
    brokers: brokersFromEnv(),
    logCreator: kafkaJsLogCreator(logger),
  });
  const assigner = LoadAwareAssigner({ logger });
  const consumer = kafka.consumer({
    groupId: process.env['GROUP_ID'] ?? 'custom-trigger-example',
    partitionAssigners: [assigner, PartitionAssigners.roundRobin],
  });
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    // Every join after the first is a rebalance: here, the ones the trigger starts.
    logger.info({ memberId: payload.memberId, isLeader: payload.isLeader }, 'joined the group');
  });

  // The consumer and its assigner, as the trigger sees them: judged and acted on through one target.
  const target = assigner.triggerTarget(consumer);
  const [start, end] = parseHours(process.env['BUSINESS_HOURS'] ?? '9-17');
  // any(drift, all(period, business hours)). The threshold child takes the assigner's settings, so
  // its "optimal" is the assignment a rebalance produces.
  const trigger = createCompositeTrigger({
    mode: 'any',
    triggers: [
      createThresholdTriggerFor(target, { threshold: 1.2 }),
      createCompositeTrigger({
        mode: 'all',
        triggers: [
          createPeriodicTrigger({ intervalMs: Number(process.env['PERIOD_MS'] ?? 3_600_000) }),
          new BusinessHours(start, end),
        ],
      }),
    ],
  });
  const controller = createTriggerController(
    { target },
    { trigger, checkIntervalMs: Number(process.env['CHECK_INTERVAL_MS'] ?? 30_000), logger },
  );

  await consumer.connect();
  await consumer.subscribe({ topics: [process.env['TOPIC'] ?? 'orders'] });
  await consumer.run({ eachMessage: () => Promise.resolve() });
  await runUntilStopped(async () => {
    await controller.stop();
    await consumer.disconnect();
  });
}

void main();
