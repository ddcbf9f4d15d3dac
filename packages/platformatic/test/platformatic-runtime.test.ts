import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { AssignerProtocol } from 'kafkajs';
import type { Consumer } from '@platformatic/kafka';
import { decodeUserData, encodeUserData } from '@load-aware/assignor/portable';
import {
  COOPERATIVE_PROTOCOL,
  SAFE_CONSUME_MODE,
  SAFE_FALLBACK_MODE,
  type AttachableConsumer,
} from '@load-aware/platformatic';
import { decodeGroup } from '@load-aware/platformatic/internal';
import { platformaticRuns } from './fakes';

// Compile-time: a real platformatic consumer is what attach() takes, as it is.
export const consumerFits = (consumer: Consumer): AttachableConsumer => consumer;

/**
 * Runs `body` (an ES module's text) in a child Node with @platformatic/kafka importable, and
 * returns what it printed as JSON. Platformatic is ESM only with `import.meta`, which jest's
 * CommonJS runtime cannot load, and it needs Node >= 22.22 or >= 24.6.
 */
function withPlatformatic(body: string): unknown {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', body], {
    cwd: join(__dirname, '..'),
    encoding: 'utf8',
  });
  return JSON.parse(out) as unknown;
}

const supported = platformaticRuns();
const describeOnSupportedNode = supported ? describe : describe.skip;
const reason = supported
  ? ''
  : ` (skipped: @platformatic/kafka 2.12.1 needs Node >= 22.22 or >= 24.6, this is ${process.versions.node})`;

describeOnSupportedNode(`@platformatic/kafka 2.12.1 itself${reason}`, () => {
  const record = encodeUserData({ instanceId: 'pod-a', capacity: 2, epoch: 7 });

  it('treats exactly our cooperative protocol name as incremental', () => {
    const name = withPlatformatic(
      `import { COOPERATIVE_STICKY_ASSIGNOR } from '@platformatic/kafka'; console.log(JSON.stringify(COOPERATIVE_STICKY_ASSIGNOR));`,
    );
    expect(name).toBe(COOPERATIVE_PROTOCOL);
  });

  it('sends the eager protocol in bytes a KafkaJS leader reads, and reads what a KafkaJS member sends', () => {
    const hex = withPlatformatic(
      `import { encodeConsumerProtocolSubscription as e } from '@platformatic/kafka';
       console.log(JSON.stringify(e({ version: 0, topics: ['orders'], userData: Buffer.from('${record.toString('hex')}', 'hex') }).toString('hex')));`,
    ) as string;
    const decoded = AssignerProtocol.MemberMetadata.decode(Buffer.from(hex, 'hex'));
    expect(decoded?.topics).toEqual(['orders']);
    expect(decodeUserData(decoded?.userData)).toMatchObject({
      ok: true,
      value: { instanceId: 'pod-a', capacity: 2, epoch: 7 },
    });

    const kafkajs = AssignerProtocol.MemberMetadata.encode({ version: 0, topics: ['orders'], userData: record });
    const back = withPlatformatic(
      `import { decodeConsumerProtocolSubscription as d } from '@platformatic/kafka';
       const s = d(Buffer.from('${kafkajs.toString('hex')}', 'hex'));
       console.log(JSON.stringify({ version: s.version, topics: s.topics, userData: s.userData.toString('hex') }));`,
    ) as { version: number; topics: string[]; userData: string };
    expect(back).toEqual({ version: 0, topics: ['orders'], userData: record.toString('hex') });
  });

  it('carries owned partitions and the generation of a version-3 cooperative subscription in their own fields', () => {
    const sub = withPlatformatic(
      `import { encodeConsumerProtocolSubscription as e, decodeConsumerProtocolSubscription as d } from '@platformatic/kafka';
       const bytes = e({ version: 3, topics: ['orders'], userData: Buffer.from('${record.toString('hex')}', 'hex'),
         ownedPartitions: [{ topic: 'orders', partitions: [2, 0] }], generationId: 9, rackId: null });
       const s = d(bytes);
       console.log(JSON.stringify({ ...s, userData: s.userData.toString('hex') }));`,
    ) as {
      version: number;
      topics: string[];
      userData: string;
      ownedPartitions: Array<{ topic: string; partitions: number[] }>;
      generationId: number;
    };
    const group = decodeGroup(
      new Map([['m1', { memberId: 'm1', ...sub, metadata: Buffer.from(sub.userData, 'hex') }]]),
      true,
    );
    expect(group.cooperative).toBe(true);
    expect(group.members[0]).toMatchObject({
      instanceId: 'pod-a',
      owned: { generation: 9, partitions: [0, 2].map((partition) => ({ topic: 'orders', partition })) },
    });
  });

  it("offers the consume modes the guard relies on, and starts a stream in mode 'latest' when none is given", () => {
    const modes = withPlatformatic(
      `import { MessagesStreamModes, MessagesStreamFallbackModes } from '@platformatic/kafka';
       console.log(JSON.stringify({ modes: Object.values(MessagesStreamModes), fallbacks: Object.values(MessagesStreamFallbackModes) }));`,
    ) as { modes: string[]; fallbacks: string[] };
    expect(modes.modes).toEqual(expect.arrayContaining([SAFE_CONSUME_MODE, 'latest', 'earliest', 'manual']));
    expect(modes.fallbacks).toEqual(expect.arrayContaining([SAFE_FALLBACK_MODE, 'latest', 'fail']));
    // The mechanism docs/platformatic.md describes: no mode means 'latest', a listed offset is kept
    // only for a partition the stream has no position for, and only 'committed' reads commits.
    const source = withPlatformatic(
      `import { MessagesStream } from '@platformatic/kafka';
       const text = MessagesStream.toString();
       console.log(JSON.stringify([
         'this.#mode = mode ?? MessagesStreamModes.LATEST',
         'if (!this.#offsetsToFetch.has(',
         'if (this.#mode !== MessagesStreamModes.COMMITTED) {',
       ].map((line) => text.includes(line))));`,
    );
    expect(source).toEqual([true, true, true]);
  });

  it("emits 'client:close' once isActive() is false, which is when the assigner's weight refresh stops", () => {
    const seen = withPlatformatic(
      `import { Consumer } from '@platformatic/kafka';
       const consumer = new Consumer({ groupId: 'g', clientId: 'c', bootstrapBrokers: ['127.0.0.1:1'] });
       const seen = { atClose: 'not emitted' };
       consumer.on('client:close', () => { seen.atClose = consumer.isActive(); });
       await consumer.close();
       console.log(JSON.stringify(seen));`,
    );
    expect(seen).toEqual({ atClose: false });
  });
});
