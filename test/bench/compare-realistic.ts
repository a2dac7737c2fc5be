// The comparison engine on the realistic suite (compare-suite.ts): identical releases at every
// size and spread, with and without per-question noise; the power line against the power measured
// on the same suite; a 10% slowdown when questions differ in speed; unequal repeats. Measures;
// never passes or fails.
import { DEFAULT_LEVEL, SHARES, compareSides } from '../../src/compare/engine.ts';
import { stratifiedShift } from '../../src/compare/rank.ts';
import { passRatePower } from '../../src/compare/power.ts';
import { seededUniform } from '../../src/compare/distributions.ts';
import type { Comparison, Side } from '../../src/compare/types.ts';
import { type SuiteShape, suiteRates, suiteSide } from './compare-suite.ts';
import { type Figure, type Measured, amount, block, percent, share } from './figures.ts';

interface Row {
  name: string;
  goal: string;
  shape: SuiteShape;
  figure: (c: Comparison) => Record<string, boolean>;
  /** The power line's figure for this suite, when it says one. */
  said?: () => number;
}

const behaviourRegressed = (c: Comparison) => ({ 'behaviour regressed': c.behaviour === 'regressed' });
const suiteRegressed = (c: Comparison) => ({
  'pass rate regressed': c.metrics.some(
    (m) => m.check === '*' && m.metric === 'pass-rate' && m.verdict === 'regressed',
  ),
  'behaviour regressed': c.behaviour === 'regressed',
});
// Found: the median not `unchanged` (the slowdown seen at 95%: `regressed`, or `inconclusive`
// because whether it passes the 5% tolerance is not yet held); regressed beside it.
const p50 = (c: Comparison) => ({
  'p50 not unchanged (found)': c.metrics.some((m) => m.metric === 'latency-p50' && m.verdict !== 'unchanged'),
  'p50 regressed': c.metrics.some((m) => m.metric === 'latency-p50' && m.verdict === 'regressed'),
});
const notInconclusive = (c: Comparison) => ({
  'behaviour inconclusive': c.behaviour === 'inconclusive',
  'behaviour regressed': c.behaviour === 'regressed',
});

const SIZES: [number, number][] = [
  [1, 1],
  [2, 2],
  [10, 3],
  [30, 3],
  [50, 3],
  [200, 3],
];

function rows(): Row[] {
  const out: Row[] = [];
  for (const noise of [0, 0.5])
    for (const sigma of [0.25, 0.5, 1.0])
      for (const [questions, repeats] of SIZES)
        out.push({
          name: `A/A ${questions} × ${repeats}, σ ${sigma}${noise ? `, noise ${noise}` : ''}`,
          goal: 'behaviour regressed ≤ 5%',
          shape: { questions, repeats, sigma, noise },
          figure: behaviourRegressed,
        });
  const power = (questions: number, repeats: number, drop: number): Row => ({
    name: `pass rate −${drop * 100}%, ${questions} × ${repeats}`,
    goal: 'the power line within 5 points',
    shape: { questions, repeats, drop },
    figure: suiteRegressed,
    said: () => passRatePower(questions, repeats, { drop, rates: suiteRates(questions) }),
  });
  out.push(power(50, 3, 0.1), power(20, 3, 0.2), power(30, 3, 0.2), power(30, 3, 0.1));
  for (const sigma of [0.25, 0.5])
    out.push({
      name: `+10% slower, questions spread 0.6, 30 × 3, σ ${sigma}`,
      goal: 'found ≥ 60%',
      shape: { questions: 30, repeats: 3, spread: 0.6, sigma, slower: 1.1 },
      figure: p50,
    });
  out.push({
    name: 'A/A unequal repeats 30 × 5 against 30 × 3',
    goal: 'never inconclusive for the repeats alone',
    shape: { questions: 30, repeats: 5, candidateRepeats: 3 },
    figure: notInconclusive,
  });
  return out;
}

/**
 * The stratified latency test alone on the slowdown rows' data (no other metric, no verdict): how
 * often its one-sided p-value that the candidate is slower is within 5% (the whole level, no
 * tolerance), within the median's share of it, and within that share past the 5% tolerance.
 */
function latencyTestAlone(runs: number, sigma: number): string {
  const shape = { questions: 30, repeats: 3, spread: 0.6, sigma, slower: 1.1 };
  const share = DEFAULT_LEVEL * SHARES.latency;
  const hits = [0, 0, 0];
  for (let i = 0; i < runs; i++) {
    const byQuestion = new Map<string, [number[], number[]]>();
    for (const [k, side] of [suiteSide('a', shape, 2 * i + 1), suiteSide('b', shape, 2 * i + 2, true)].entries())
      for (const a of side.checks[0].attempts) {
        const pair = byQuestion.get(a.question) ?? byQuestion.set(a.question, [[], []]).get(a.question)!;
        pair[k].push(Math.log(a.latencyMs!));
      }
    const strata = [...byQuestion.values()].map(([b, c]) => ({
      candidateLow: Float64Array.from(c),
      candidateHigh: Float64Array.from(c),
      baselineLow: Float64Array.from(b),
      baselineHigh: Float64Array.from(b),
    }));
    const [none, tolerated] = [
      stratifiedShift(strata, DEFAULT_LEVEL, 0),
      stratifiedShift(strata, DEFAULT_LEVEL, Math.log(1.05)),
    ];
    hits[0] += none.pGreater <= DEFAULT_LEVEL ? 1 : 0;
    hits[1] += none.pGreater <= share ? 1 : 0;
    hits[2] += tolerated.pGreater <= share ? 1 : 0;
  }
  const [full, atShare, past] = hits.map((n) => `${((100 * n) / runs).toFixed(1)}%`);
  return `| +10% slower, σ ${sigma}: the latency test alone | — | at 5%, no tolerance ${full}; at its share ${share.toFixed(3)} ${atShare}; at its share past the 5% tolerance ${past} | — | — |`;
}

/** Each row's shares over `runs` comparisons, and the power line's figure where the row says one. */
interface RowResult {
  row: Row;
  shares: Map<string, number>;
  said?: number;
  ms: number;
}

function measureRows(runs: number, only = ''): RowResult[] {
  const out: RowResult[] = [];
  for (const row of rows()) {
    if (only && !row.name.includes(only)) continue;
    const counts = new Map<string, number>();
    const started = performance.now();
    for (let i = 0; i < runs; i++) {
      const a = suiteSide('a', row.shape, 2 * i + 1);
      const b = suiteSide('b', row.shape, 2 * i + 2, true);
      for (const [k, v] of Object.entries(row.figure(compareSides(a, b))))
        counts.set(k, (counts.get(k) ?? 0) + (v ? 1 : 0));
    }
    const ms = (performance.now() - started) / runs;
    out.push({ row, shares: counts, said: row.said?.(), ms });
  }
  return out;
}

const preamble = (runs: number) =>
  `The realistic suite (7 in 10 questions at 0.98, 2 in 10 at 0.6, 1 in 10 at 0.05; reply times log-normal, median 800 ms; noise: per question and side on the log-odds), ${runs} comparisons a row.`;

function table(runs: number, measured: RowResult[], only = ''): string[] {
  const alone = [0.25, 0.5]
    .filter(() => !only || 'the latency test alone'.includes(only) || only.includes('slower'))
    .map((sigma) => latencyTestAlone(runs, sigma));
  return [
    preamble(runs),
    '',
    '| scenario | goal | figures | power line | ms per comparison |',
    '|---|---|---|---|---|',
    ...measured.map(({ row, shares, said, ms }) => {
      const figures = [...shares].map(([k, n]) => `${k} ${((100 * n) / runs).toFixed(1)}%`).join('; ');
      const line = said === undefined ? '—' : `${(100 * said).toFixed(1)}%`;
      return `| ${row.name} | ${row.goal} | ${figures} | ${line} | ${ms.toFixed(1)} |`;
    }),
    ...alone,
  ];
}

export function measureRealistic(runs: number, only = ''): string[] {
  return table(runs, measureRows(runs, only), only);
}

/** A figure's name from a row's shape: `10x3.sd0.5.noise`. */
const shapeName = (s: SuiteShape) => `${s.questions}x${s.repeats}.sd${s.sigma ?? 0.5}${s.noise ? '.noise' : ''}`;

/**
 * The realistic suite's figures by name (test/bench/figures.ts) and a summary table for the docs:
 * `compare.aa.SHAPE` (identical releases read `regressed`), `compare.aa.max` (the most of those),
 * `compare.power.QxR.dropD.found` / `.said`, `compare.slower.30x3.sdS.p50-regressed` /
 * `.p50-not-unchanged`, `compare.unequal.inconclusive` / `.regressed`.
 */
export function realisticFigures(runs: number): Measured {
  const measured = measureRows(runs);
  const figures: Record<string, Figure> = {
    'compare.runs': amount(runs),
    // The standard error of a share near 5% over `runs` comparisons, in points.
    'compare.standard-error-at-5': amount(100 * Math.sqrt((0.05 * 0.95) / runs), 1, ' points'),
  };
  const count = (m: RowResult, key: string) => m.shares.get(key) ?? 0;
  const aa = measured.filter((m) => m.row.name.startsWith('A/A') && !m.row.shape.candidateRepeats);
  for (const m of aa) figures[`compare.aa.${shapeName(m.row.shape)}`] = share(count(m, 'behaviour regressed'), runs);
  const worst = Math.max(...aa.map((m) => count(m, 'behaviour regressed')));
  figures['compare.aa.max'] = share(worst, runs);
  const summary = ['| scenario | goal | measured |', '|---|---|---|'];
  for (const [questions, repeats] of SIZES) {
    const of = (sigma: number, noise: boolean) =>
      figures[`compare.aa.${shapeName({ questions, repeats, sigma, noise: noise ? 0.5 : 0 })}`].text;
    const sigmas = [0.25, 0.5, 1.0];
    summary.push(
      `| identical releases, ${questions} × ${repeats}, σ 0.25 / 0.5 / 1.0 | \`regressed\` ≤ 5% | ${sigmas.map((x) => of(x, false)).join(' / ')} (with noise ${sigmas.map((x) => of(x, true)).join(' / ')}) |`,
    );
  }
  for (const m of measured.filter((x) => x.said !== undefined)) {
    const { questions, repeats, drop = 0 } = m.row.shape;
    const name = `compare.power.${questions}x${repeats}.drop${Math.round(drop * 100)}`;
    figures[`${name}.found`] = share(count(m, 'pass rate regressed'), runs);
    figures[`${name}.said`] = percent(m.said ?? NaN);
    summary.push(
      `| a ${Math.round(drop * 100)}% drop, ${questions} × ${repeats} | the power line within 5 points | found ${figures[`${name}.found`].text}; the power line ${figures[`${name}.said`].text} |`,
    );
  }
  const slower = measured.filter((m) => m.row.shape.slower);
  for (const m of slower) {
    const name = `compare.slower.30x3.sd${m.row.shape.sigma}`;
    figures[`${name}.p50-regressed`] = share(count(m, 'p50 regressed'), runs);
    figures[`${name}.p50-not-unchanged`] = share(count(m, 'p50 not unchanged (found)'), runs);
  }
  const slowerOf = (key: string) =>
    slower.map((m) => figures[`compare.slower.30x3.sd${m.row.shape.sigma}.${key}`].text).join(' / ');
  summary.push(
    `| 10% slower, questions spread 0.6, 30 × 3, σ ${slower.map((m) => m.row.shape.sigma).join(' / ')} | — | \`regressed\` ${slowerOf('p50-regressed')}; not \`unchanged\` ${slowerOf('p50-not-unchanged')} |`,
  );
  const unequal = measured.find((m) => m.row.shape.candidateRepeats);
  if (unequal) {
    figures['compare.unequal.inconclusive'] = share(count(unequal, 'behaviour inconclusive'), runs);
    figures['compare.unequal.regressed'] = share(count(unequal, 'behaviour regressed'), runs);
    summary.push(
      `| identical releases, 30 × 5 against 30 × 3 | not \`inconclusive\` for the repeats alone | \`inconclusive\` ${figures['compare.unequal.inconclusive'].text}, \`regressed\` ${figures['compare.unequal.regressed'].text} |`,
    );
  }
  figures['compare.summary'] = block(summary);
  const single = measureSingleCheck(runs);
  return { lines: [...table(runs, measured), '', ...single.lines], figures: { ...figures, ...single.figures } };
}

/** The changes a single check's own row is measured on, and the repeats. */
const SINGLE: [number, number][] = [
  [0.9, 0.6],
  [0.9, 0.7],
  [1.0, 0.8],
];
const SINGLE_REPEATS = [3, 5, 10, 20, 30, 50];
/** The other checks of the suite the changed check is compared in (one question each, unchanged). */
const OTHER_CHECKS = 9;

/**
 * How often one check's own pass rate reads `regressed` when only that check changed, in a suite of
 * ten checks of one question each (the others near-certain, unchanged), `repeat` each side: a
 * check's own row is tested at its share of the level, corrected with the others.
 * `compare.single.FROM-TO.rREPEAT`.
 */
export function measureSingleCheck(runs: number): Measured {
  const figures: Record<string, Figure> = {};
  const lines = [
    `A single check on its own evidence: one check's own pass rate \`regressed\`, in a suite of ${OTHER_CHECKS + 1} checks of one question (the others at 0.98, unchanged), ${runs} comparisons a cell.`,
    '',
    `| pass rate | ${SINGLE_REPEATS.map((r) => `${r} repeats`).join(' | ')} |`,
    `|---|${SINGLE_REPEATS.map(() => '---:').join('|')}|`,
  ];
  for (const [from, to] of SINGLE) {
    const cells: string[] = [];
    for (const repeat of SINGLE_REPEATS) {
      let regressed = 0;
      for (let i = 0; i < runs; i++) {
        const uniform = seededUniform(1_000 * repeat + i + 1);
        const side = (label: string, changed: boolean): Side => ({
          label,
          checks: Array.from({ length: OTHER_CHECKS + 1 }, (_, k) => ({
            check: `check-${k}`,
            attempts: Array.from({ length: repeat }, () => ({
              question: `q${k}`,
              outcome: uniform() < (k === 0 ? (changed ? to : from) : 0.98) ? ('pass' as const) : ('fail' as const),
              latencyMs: 800,
            })),
          })),
        });
        const c = compareSides(side('before', false), side('after', true));
        if (c.metrics.some((m) => m.check === 'check-0' && m.metric === 'pass-rate' && m.verdict === 'regressed'))
          regressed += 1;
      }
      const f = share(regressed, runs, 0);
      figures[`compare.single.${from}-${to}.r${repeat}`] = f;
      cells.push(f.text ?? '');
    }
    lines.push(`| ${from.toFixed(2)} → ${to.toFixed(2)} | ${cells.join(' | ')} |`);
  }
  figures['compare.single.table'] = block(lines.slice(2));
  return { lines, figures };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.argv[2] ?? 200);
  console.log(measureRealistic(runs, process.argv[3] ?? '').join('\n'));
}
