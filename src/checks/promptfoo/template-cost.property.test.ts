// The evaluator's cost model, as a property: templates generated from the grammar (filters with
// their arguments, loops within loops, comparisons, `~` and `+`, set, nesting) over large texts,
// lists and mappings either render or are refused with the evaluator's own error, and either way
// the rendering's work stays within WORK_LIMIT and the largest value it held within HOLD_LIMIT.
// The counters are checked against what came out (a rendering charges at least what it wrote), so
// a filter that wrote without charging would show. CLAW_PROPERTY_RUNS sets the number of cases (a
// few dozen in CI; each may spend the whole budget).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TemplateError, evaluate, parseTemplate } from './template.js';
import { HOLD_LIMIT, WORK_LIMIT } from './template-data.js';
import { FILTERS } from './template-filters.js';

const RUNS = Number(process.env.CLAW_PROPERTY_RUNS ?? 30);

const MI = 1024 * 1024;
// Large values, built once: each case reads them as a rubricPrompt reads a reply and the test's vars.
const VARS: Record<string, unknown> = {
  big: 'x'.repeat(MI),
  euro: '€'.repeat(MI / 2),
  html: '<a href="u">&</a>\n'.repeat(MI / 32),
  words: 'lorem ipsum dolor '.repeat(MI / 32),
  json: JSON.stringify(Array.from({ length: 1 << 15 }, (_, i) => ({ a: i, b: String(i) }))),
  nums: Array.from({ length: 1 << 16 }, (_, i) => (i * 7919) % 1000),
  rows: Array.from({ length: 1 << 12 }, (_, i) => ({ name: `n${i % 97}`, age: i % 50, team: i % 3 ? 'x' : 'y' })),
  obj: Object.fromEntries(Array.from({ length: 1 << 12 }, (_, i) => [`k${i}`, i])),
  small: [3, 1, 2],
  s: 'Hello World',
  n: 3,
  nil: null,
};
const NAMES = Object.keys(VARS);

const FILTER_CALLS = [
  ...Object.keys(FILTERS),
  'replace("x", "yz")',
  'replace("", "-")',
  'replace("o", "")',
  'join(", ")',
  'join(",", "name")',
  'batch(3, 0)',
  'center(80)',
  'indent(8, true)',
  'truncate(1000, true, "…")',
  'sort(attribute="age")',
  'sort(true, true)',
  'groupby("team")',
  'selectattr("age")',
  'dictsort(false, "value")',
  'dump(2)',
  'sum("age")',
  'int(base=16)',
  'default("d")',
];

const { expr } = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    fc.constantFrom(...NAMES, 'loop.index', 'item', 'k', 'v', 'acc'),
    fc.constantFrom('"ab"', '"<b>"', '3', '0', '[1, 2, 3]', '{a: 1, b: "c"}', 'true', 'none'),
    fc.tuple(tie('expr'), fc.constantFrom(...FILTER_CALLS)).map(([e, f]) => `(${e} | ${f})`),
    fc
      .tuple(tie('expr'), fc.constantFrom('~', '+', '==', '!=', '<', '>=', '===', 'in', 'and', 'or', '*'), tie('expr'))
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([a, c, b]) => `(${a} if ${c} else ${b})`),
    fc
      .tuple(tie('expr'), fc.constantFrom('string', 'mapping', 'odd', 'lt(5)', 'equalto("x")'))
      .map(([e, t]) => `(${e} is ${t})`),
    fc.tuple(tie('expr'), fc.constantFrom('0', '1', '"a"', '"name"')).map(([e, k]) => `${e}[${k}]`),
    fc.array(tie('expr'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
  ),
}));

const { body } = fc.letrec<{ body: string }>((tie) => ({
  body: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.constantFrom('text ', '\n'),
    expr.map((e) => `{{ ${e} }}`),
    fc.tuple(expr, tie('body'), tie('body')).map(([c, a, b]) => `{% if ${c} %}${a}{% else %}${b}{% endif %}`),
    fc.tuple(expr, tie('body')).map(([e, b]) => `{% for item in ${e} %}${b}{% endfor %}`),
    fc.tuple(expr, tie('body')).map(([e, b]) => `{% for k, v in ${e} %}${b}{% else %}-{% endfor %}`),
    expr.map((e) => `{% set acc = ${e} %}`),
    expr.map((e) => `{% set acc = acc ~ ${e} %}`),
    fc.tuple(tie('body'), tie('body')).map(([a, b]) => a + b),
  ),
}));

/** Renders `source`, giving what came out (or the error) and what the rendering spent and held. */
function metered(source: string): { out?: string; err?: unknown; work: number; held: number } {
  let spent = { work: 0, held: 0 };
  try {
    const out = evaluate(parseTemplate(source), VARS, { strict: false, meter: (m) => (spent = m) });
    return { out, ...spent };
  } catch (err) {
    return { err, ...spent };
  }
}

describe('a generated template over large values stays within one budget of work and one bound on what it holds', () => {
  it('renders or is refused, its work and largest value within the bounds, at least what it wrote charged', () => {
    let refused = 0;
    fc.assert(
      fc.property(body, (source) => {
        const r = metered(source);
        if (r.err !== undefined) {
          // Only the evaluator's own error: never a RangeError (a string past V8's length), a stack overflow or an out-of-memory.
          expect(r.err, `${source}: ${String(r.err)}`).toBeInstanceOf(TemplateError);
          refused++;
        } else {
          expect(r.out!.length).toBeLessThanOrEqual(r.held);
          expect(r.out!.length).toBeLessThanOrEqual(r.work);
        }
        expect(r.work, source).toBeLessThanOrEqual(WORK_LIMIT);
        expect(r.held, source).toBeLessThanOrEqual(HOLD_LIMIT);
      }),
      { numRuns: RUNS },
    );
    // The generator reaches the bounds, not only small cases.
    if (RUNS >= 30) expect(refused).toBeGreaterThan(0);
  }, 120_000);

  // The worst cases found by hand (one per kind of work), each at the bound: the counters stop it.
  it.each([
    ['loops within loops', '{% for a in nums %}{% for b in nums %}{{ a }}{% endfor %}{% endfor %}'],
    ['a long text compared again and again', '{% for a in nums %}{{ big == big ~ "" }}{% endfor %}'],
    ['a text doubled', '{% set t = big %}{% for a in nums %}{% set t = t ~ t %}{% endfor %}'],
    ['urlencode of long pairs', '{{ [[euro, euro], [euro, euro], [euro, euro]] | urlencode | length }}'],
    ['escape of escape-dense text', '{% for a in nums %}{{ html | forceescape | length }}{% endfor %}'],
    ['sorting by an attribute', '{% for a in nums %}{{ rows | sort(attribute="name") | length }}{% endfor %}'],
    ['letters listed and sorted', '{% for a in nums %}{{ words | list | sort | length }}{% endfor %}'],
    ['JSON loaded and dumped', '{% for a in nums %}{{ json | load | dump | length }}{% endfor %}'],
    ['replace with an empty pattern', '{{ big | replace("", big) | length }}'],
    ['a text looped over by its letters', '{% for k, v in big %}{% for c in words %}{% endfor %}{% endfor %}'],
  ])('%s: refused at a bound', (_name, source) => {
    const r = metered(source);
    expect(r.err).toBeInstanceOf(TemplateError);
    expect((r.err as TemplateError).kind).toBe('limit');
    expect(r.work).toBeLessThanOrEqual(WORK_LIMIT);
    expect(r.held).toBeLessThanOrEqual(HOLD_LIMIT);
  });

  it("reads its deadline on the caller's clock: past it, refused at the line it reached, whatever it was doing", () => {
    // A clock that moves one tick each time it is read: the rendering looks every 1 Mi units.
    let ticks = 0;
    const deadline = { at: 3, now: () => ticks++ };
    const source = 'a\n{% for a in nums %}{% for b in nums %}{% endfor %}{% endfor %}';
    let spent = { work: 0, held: 0 };
    let err: unknown;
    try {
      evaluate(parseTemplate(source), VARS, { strict: false, deadline, meter: (m) => (spent = m) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemplateError);
    expect((err as TemplateError).message).toBe("it was still rendering when the step's timeout ran out");
    expect((err as TemplateError).line).toBe(2);
    // Read at the start and once per 1 Mi units: the fourth read (at 3) stopped it at 3 Mi of the 32.
    expect(ticks).toBe(4);
    expect(spent.work).toBeGreaterThanOrEqual(3 * MI);
    expect(spent.work).toBeLessThan(3 * MI + 4096);
    // A deadline already past: nothing rendered at all.
    expect(() => evaluate(parseTemplate('x'), VARS, { strict: false, deadline: { at: 0, now: () => 1 } })).toThrow(
      "it was still rendering when the step's timeout ran out",
    );
  });
});
