import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { platformaticRuns } from './fakes';

/**
 * The one private touch of the platformatic adapter, against the real @platformatic/kafka:
 * `attach()` finds the consumer's options object (kept under a symbol of platformatic's own) by
 * looking for our `protocolsMetadata` callback among the consumer's symbol-keyed objects. A
 * platformatic that moves or reshapes that object must make `attach()` fail at once, naming the
 * supported version, never leave the consumer attached to nothing.
 *
 * Platformatic is ESM only and needs Node >= 22.22 or >= 24.6, so the probe runs in a child Node.
 */
function probe(): Record<string, unknown> {
  const body = `
    import { Consumer } from '@platformatic/kafka';
    import { LoadAwareAssigner } from '@load-aware/platformatic';
    const assigner = LoadAwareAssigner({ instanceId: 'contract-pod' });
    const make = () =>
      new Consumer({ clientId: 'contract', bootstrapBrokers: ['127.0.0.1:1'], groupId: 'g', ...assigner.groupOptions() });
    const holders = (c) =>
      Object.getOwnPropertySymbols(c).filter((s) => {
        const v = c[s];
        return v !== null && typeof v === 'object' && typeof v.protocolsMetadata === 'function';
      });
    const failure = (f) => {
      try {
        f();
        return 'attached';
      } catch (e) {
        return { name: e.name, code: e.code, message: e.message };
      }
    };
    const consumer = make();
    const out = { holders: holders(consumer).map((s) => s.description) };
    const options = consumer[holders(consumer)[0]];
    // The adapter writes assignmentUserData into it for platformatic to read when the leader assigns.
    out.optionsHold = { groupId: options.groupId, extensible: Object.isExtensible(options) && !Object.isFrozen(options) };
    out.attached = assigner.attach(consumer) === consumer;
    const reshaped = make();
    for (const s of holders(reshaped)) reshaped[s] = { ...reshaped[s], protocolsMetadata: undefined };
    out.reshaped = failure(() => assigner.attach(reshaped));
    const removed = make();
    for (const s of holders(removed)) delete removed[s];
    out.removed = failure(() => assigner.attach(removed));
    await Promise.all([consumer, reshaped, removed].map((c) => c.close().catch(() => undefined)));
    console.log(JSON.stringify(out));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', body], {
    cwd: join(__dirname, '..'),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out) as Record<string, unknown>;
}

const supported = platformaticRuns();
const reason = supported
  ? ''
  : ` (skipped: @platformatic/kafka 2.12.1 needs Node >= 22.22 or >= 24.6, this is ${process.versions.node})`;

(supported ? describe : describe.skip)(`platformatic's private options object${reason}`, () => {
  const seen = supported ? probe() : {};

  it('is one symbol-keyed object holding our callback, the options the consumer was created with', () => {
    expect(seen['holders']).toEqual(['plt.kafka.base.options']);
    expect(seen['optionsHold']).toEqual({ groupId: 'g', extensible: true });
    expect(seen['attached']).toBe(true);
  });

  it.each(['reshaped', 'removed'])('%s, makes attach() throw a ConfigError naming the supported version', (kind) => {
    expect(seen[kind]).toMatchObject({ name: 'ConfigError', code: 'LOAD_AWARE_CONFIG' });
    expect((seen[kind] as { message: string }).message).toContain('@platformatic/kafka ~2.12.1');
  });
});
