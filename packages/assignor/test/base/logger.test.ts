import {
  bindLogger,
  kafkaJsLogCreator,
  LoadAwareAssigner,
  noopLogger,
  type Logger,
} from '@load-aware/assignor/internal';
import { logLevel } from 'kafkajs';
import { fakeCluster, member, recordingLogger } from '@load-aware/test-support';

describe('bindLogger', () => {
  it('merges the bindings into every call’s fields when the logger has no child()', () => {
    const logger = recordingLogger();
    const bound = bindLogger(logger, { component: 'assignor', groupId: 'g' });
    bound.info({ moved: 1 }, 'moves: 1');
    bound.warn({ groupId: 'override' }, 'own fields win');
    bound.debug({});
    expect(logger.records).toEqual([
      { level: 'info', fields: { component: 'assignor', groupId: 'g', moved: 1 }, message: 'moves: 1' },
      { level: 'warn', fields: { component: 'assignor', groupId: 'override' }, message: 'own fields win' },
      { level: 'debug', fields: { component: 'assignor', groupId: 'g' }, message: '' },
    ]);
  });

  it('binds further through the wrapper’s own child()', () => {
    const logger = recordingLogger();
    const bound = bindLogger(bindLogger(logger, { component: 'trigger' }), { groupId: 'g' });
    bound.error({ err: 'x' }, 'failed');
    expect(logger.records[0]?.fields).toEqual({ component: 'trigger', groupId: 'g', err: 'x' });
  });

  it('calls the methods with the logger as `this`', () => {
    const seen: unknown[] = [];
    const logger = {
      lines: seen,
      debug(this: { lines: unknown[] }, fields: Record<string, unknown>) {
        this.lines.push(fields);
      },
      info(this: { lines: unknown[] }, fields: Record<string, unknown>) {
        this.lines.push(fields);
      },
      warn: () => undefined,
      error: () => undefined,
    };
    bindLogger(logger, { component: 'prometheus' }).info({ n: 1 });
    expect(seen).toEqual([{ component: 'prometheus', n: 1 }]);
  });

  it('uses the logger’s own child() when it has one, as pino does', () => {
    const parent = recordingLogger();
    const child = recordingLogger();
    const childCalls: Array<Record<string, unknown>> = [];
    const logger: Logger = {
      ...parent,
      child: (bindings) => {
        childCalls.push(bindings);
        return child;
      },
    };
    expect(bindLogger(logger, { component: 'offset-rate' })).toBe(child);
    expect(childCalls).toEqual([{ component: 'offset-rate' }]);
  });

  it('returns the silent default as is', () => {
    expect(bindLogger(noopLogger, { component: 'assignor' })).toBe(noopLogger);
  });

  it('leaves kafkaJsLogCreator working on a bound logger', () => {
    const logger = recordingLogger();
    const log = kafkaJsLogCreator(bindLogger(logger, { component: 'kafkajs' }))(logLevel.INFO);
    log({ namespace: 'Consumer', level: logLevel.WARN, label: 'WARN', log: { message: 'slow', timestamp: 't' } });
    expect(logger.records).toEqual([
      { level: 'warn', fields: { component: 'kafkajs', namespace: 'Consumer' }, message: 'slow' },
    ]);
  });
});

describe('assignor log lines', () => {
  it('carry component and groupId, bound once per consumer through child() when the logger has it', async () => {
    const lines = recordingLogger();
    const bindings: Array<Record<string, unknown>> = [];
    const logger: Logger = {
      ...recordingLogger(),
      child: (b) => {
        bindings.push(b);
        return bindLogger(lines, b);
      },
    };
    const assigner = LoadAwareAssigner({ logger })({
      cluster: fakeCluster({ t: 4 }),
      groupId: 'orders',
      logger: undefined as never,
    });
    await assigner.assign({ members: [member('m1', ['t'], 'pod-a')], topics: ['t'] });
    expect(bindings).toEqual([{ component: 'assignor', groupId: 'orders' }]);
    expect(lines.records.length).toBeGreaterThan(0);
    for (const r of lines.records) expect(r.fields).toMatchObject({ component: 'assignor', groupId: 'orders' });
    expect(lines.messages('info').some((m) => m.startsWith('load-aware assignment: '))).toBe(true);
  });
});
