// A property of the template evaluator, over templates generated from its grammar mixed with
// hostile fragments (calls, macros, includes, names JavaScript gives every value, names built at
// run time, unknown filters): whatever renders holds no function's text, and whatever does not is
// the evaluator's own error, never a crash. PROPERTY_RUNS sets the number of cases (200 in CI).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TemplateError, renderTemplate } from './template.js';
import { FILTERS } from './template-filters.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

/** Text no plain value could spell a function's source with (no letters of 'function', no '=>'). */
const word = fc.stringMatching(/^[abdeghklm0-9 _.]{0,6}$/);
/** Names JavaScript gives values, and names Nunjucks' runtime has. */
const HOSTILE_NAMES = [
  'constructor',
  '__proto__',
  'prototype',
  'valueOf',
  'toString',
  'hasOwnProperty',
  'call',
  'apply',
  'bind',
  'length',
  'env',
  'range',
  'cycler',
  'joiner',
  'lipsum',
  'caller',
  'process',
  'globalThis',
  'ctx',
  'lookup',
  'filters',
];
const VAR_NAMES = ['s', 'n', 'list', 'obj', 'nil', 'people', 'loop'];
const name = fc.constantFrom(...VAR_NAMES, ...HOSTILE_NAMES);
const key = fc.oneof(name, word);

/** Plain data, with hostile keys among its keys. */
const { data } = fc.letrec<{ data: unknown }>((tie) => ({
  data: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -9, max: 99 }),
    word,
    fc.array(tie('data'), { maxLength: 4 }),
    fc.dictionary(key, tie('data'), { maxKeys: 4 }),
  ),
}));

const quoted = (text: string): string => JSON.stringify(text);
/** A name built at run time, out of pieces no check of spellings would see. */
const built = fc
  .constantFrom(...HOSTILE_NAMES)
  .chain((n) =>
    fc
      .integer({ min: 1, max: Math.max(1, n.length - 1) })
      .map((cut) => `${quoted(n.slice(0, cut))} ~ ${quoted(n.slice(cut))}`),
  );
const filterName = fc.constantFrom(...Object.keys(FILTERS), ...HOSTILE_NAMES, 'random', 'nosuch');

const { expr } = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    name,
    word.map(quoted),
    fc.integer({ min: -5, max: 50 }).map(String),
    fc.constantFrom('true', 'false', 'none'),
    built,
    fc.tuple(tie('expr'), name).map(([e, k]) => `${e}.${k}`),
    fc.tuple(tie('expr'), tie('expr')).map(([e, k]) => `${e}[${k}]`),
    fc.tuple(tie('expr'), built).map(([e, k]) => `${e}[${k}]`),
    fc
      .tuple(
        tie('expr'),
        fc.constantFrom('+', '-', '*', '/', '//', '%', '~', 'and', 'or', '==', '!=', '<', 'in'),
        tie('expr'),
      )
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('expr').map((e) => `not ${e}`),
    fc.array(tie('expr'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.tuple(key, tie('expr')).map(([k, v]) => `{${quoted(k)}: ${v}}`),
    fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([a, c, b]) => `(${a} if ${c} else ${b})`),
    fc
      .tuple(tie('expr'), filterName, fc.array(tie('expr'), { maxLength: 2 }))
      .map(([e, f, args]) => `(${e} | ${f}${args.length ? `(${args.join(', ')})` : ''})`),
    // Hostile: calls of anything.
    fc.tuple(tie('expr'), fc.array(tie('expr'), { maxLength: 2 })).map(([e, args]) => `${e}(${args.join(', ')})`),
  ),
}));

const { body } = fc.letrec<{ body: string }>((tie) => ({
  body: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    word,
    expr.map((e) => `{{ ${e} }}`),
    fc
      .tuple(expr, tie('body'), tie('body'))
      .map(([c, a, b]) => `{% if ${c} %}${a}{% elif ${c} %}{% else %}${b}{% endif %}`),
    fc.tuple(expr, tie('body')).map(([e, b]) => `{% for x in ${e} %}{{ loop.index }}${b}{% endfor %}`),
    fc.tuple(expr, tie('body')).map(([e, b]) => `{% for k, v in ${e} %}{{ k }}{{ v }}${b}{% else %}-{% endfor %}`),
    fc.tuple(name, expr).map(([n, e]) => `{% set ${n} = ${e} %}`),
    fc.tuple(tie('body'), tie('body')).map(([a, b]) => a + b),
    // Hostile fragments outside the grammar.
    fc.constantFrom(
      '{% macro m() %}x{% endmacro %}{{ m() }}',
      '{% include "x" %}',
      '{% import "x" as y %}',
      '{% extends "x" %}',
      '{% block b %}{% endblock %}',
      '{% call m() %}{% endcall %}',
      '{% raw %}{{ range.constructor("return 1")() }}{% endraw %}',
      '{{ range.constructor("return process")() }}',
      '{{ "a" | join.constructor }}',
      '{% set f = {join: s} %}{{ f | join("x") }}',
      '{% for k, v in obj | dictsort %}{{ v }}{% endfor %}',
      '{{ {} | valueOf }}',
      '{% filter upper %}x{% endfilter %}',
      '{{',
      '{% if %}',
    ),
  ),
}));

const vars = fc.record({
  s: word,
  n: fc.integer({ min: -3, max: 30 }),
  list: fc.array(data, { maxLength: 5 }),
  obj: fc.dictionary(key, data, { maxKeys: 5 }),
  nil: fc.constant(null),
  people: fc.array(fc.record({ name: word, age: fc.integer({ min: 0, max: 99 }) }), { maxLength: 4 }),
});

/** What a function's text (or a handle on one) would show. */
const FUNCTION_TEXT = /function|=>|\[native code\]|\[object Function\]|class /;

describe('a generated template, hostile fragments and all', () => {
  it('renders text holding no function, or fails with the evaluator’s own error', () => {
    fc.assert(
      fc.property(body, vars, fc.boolean(), (template, values, strict) => {
        let out: string;
        try {
          out = renderTemplate(template, values, { strict });
        } catch (err) {
          expect(err, `${template}: ${String(err)}`).toBeInstanceOf(TemplateError);
          return;
        }
        expect(out, template).not.toMatch(FUNCTION_TEXT);
      }),
      { numRuns: RUNS },
    );
  });
});
