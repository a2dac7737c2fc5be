// The comparison engine on the realistic suite (compare-suite.ts): identical releases at every
// size and spread, with and without per-question noise; the power line against the power measured
// on the same suite; a 10% slowdown when questions differ in speed; unequal repeats. Measures;
// never passes or fails.
import { DEFAULT_LEVEL, SHARES, compareSides } from '../../src/compare/engine.ts';
import { stratifiedShift } from '../../src/compare/rank.ts';
import { passRatePower } from '../../src/compare/power.ts';
import type { Comparison } from '../../src/compare/types.ts';
import { type SuiteShape, suiteRates, suiteSide } from './compare-suite.ts';

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

export function measureRealistic(runs: number, only = ''): string[] {
  const lines = [
    `The realistic suite (7 in 10 questions at 0.98, 2 in 10 at 0.6, 1 in 10 at 0.05; reply times log-normal, median 800 ms; noise: per question and side on the log-odds), ${runs} comparisons a row.`,
    '',
    '| scenario | goal | figures | power line | ms per comparison |',
    '|---|---|---|---|---|',
  ];
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
    const figures = [...counts].map(([k, n]) => `${k} ${((100 * n) / runs).toFixed(1)}%`).join('; ');
    const said = row.said ? `${(100 * row.said()).toFixed(1)}%` : '—';
    lines.push(`| ${row.name} | ${row.goal} | ${figures} | ${said} | ${ms.toFixed(1)} |`);
  }
  for (const sigma of [0.25, 0.5])
    if (!only || 'the latency test alone'.includes(only) || only.includes('slower'))
      lines.push(latencyTestAlone(runs, sigma));
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.argv[2] ?? 200);
  console.log(measureRealistic(runs, process.argv[3] ?? '').join('\n'));
}
