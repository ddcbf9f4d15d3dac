import {
  escapeRegex,
  isLegalTopic,
  MAX_TOPIC_LENGTH,
  parseQueryTemplate,
} from '@load-aware/weights-prometheus/internal';

function render(template: string, topics: string[]): string {
  const parsed = parseQueryTemplate(template);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.template.render(topics);
}

describe('query templates', () => {
  it('replaces every %s with the |-joined topic list', () => {
    expect(render('a{topic=~"%s"} / b{topic=~"%s"}', ['orders', 'payments'])).toBe(
      'a{topic=~"orders|payments"} / b{topic=~"orders|payments"}',
    );
  });

  it('escapes regex dots and doubles the backslash inside a double- or single-quoted PromQL string', () => {
    expect(render('x{topic=~"%s"}', ['orders.v2', 'a_b-c'])).toBe('x{topic=~"orders\\\\.v2|a_b-c"}');
    expect(render("x{topic=~'%s'}", ['orders.v2'])).toBe("x{topic=~'orders\\\\.v2'}");
  });

  it('escapes the regex once only inside a raw `backtick` string, where backslashes are literal', () => {
    expect(render('x{topic=~`%s`}', ['orders.v2'])).toBe('x{topic=~`orders\\.v2`}');
  });

  it('tracks escaped quotes and comments so each %s gets the escaping of the string it sits in', () => {
    const template = 'x{a="say \\"hi\\"", topic=~"%s"} # note: `%s`\n+ y{topic=~`%s`}';
    expect(render(template, ['t.1'])).toBe(
      'x{a="say \\"hi\\"", topic=~"t\\\\.1"} # note: `t\\.1`\n+ y{topic=~`t\\.1`}',
    );
  });

  it.each([
    ['has no placeholder', 'sum(rate(x[1m]))', 'at least one %s'],
    ['has %s outside any string', 'x{topic=~%s}', 'outside a string literal'],
    ['leaves a string open', 'x{topic=~"%s}', 'never closed'],
  ])('refuses a template that %s', (_what, template, problem) => {
    const parsed = parseQueryTemplate(template);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.problem).toContain(problem);
  });

  it('escapes every RE2 metacharacter', () => {
    expect(escapeRegex('a.b+c*d?e(f)g|h[i]j{k}l^m$n\\o')).toBe(
      'a\\.b\\+c\\*d\\?e\\(f\\)g\\|h\\[i\\]j\\{k\\}l\\^m\\$n\\\\o',
    );
  });

  it('accepts exactly Kafka’s legal topic names', () => {
    expect(isLegalTopic('orders.v2_EU-1')).toBe(true);
    expect(isLegalTopic('x'.repeat(MAX_TOPIC_LENGTH))).toBe(true);
    for (const bad of ['', '.', '..', 'x'.repeat(MAX_TOPIC_LENGTH + 1), 'a b', 'a|b', 'a"b', 'ä', 'a\\b', 'a/b']) {
      expect(isLegalTopic(bad)).toBe(false);
    }
  });
});
