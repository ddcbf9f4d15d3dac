import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CliError,
  EXIT,
  kafkaConfig,
  parseCliArgs,
  readCluster,
  runCliWith,
  type ClusterReader,
  type CliIo,
  type CliOptions,
} from '@load-aware/cli/internal';
import { fakeSnapshot } from './fakes';

const required = ['--brokers', 'k:9092', '--group', 'g'];

/** An io that records what was written; stdout is a TTY only when asked. */
function recordingIo(tty = false): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (t: string) => (out += t), isTTY: tty },
    stderr: { write: (t: string) => (err += t), isTTY: false },
    env: {},
    out: () => out,
    err: () => err,
  };
}

const skewed: ClusterReader = () =>
  Promise.resolve({
    snapshot: fakeSnapshot(
      [
        { memberId: 'a', instanceId: 'pod-a', held: [0, 1] },
        { memberId: 'b', instanceId: 'pod-b', held: [2, 3] },
      ],
      [90, 10, 10, 10],
    ),
    weightsLabel: 'fake',
  });

describe('runCli', () => {
  it('prints a table with a bar per instance, without colour when stdout is no TTY, and exits 0', async () => {
    const io = recordingIo();
    expect(await runCliWith(skewed, ['inspect', ...required], io)).toBe(EXIT.ok);
    expect(io.out()).toContain('pod-a');
    expect(io.out()).toContain('█'.repeat(24));
    expect(io.out()).toContain('busiest ÷ ideal: 1.67');
    // One member per instance: no member ratio to show.
    expect(io.out()).not.toContain('member busiest');
    expect(io.out()).not.toContain('\u001b[');
    expect(io.err()).toBe('');
  });

  it('notes topics that do not exist', async () => {
    const io = recordingIo();
    const withMissing: ClusterReader = async (o, hooks) => {
      const read = await skewed(o, hooks);
      return { ...read, snapshot: { ...read.snapshot, missingTopics: ['gone'] } };
    };
    expect(await runCliWith(withMissing, ['inspect', ...required], io)).toBe(EXIT.ok);
    expect(io.out()).toContain('topics that do not exist (left out): gone');
  });

  it('colours the bars on a TTY', async () => {
    const io = recordingIo(true);
    await runCliWith(skewed, ['inspect', ...required], io);
    expect(io.out()).toContain('\u001b[31m'); // red: 1.67 is far above ideal
  });

  it('prints the plan: ratio before → after and the moves', async () => {
    const io = recordingIo();
    expect(await runCliWith(skewed, ['plan', ...required], io)).toBe(EXIT.ok);
    expect(io.out()).toContain('busiest ÷ ideal: 1.67 → 1.50   1 move(s)');
    expect(io.out()).toMatch(/t:1\s+10\s+a \(pod-a\)\s+b \(pod-b\)/);
    expect(io.out()).toContain('plan only: the group was not changed');
  });

  it('prints JSON for scripts', async () => {
    const io = recordingIo();
    await runCliWith(skewed, ['plan', ...required, '--json'], io);
    expect(JSON.parse(io.out())).toMatchObject({
      command: 'plan',
      weights: 'fake',
      groupId: 'g',
      moves: [{ partition: 't:1' }],
    });
  });

  it('exits 2 when the current ratio is above --fail-above, 0 at or below it', async () => {
    expect(await runCliWith(skewed, ['inspect', ...required, '--fail-above', '1.5'], recordingIo())).toBe(
      EXIT.aboveThreshold,
    );
    expect(await runCliWith(skewed, ['inspect', ...required, '--fail-above', '1.7'], recordingIo())).toBe(EXIT.ok);
  });

  it('reports a known error on one line, without a stack unless --verbose', async () => {
    const failing: ClusterReader = () => Promise.reject(new CliError('cannot reach k:9092: refused'));
    const io = recordingIo();
    expect(await runCliWith(failing, ['inspect', ...required], io)).toBe(EXIT.error);
    expect(io.err()).toBe('load-aware: cannot reach k:9092: refused\n');
    const verbose = recordingIo();
    await runCliWith(failing, ['inspect', ...required, '--verbose'], verbose);
    expect(verbose.err()).toContain('at ');
  });

  it('reports any other failure on one line too', async () => {
    const io = recordingIo();
    expect(await runCliWith(() => Promise.reject(new Error('boom')), ['inspect', ...required], io)).toBe(EXIT.error);
    expect(io.err()).toBe('load-aware: boom\n');
  });

  it('reports a usage error with a pointer to --help', async () => {
    const io = recordingIo();
    expect(await runCliWith(skewed, ['inspect'], io)).toBe(EXIT.error);
    expect(io.err()).toBe(
      "load-aware: --brokers is required (host:port[,host:port])\nrun 'load-aware --help' for usage\n",
    );
  });

  it('prints usage on --help', async () => {
    const io = recordingIo();
    expect(await runCliWith(skewed, ['--help'], io)).toBe(EXIT.ok);
    expect(io.out()).toMatch(/^Usage: load-aware <inspect\|plan>/);
  });

  it('never prints the SASL password', async () => {
    const io = recordingIo();
    const reader: ClusterReader = (o) => Promise.reject(new CliError(`failed as ${o.sasl?.username ?? ''}`));
    await runCliWith(
      reader,
      [
        'inspect',
        ...required,
        '--sasl-mechanism',
        'plain',
        '--sasl-username',
        'u',
        '--sasl-password',
        's3cret',
        '--verbose',
      ],
      io,
    );
    expect(io.out() + io.err()).not.toContain('s3cret');
  });

  it('counts sampling seconds on one stderr line on a terminal, and clears it when done', async () => {
    const sampling: ClusterReader = async (o, hooks) => {
      for (const done of [0, 1, 2, 3]) hooks.progress(done, 3);
      return skewed(o, hooks);
    };
    const tty = recordingIo();
    Object.assign(tty.stderr, { isTTY: true });
    expect(await runCliWith(sampling, ['inspect', ...required, '--window', '3'], tty)).toBe(EXIT.ok);
    expect(tty.err()).toBe(
      '\rsampling end offsets: 0/3 s\rsampling end offsets: 1/3 s\rsampling end offsets: 2/3 s' +
        '\rsampling end offsets: 3/3 s\r\u001b[K',
    );
    // Piped or redirected stderr (CI logs, `2> file`) gets no carriage-return noise.
    const piped = recordingIo();
    expect(await runCliWith(sampling, ['inspect', ...required, '--window', '3'], piped)).toBe(EXIT.ok);
    expect(piped.err()).toBe('');
  });
});

describe('--ssl-ca', () => {
  const optionsWith = (...extra: string[]): CliOptions => {
    const parsed = parseCliArgs(['inspect', ...required, ...extra], {});
    if (parsed.help) throw new Error('unexpected --help');
    return parsed.options;
  };
  const hooks = { progress: () => undefined, step: () => undefined };

  it("gives KafkaJS the file's certificates as the only trusted CAs", () => {
    expect(kafkaConfig(optionsWith('--ssl-ca', 'ca.pem'), 'PEM').ssl).toEqual({ ca: ['PEM'] });
    expect(kafkaConfig(optionsWith('--ssl')).ssl).toBe(true);
  });

  it('fails on one line, before connecting, when the file is missing or holds no certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'load-aware-cli-'));
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    await expect(readCluster(optionsWith('--ssl-ca', join(dir, 'missing.pem')), hooks)).rejects.toThrow(
      /^--ssl-ca: cannot read .*missing\.pem \(ENOENT\)$/,
    );
    await expect(readCluster(optionsWith('--ssl-ca', notPem), hooks)).rejects.toThrow(
      `--ssl-ca: ${notPem} holds no PEM certificate`,
    );
  });
});
