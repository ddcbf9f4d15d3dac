import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaBrokersFromEnv } from './support';

const DEMO = join(__dirname, '..', 'examples', '.build', 'demo.js');

/** Runs the compiled demo to completion (killed after `timeoutMs`) and returns its exit code and output. */
function runDemo(args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DEMO, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    });
  });
}

interface Result {
  phases: Array<{ summary: { assigner: string; consumedMessages: number }; record: { samples: unknown[] } }>;
  comparison: Array<{ metric: string }>;
}

describe('demo', () => {
  let out: string;

  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'load-aware-demo-'));
  });

  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it('runs both assigners against a broker and writes result.json, chart.svg and the summary table', async () => {
    const { code, output } = await runDemo(
      ['--brokers', kafkaBrokersFromEnv().join(','), '--phase-seconds', '20', '--backlog-seconds', '2', '--out', out],
      110_000,
    );
    expect({ code, tail: output.slice(-2000) }).toMatchObject({ code: 0 });
    expect(output).toContain('time to converge after the move');
    // Each phase ends with the CLI's view of its group (or the CLI's one-line reason it had none).
    expect(output.match(/: load-aware inspect at the end of the phase/g)).toHaveLength(2);
    expect(output).toMatch(/busiest ÷ ideal: \d|load-aware: group /);
    const lastInspect = output.slice(output.lastIndexOf('load-aware: load-aware inspect'));
    process.stdout.write(`demo, end of the load-aware phase:\n${lastInspect.split('\n').slice(0, 16).join('\n')}\n`);

    const result = JSON.parse(await readFile(join(out, 'result.json'), 'utf8')) as Result;
    expect(result.phases.map((p) => p.summary.assigner)).toEqual(['round-robin', 'load-aware']);
    for (const phase of result.phases) {
      expect(phase.record.samples.length).toBeGreaterThan(10);
      expect(phase.summary.consumedMessages).toBeGreaterThan(0);
    }
    expect(result.comparison.length).toBeGreaterThan(5);

    const chart = await readFile(join(out, 'chart.svg'), 'utf8');
    expect(chart).toMatch(/^<svg /);
    expect(chart).toContain('KafkaJS round-robin');
    expect(chart).toContain('load-aware (offset-rate weights + trigger)');
    expect(chart.trimEnd().endsWith('</svg>')).toBe(true);
  }, 120_000);
});
