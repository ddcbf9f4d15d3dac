import { parseInstantVector, parseSampleValue } from '@load-aware/weights-prometheus/internal';

describe('instant-vector bodies', () => {
  it('reads labels and string sample values, including NaN and ±Inf', () => {
    const body = JSON.stringify({
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          { metric: { topic: 't', partition: '0' }, value: [1, '1.5'] },
          { metric: { topic: 't', partition: '1' }, value: [1, 'NaN'] },
          { metric: { topic: 't', partition: '2' }, value: [1, '+Inf'] },
          { metric: { topic: 't', partition: '3' }, value: [1, '-Inf'] },
          { metric: { topic: 't', partition: '4' }, value: [1, '-2e-3'] },
        ],
      },
      warnings: ['careful'],
    });
    const parsed = parseInstantVector(body);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.failure));
    expect(parsed.vector.samples.map((s) => s.value)).toEqual([1.5, NaN, Infinity, -Infinity, -0.002]);
    expect(parsed.vector.samples[0]?.labels).toEqual({ topic: 't', partition: '0' });
    expect(parsed.vector.warnings).toEqual(['careful']);
  });

  it.each(['', ' ', '0x10', '1,5', 'abc', 'Infinity', '1.5.1'])('refuses the sample value %j', (text) => {
    expect(parseSampleValue(text)).toBeUndefined();
  });

  it.each([
    ['not JSON', 'not json', 'not JSON'],
    ['a JSON array', '[]', 'not a JSON object'],
    ['an unknown status', '{"status":"maybe"}', 'status is "maybe"'],
    ['no data', '{"status":"success"}', 'data is missing'],
    ['a matrix', '{"status":"success","data":{"resultType":"matrix","result":[]}}', 'resultType is "matrix"'],
    ['a scalar', '{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}', 'resultType is "scalar"'],
    ['a result that is no array', '{"status":"success","data":{"resultType":"vector","result":{}}}', 'not an array'],
    [
      'a numeric sample value',
      '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}}',
      'result[0] has no [timestamp',
    ],
    [
      'a non-numeric sample value',
      '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"high"]}]}}',
      'not a number: "high"',
    ],
    [
      'a non-string label',
      '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"partition":0},"value":[1,"1"]}]}}',
      'label "partition"',
    ],
  ])('reports a body with %s as malformed', (_what, body, reason) => {
    const parsed = parseInstantVector(body);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.failure.kind).toBe('malformed');
    expect(parsed.failure.kind === 'malformed' ? parsed.failure.reason : '').toContain(reason);
  });

  it('reports status "error" as a failed query with its error type and message', () => {
    const parsed = parseInstantVector('{"status":"error","errorType":"bad_data","error":"parse error at char 3"}');
    expect(parsed).toEqual({
      ok: false,
      failure: { kind: 'query_failed', errorType: 'bad_data', error: 'parse error at char 3' },
    });
  });

  it('reads a native-histogram sample as NaN, which the source leaves out', () => {
    const body = '{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"histogram":[1,{}]}]}}';
    const parsed = parseInstantVector(body);
    expect(parsed.ok && Number.isNaN(parsed.vector.samples[0]?.value)).toBe(true);
  });
});
