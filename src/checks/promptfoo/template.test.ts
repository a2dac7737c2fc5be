// The template evaluator against Nunjucks itself: each node kind and each filter, on plain data,
// gives the text Nunjucks gives (Nunjucks runs here only as the oracle, on benign templates, set
// up as promptfoo sets it up: no autoescape, promptfoo's `load`). What lies outside the grammar is
// refused with its line, a name a value has only as JavaScript is refused, and the bounds hold.
import nunjucks from 'nunjucks';
import { describe, expect, it } from 'vitest';
import { TemplateError, parseTemplate, renderTemplate } from './template.js';
import { HOLD_LIMIT, WORK_LIMIT } from './template-data.js';
import { FILTERS } from './template-filters.js';

const oracle = new nunjucks.Environment([], { autoescape: false });
oracle.addFilter('load', (text: string) => JSON.parse(text) as unknown);

const VARS = {
  s: 'Hello World',
  n: 3,
  f: 2.567,
  neg: -4,
  t: true,
  no: false,
  nil: null,
  zero: 0,
  empty: '',
  list: [3, 1, 2],
  words: ['b', 'A', 'c'],
  obj: { b: 2, a: 1, C: 3 },
  people: [
    { name: 'Ada', age: 36, team: 'x' },
    { name: 'bob', age: 25, team: 'y' },
    { name: 'Cy', age: 41, team: 'x' },
  ],
  nested: { a: { b: [10, { c: 'deep' }] } },
  html: '<p>Hi & "you" \\ \'me\'</p>\n<!-- note --><b>x</b> <a href="u">link</a>',
  json: '{"a": [1, 2], "b": {"c": null}}',
  lines: 'one\ntwo\r\nthree',
  spaced: '  pad  ',
  url: 'a b&c/d?é',
  pairs: [
    ['a', 1],
    ['b', 2],
  ],
  tags: [
    '<a<b>c',
    '<!-- open <b>x</b>',
    '<a_b>x</a_b>',
    '</A1 x="y">z',
    '<1>x<>',
    'a   \n  b  \r\n\n\n\n c',
    '<!--a--><!--b-->c<!--',
    '<p\n>x</p\t>',
    '  \u2028 x \u2029 ',
  ],
};

const ours = (template: string, vars: Record<string, unknown> = VARS): string =>
  renderTemplate(template, vars, { strict: false });

/** Each node kind of the grammar, as promptfoo's configs write them. */
const NODES = [
  'plain text, no tags',
  '{{ s }} {{ n }} {{ f }} {{ t }} {{ no }} {{ nil }} {{ missing }} {{ zero }}',
  '{{ list }}|{{ obj }}|{{ people }}|{{ [1, [2, 3], nil, "x"] }}|{{ {a: 1, "b": [2]} }}|{{ [] }}',
  '{{ obj.a }}{{ obj["b"] }}{{ list[0] }}{{ list[9] }}{{ nested.a.b[1].c }}{{ people[1].name }}{{ missing.x.y }}{{ obj.zz }}{{ s[0] }}',
  '{% if t %}yes{% elif n %}n{% else %}no{% endif %}{% if no %}a{% elif zero %}b{% else %}c{% endif %}',
  '{% if list %}L{% endif %}{% if empty %}E{% endif %}{% if obj %}O{% endif %}{% if [] %}A{% endif %}',
  '{% for x in list %}{{ loop.index }}:{{ x }}{% if not loop.last %},{% endif %}{% endfor %}',
  '{% for x in list %}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.revindex }}{{ loop.revindex0 }}|{% endfor %}',
  '{% for k, v in obj %}{{ k }}={{ v }}({{ loop.index }}/{{ loop.length }});{% endfor %}',
  '{% for a, b in pairs %}{{ a }}{{ b }}{% endfor %}{% for c in "abc" %}{{ c }}-{% endfor %}',
  '{% for x in [] %}x{% else %}none{% endfor %}{% for x in missing %}x{% else %}unset{% endfor %}',
  '{% for p in people %}{% for q in p.name %}{{ q }}{{ loop.index }}{% endfor %}/{{ loop.index }} {% endfor %}',
  '{% set x = n * 2 %}{{ x }}{% set a, b = "v" %}{{ a }}{{ b }}{% set blk %}in {{ s }}{% endset %}[{{ blk }}]',
  '{% set total = 0 %}{% for x in list %}{% set total = total + x %}{{ total }}{% endfor %}={{ total }}',
  '{% for x in list %}{% set y = x %}{% endfor %}[{{ y }}]{% if t %}{% set z = 1 %}{% endif %}{{ z }}',
  '{{ n == 3 }}{{ n != 3 }}{{ n < 4 }}{{ n > 4 }}{{ n <= 3 }}{{ n >= 4 }}{{ "3" == n }}{{ "3" === n }}{{ "3" !== n }}',
  '{{ 1 < 2 < 3 }}{{ 3 > 2 > 1 }}{{ list == list }}{{ [1] == "1" }}{{ s < "Z" }}{{ nil == missing }}',
  '{{ t and n }}{{ no or "x" }}{{ not t }}{{ nil or empty or "z" }}{{ t and no }}{{ not missing }}',
  '{{ n + 1 }} {{ n - 5 }} {{ n * f }} {{ n / 2 }} {{ 7 // 2 }} {{ 7 % 3 }} {{ 2 ** 10 }} {{ -n }} {{ +"4" }}',
  '{{ s + n }} {{ list + 1 }} {{ nil + 1 }} {{ missing + 1 }} {{ t + 1 }} {{ obj + "!" }} {{ n / 0 }}',
  '{{ s ~ n ~ list ~ nil ~ missing ~ obj ~ t }}',
  '{{ 1 in list }}{{ "World" in s }}{{ "a" in obj }}{{ "zz" in obj }}{{ 5 not in list }}{{ "A" in words }}',
  '{{ n is odd }}{{ n is even }}{{ missing is defined }}{{ missing is undefined }}{{ s is string }}{{ n is number }}',
  '{{ nil is null }}{{ 9 is divisibleby(3) }}{{ n is equalto(3) }}{{ n is ne(3) }}{{ obj is mapping }}{{ 2 is lt(3) }}',
  '{{ "y" if t else "n" }}{{ "y" if no }}{{ (n + 1) * 2 }}{{ ("a", "b") }}',
  '{%- if t -%}  x  {%- endif -%} {# a comment #}{% raw %}{{ not rendered }}{% endraw %}',
  '{% filter upper %}hi {{ s }}{% endfilter %}',
];

/** Each filter, on the kinds of value promptfoo's configs give it. */
const FILTER_CASES = [
  '{{ s | upper }}{{ s | lower }}{{ "hELLO wORLD" | capitalize }}{{ "the quick  fox" | title }}{{ nil | upper }}',
  '[{{ spaced | trim }}]{{ s | length }}{{ list | length }}{{ obj | length }}{{ nil | length }}{{ empty | length }}',
  '{{ list | join }}{{ list | join(", ") }}{{ people | join("/", "name") }}{{ [1, nil, "a", [2, 3]] | join("-") }}',
  '{{ list | first }}{{ list | last }}{{ s | first }}{{ s | last }}{{ people | first | dump }}',
  '{{ missing | default("d") }}{{ nil | default("d") }}{{ empty | default("d") }}{{ empty | default("d", true) }}{{ s | d("x") }}',
  '{{ s | replace("o", "0") }}{{ s | replace("l", "L", 2) }}{{ "abc" | replace("", "-") }}{{ n | replace(3, "three") }}{{ s | replace("zz", "y") }}',
  '{{ "3.7" | int }} {{ "3.7" | float }} {{ "x" | float(1.5) }} {{ f | int }} {{ "x" | int(7) }} {{ "ff" | int(base=16) }} {{ "12" | int(default=1, base=8) }}',
  '{{ list | string }}{{ n | string }}{{ html | escape }}{{ html | e }}{{ html | safe }}{{ n | escape }}{{ nil | e }}',
  '{{ obj | dump }}{{ people | dump(2) }}{{ s | dump }}{{ list | dump("\t") }}{{ nested | dump }}',
  '{{ neg | abs }} {{ f | round }} {{ f | round(1) }} {{ f | round(1, "floor") }} {{ f | round(2, "ceil") }}',
  '{{ list | sort }}{{ words | sort }}{{ words | sort(true) }}{{ words | sort(false, true) }}{{ people | sort(attribute="age") | join(",", "name") }}',
  '{{ people | sort(true, false, "name") | join(",", "name") }}{{ list | reverse }}{{ s | reverse }}{{ "abc" | list }}{{ obj | list | dump }}',
  '{% for k, v in obj | dictsort %}{{ k }}{{ v }}{% endfor %}{{ obj | dictsort(true) | dump }}{{ obj | dictsort(false, "value") | dump }}',
  '{{ list | batch(2) | dump }}{{ list | batch(2, "x") | dump }}{{ s | wordcount }}{{ "a, b; c-d" | wordcount }}',
  '{{ s | truncate(7) }}|{{ s | truncate(7, true) }}|{{ s | truncate(7, false, "…") }}|{{ s | truncate }}|{{ "Hello" | truncate(3) }}',
  '{{ lines | indent }}|{{ lines | indent(2, true) }}|{{ lines | nl2br }}',
  '{{ url | urlencode }}&{{ obj | urlencode }}&{{ pairs | urlencode }}',
  '{{ html | striptags }}|{{ "  a  <i>b</i>\n\n\n\n c  <x" | striptags(true) }}|{{ "<!-- x --><a<b>c" | striptags }}',
  '{% for h in tags %}[{{ h | striptags }}|{{ h | striptags(true) }}]{% endfor %}',
  '[{{ "ab" | center(7) }}][{{ "abc" | center(8) }}][{{ s | center(4) }}]',
  '{{ people | selectattr("team") | length }}{{ [{a: 1}, {a: 0}, {b: 1}] | rejectattr("a") | dump }}{{ [{a: 1}, {a: 0}] | selectattr("a") | dump }}',
  '{% for team, members in people | groupby("team") %}{{ team }}:{{ members | join(",", "name") }};{% endfor %}',
  '{{ list | sum }}{{ people | sum("age") }}{{ list | sum("", 10) }}{{ [] | sum }}',
  '{{ (json | load).a[1] }}{{ json | load | dump }}{{ "[1, 2]" | load | length }}',
];

describe('the template evaluator renders as Nunjucks renders plain data', () => {
  it.each(NODES)('node kinds: %s', (template) => {
    expect(ours(template)).toBe(oracle.renderString(template, VARS));
  });

  it.each(FILTER_CASES)('filters: %s', (template) => {
    expect(ours(template)).toBe(oracle.renderString(template, VARS));
  });

  it('covers every filter of its table', () => {
    const used = [...NODES, ...FILTER_CASES].join(' ');
    const untested = Object.keys(FILTERS).filter((name) => !new RegExp(`\\|\\s*${name}\\b`).test(used));
    expect(untested).toEqual(['forceescape']);
    expect(ours('{{ html | forceescape }}')).toBe(oracle.renderString('{{ html | escape }}', VARS));
  });

  it('in strict mode a printed value that is not set is an error naming its line; a default is not', () => {
    const strict = (t: string): string => renderTemplate(t, VARS, { strict: true });
    expect(strict('{{ missing | default("x") }}{{ s }}')).toBe('xHello World');
    expect(() => strict('a\n{{ missing }}')).toThrow(expect.objectContaining({ kind: 'unset', line: 2 }));
    expect(() => strict('{{ people | groupby("nope") }}')).toThrow(TemplateError);
  });
});

/** The error a template gives, or undefined. */
function errorOf(template: string, vars: Record<string, unknown> = VARS): TemplateError | undefined {
  try {
    ours(template, vars);
    return undefined;
  } catch (err) {
    if (err instanceof TemplateError) return err;
    throw err;
  }
}

describe('what lies outside the grammar is refused with its line, in any branch', () => {
  it.each<[string, RegExp, number]>([
    ['{{ range(3) }}', /^it holds a function call: expected variables and filters only/, 1],
    ['{{ s.upper() }}', /^it holds a function call/, 1],
    ['{% if no %}\n\n{{ cycler("a") }}{% endif %}', /^it holds a function call/, 3],
    ['{% macro m() %}x{% endmacro %}', /^it holds a function call \(a macro\)/, 1],
    ['{% call m() %}x{% endcall %}', /^it holds a function call/, 1],
    ['{% include "x" %}', /^it includes, imports or extends another template/, 1],
    ['x\n{% import "x" as y %}', /^it includes, imports or extends another template/, 2],
    ['{% from "x" import y %}', /^it includes, imports or extends another template/, 1],
    ['{% extends "x" %}', /^it includes, imports or extends another template/, 1],
    ['{% block b %}x{% endblock %}', /^it holds a block/, 1],
    ['{% switch n %}{% case 3 %}x{% endswitch %}', /^it holds 'Switch'/, 1],
    ['{% asyncEach x in list %}{{ x }}{% endeach %}', /^it holds 'AsyncEach'/, 1],
    ['{{ s | nosuch }}', /^it uses the filter 'nosuch', which is not one of the filters/, 1],
    ['{{ s | random }}', /^it uses the filter 'random'/, 1],
    ['{{ s | truncate(length=3) }}', /^it gives the filter 'truncate' the named argument 'length'/, 1],
    ['{{ list | sort(bogus=1) }}', /^it gives the filter 'sort' the named argument 'bogus': expected reverse/, 1],
    ['{{ r/abc/ }}', /^it holds a regular expression/, 1],
    ['{{ n is callable }}', /^it tests 'is callable'/, 1],
    [`{{ s${' | upper'.repeat(300)} }}`, /^it nests more than 200 deep/, 1],
  ])('%s', (template, message, line) => {
    const err = errorOf(template);
    expect(err?.kind).toBe('refused');
    expect(err?.message).toMatch(message);
    expect(err?.line).toBe(line);
    // Refused before anything renders: the parse alone refuses it.
    expect(() => parseTemplate(template)).toThrow(TemplateError);
  });

  it('a name a value has only as JavaScript is refused; a key it lacks is nothing, as in Nunjucks', () => {
    for (const t of [
      '{{ s.length }}',
      '{{ list.constructor }}',
      '{{ obj["__proto__"] }}',
      '{{ obj.toString }}',
      '{{ s["con" ~ "structor"] }}',
      '{{ list | join(",", "constructor") }}',
      '{{ [s] | groupby("constructor.name") }}',
      '{{ people | sort(attribute="name.valueOf") }}',
      '{{ people | selectattr("hasOwnProperty") }}',
    ])
      expect(errorOf(t)?.message, t).toMatch(
        /^it holds '(length|constructor|__proto__|toString|valueOf|hasOwnProperty)'/,
      );
    expect(ours('[{{ obj.missing }}{{ obj["nope"] }}]')).toBe('[]');
    // A var named like a JavaScript name is a var the test does not set.
    expect(ours('[{{ constructor }}{{ toString }}{{ __proto__ }}]', { q: 1 })).toBe('[]');
    // A mapping's own key that JavaScript also knows is data like any other.
    expect(
      ours('{{ m.constructor }}{{ m["__proto__"] }}', JSON.parse('{"m": {"constructor": "c", "__proto__": "p"}}')),
    ).toBe('cp');
  });

  it('a var that is not plain data is refused, never called or printed through its methods', () => {
    const hostile = { toString: () => 'ran', valueOf: () => 'ran' };
    for (const value of [() => 'ran', new Date(0), hostile, { nested: [new Map()] }]) {
      const err = errorOf('{{ v }}{{ v.nested[0] }}{{ v | dump }}', { v: value });
      expect(err?.kind, String(value)).toBe('refused');
    }
  });
});

describe('a template cannot outlast its bounds', () => {
  const big = Array.from({ length: 300 }, (_, i) => i);
  it.each<[string, RegExp]>([
    ['{% for a in big %}{% for b in big %}{% for c in big %}{% endfor %}{% endfor %}{% endfor %}', /handles more than/],
    [
      '{% for a in big %}{% for b in big %}{% for c in big %}.{% endfor %}{% endfor %}{% endfor %}',
      /handles more than/,
    ],
    ['{% set x = "ab" %}{% for a in big %}{% set x = x ~ x %}{% endfor %}{{ x }}', /(builds a text|handles) more than/],
    [
      '{% set x = [1] %}{% for a in big %}{% set x = [x, x] %}{% endfor %}{{ x }}',
      /(nested more than|handles more than)/,
    ],
    ['{{ "ab" | center(999999999999) }}', /builds a text of more than/],
    ['{{ [1] | batch(999999999999, "x") }}', /builds a list of more than/],
    ['{{ "abc" | replace("", long) }}', /builds a text of more than/],
    // A long part searched for in a long text: the engine's search may compare each pair of characters.
    ['{% if (part ~ "b" ~ part) in text %}{% endif %}', /handles more than/],
    ['{{ text | replace(part ~ "b" ~ part, "z") | length }}', /handles more than/],
  ])('%s', (template, message) => {
    const err = errorOf(template, {
      big,
      long: 'x'.repeat(HOLD_LIMIT / 2),
      text: 'a'.repeat(2 ** 22),
      part: 'a'.repeat(2 ** 16),
    });
    expect(err?.kind).toBe('limit');
    expect(err?.message).toMatch(message);
  });

  it('a long reply in a loop stops at the work bound, not the clock, at its line', () => {
    const output = 'x'.repeat(3000);
    const err = errorOf('{% for a in output %}\n{% for b in output %}.{% endfor %}{% endfor %}', { output });
    expect(err?.message).toMatch(new RegExp(`handles more than ${WORK_LIMIT / 2 ** 20} Mi characters and items`));
    expect(err?.line).toBe(2);
  });
});

describe('filters read a hostile reply in linear time', () => {
  // A rubricPrompt hands the reply to filters at grading time: 1 MiB takes about four times what
  // 256 KiB takes (a quadratic reader would take sixteen). The best of three runs, as a ratio, in
  // CPU time (another process on a loaded machine never reads as growth); each filter in a
  // template of its own, so each stays within one rendering's budget.
  const TEMPLATES = [
    '{{ output | striptags(true) | length }}',
    '{{ output | striptags | length }}',
    '{{ output | wordcount }}',
    '{{ output | replace("<a", "") | length }}',
    '{{ output | escape | length }}',
    '{{ "x" in output }}',
  ];
  const hostile = (mib: number): string[] => {
    const n = mib * 1024 * 1024;
    return ['<a'.repeat(n / 2), `${' '.repeat(n)}x`, '<!--'.repeat(n / 4), '<a_'.repeat(Math.floor(n / 3))];
  };
  const best = (output: string): number => {
    let fastest = Infinity;
    for (let i = 0; i < 3; i++) {
      const started = process.cpuUsage();
      for (const template of TEMPLATES) ours(template, { output });
      const used = process.cpuUsage(started);
      fastest = Math.min(fastest, (used.user + used.system) / 1000);
    }
    return fastest;
  };

  it.each([0, 1, 2, 3])('hostile input %i', (which) => {
    const small = best(hostile(0.25)[which]);
    const large = best(hostile(1)[which]);
    // Against at least 4 ms: linear readers take a few milliseconds here, a quadratic one seconds.
    expect(large / Math.max(small, 4)).toBeLessThan(10);
  });
});
