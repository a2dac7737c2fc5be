// The evaluator against Nunjucks itself, on generated benign templates: filters (with `safe`,
// `escape` and `forceescape` chained every way), loops over lists, mappings and texts (`for k, v`
// included), comparisons, `~`, `in`, tests, inline if and set, over plain data. Nunjucks runs here
// only as the oracle, set up as promptfoo sets it up (no autoescape, promptfoo's `load`). Each
// template renders to the same text, unless the evaluator refuses it for one of the documented
// reasons below (docs/checks.md, "Templates are data"). CLAW_PROPERTY_RUNS sets the number of cases.
import fc from 'fast-check';
import nunjucks from 'nunjucks';
import { describe, expect, it } from 'vitest';
import { TemplateError, renderTemplate } from './template.js';

const RUNS = Number(process.env.CLAW_PROPERTY_RUNS ?? 300);

const oracle = new nunjucks.Environment([], { autoescape: false });
oracle.addFilter('load', (text: string) => JSON.parse(text) as unknown);

/**
 * Where the evaluator differs on purpose, by refusing: a filter for text given something else
 * (Nunjucks fails, or prints `undefined` or JavaScript), a text marked safe read as the object
 * Nunjucks makes of it (its keys, its items, compared by identity), a key read off a value that
 * has none, and `in` on a value that is not a list, text or mapping.
 */
const DOCUMENTED = [
  /^the filter '\w+' is given (a number|a list|a mapping|a boolean|none|a value not set|a text marked safe|a text: expected a (list|mapping))/,
  /^the filter '\w+' is given a value that is not set/,
  /^the filter '\w+' reads '.*' of an item that is not set/,
  /^the filter '\w+' is given a list holding/,
  /^the filter 'load' is given text that is not JSON/,
  /^the filter 'dictsort' sorts by/,
  /^it reads '.*' of a text marked safe/,
  /^it compares two texts marked safe/,
  /^it reads a key that is/,
  /^it reads item \d+ of a value that is not set/,
  /^it asks whether a value is 'in'/,
  /^it holds '.*', which .* has only as JavaScript/,
];

const VARS = {
  s: 'Hello <b>World</b> & "you"',
  t: 'ab',
  u: 'x y',
  n: 3,
  f: 2.5,
  zero: 0,
  empty: '',
  nil: null,
  yes: true,
  list: [3, 1, 2],
  words: ['b', 'A', 'c'],
  obj: { b: 2, a: 1 },
  people: [
    { name: 'Ada', age: 36, team: 'x' },
    { name: 'bob', age: 25, team: 'y' },
  ],
  json: '{"a": [1, 2]}',
};

const FILTERS = [
  'upper',
  'lower',
  'capitalize',
  'title',
  'trim',
  'length',
  'escape',
  'e',
  'safe',
  'forceescape',
  'string',
  'first',
  'last',
  'reverse',
  'sort',
  'list',
  'join(",")',
  'replace("o", "0")',
  'truncate(5)',
  'center(12)',
  'indent(2)',
  'nl2br',
  'striptags',
  'wordcount',
  'urlencode',
  'default("d")',
  'int',
  'float',
  'abs',
  'round(1)',
  'dump',
  'batch(2)',
  'dictsort',
  'sum',
];

const atom = fc.constantFrom(
  ...Object.keys(VARS),
  '"<i>"',
  '"a&b"',
  '"ab"',
  '""',
  '1',
  '2',
  '[1, 2]',
  '["x", "<y>"]',
  '{k: "v"}',
);

const { expr } = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    atom,
    fc
      .tuple(tie('expr'), fc.array(fc.constantFrom(...FILTERS), { minLength: 1, maxLength: 3 }))
      .map(([e, fs]) => `(${e} | ${fs.join(' | ')})`),
    fc
      .tuple(tie('expr'), fc.constantFrom('~', '==', '!=', '<', '>=', 'in', 'and', 'or'), tie('expr'))
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([a, c, b]) => `(${a} if ${c} else ${b})`),
    fc
      .tuple(tie('expr'), fc.constantFrom('string', 'number', 'mapping', 'defined', 'truthy', 'odd'))
      .map(([e, test]) => `(${e} is ${test})`),
    tie('expr').map((e) => `(not ${e})`),
  ),
}));

const { body } = fc.letrec<{ body: string }>((tie) => ({
  body: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom('a', ' ', '|'),
    expr.map((e) => `{{ ${e} }}`),
    fc.tuple(expr, tie('body'), tie('body')).map(([c, a, b]) => `{% if ${c} %}${a}{% else %}${b}{% endif %}`),
    fc.tuple(expr, tie('body')).map(([e, b]) => `{% for x in ${e} %}{{ x }}:{{ loop.index }}${b}{% endfor %}`),
    fc
      .tuple(expr, tie('body'))
      .map(([e, b]) => `{% for k, v in ${e} %}{{ k }}={{ v }}/{{ loop.length }}${b}{% else %}-{% endfor %}`),
    expr.map((e) => `{% set z = ${e} %}{{ z }}`),
    fc.tuple(tie('body'), tie('body')).map(([a, b]) => a + b),
  ),
}));

/** Ours: the text, or the documented refusal (undefined), or the error itself to fail on. */
function ours(template: string): { text?: string; refused?: string; unreadable?: boolean } {
  try {
    return { text: renderTemplate(template, VARS, { strict: false }) };
  } catch (err) {
    if (err instanceof TemplateError && /^it is not a template Nunjucks can read/.test(err.message))
      return { unreadable: true };
    if (err instanceof TemplateError && DOCUMENTED.some((why) => why.test(err.message)))
      return { refused: err.message };
    throw err;
  }
}

function theirs(template: string): { text?: string; error?: string } {
  try {
    return { text: oracle.renderString(template, VARS) };
  } catch (err) {
    return { error: String(err) };
  }
}

describe('generated benign templates render as Nunjucks renders them', () => {
  it('the same text, or a documented refusal', () => {
    let compared = 0;
    fc.assert(
      fc.property(body, (template) => {
        const mine = ours(template);
        if (mine.refused !== undefined) return;
        const nj = theirs(template);
        // Nunjucks' own parser reads it for both: what it cannot read, neither renders.
        if (mine.unreadable) return expect(nj.error, template).toBeDefined();
        // Where Nunjucks itself fails, the evaluator may render (its text is checked by the cases of template.test.ts).
        if (nj.error !== undefined) return;
        expect(mine.text, template).toBe(nj.text);
        compared++;
      }),
      { numRuns: RUNS },
    );
    // Most generated templates are compared, not refused.
    expect(compared).toBeGreaterThan(RUNS / 3);
  });

  it.each([
    ['{{ s | safe | escape }}', 'Hello <b>World</b> & "you"'],
    ['{{ s | escape | escape }}', 'Hello &lt;b&gt;World&lt;/b&gt; &amp; &quot;you&quot;'],
    [
      '{{ s | escape | forceescape }}',
      'Hello &amp;lt;b&amp;gt;World&amp;lt;/b&amp;gt; &amp;amp; &amp;quot;you&amp;quot;',
    ],
    ['{{ s | safe | upper | escape }}', 'HELLO &lt;B&gt;WORLD&lt;/B&gt; &amp; &quot;YOU&quot;'],
    ['{{ s | safe | replace("o", "<") | escape }}', 'Hell< <b>W<rld</b> & "y<u"'],
    ['{% if empty | safe %}marked{% endif %}{% if empty %}plain{% endif %}', 'marked'],
    ['{% for k, v in t %}{{ k }}{{ v }}{{ loop.length }}{% endfor %}', '0a21b2'],
    ['{% for k, v in "" %}x{% else %}none{% endfor %}{% for k, v in n %}x{% else %}none{% endfor %}', 'nonenone'],
    ['{% for c in u | safe %}[{{ c }}]{% endfor %}', '[x][ ][y]'],
  ])('%s', (template, expected) => {
    expect(oracle.renderString(template, VARS)).toBe(expected);
    expect(ours(template).text).toBe(expected);
  });
});
