// The comparison engine on simulated data (test/sim/behaviour.ts), run directly: A/A false
// alarms, power for a drop in pass rate and for slower replies, and previews of two identical
// flaky Claws beside today's rule. Measures; never passes or fails. `--only compare --runs N`.
import { passRatePower } from '../../src/compare/power.ts';
import { compareSides } from '../../src/compare/engine.ts';
import type { Comparison, Side } from '../../src/compare/types.ts';
import { type BehaviourProfile, drawCheck, referenceBehaviour } from '../sim/behaviour.ts';

interface Scenario {
  name: string;
  goal: string;
  /** The two sides of comparison i. */
  sides: (i: number) => [Side, Side];
  /** The share of comparisons this scenario reports. */
  figures: (c: Comparison) => Record<string, boolean>;
}

const suite = (label: string, profile: BehaviourProfile, questions: number, repeats: number, seed: number): Side => ({
  label,
  checks: [drawCheck('suite', profile, questions, repeats, seed)],
});
const suiteRate = (c: Comparison) => c.metrics.find((m) => m.check === '*' && m.metric === 'pass-rate')!;
const p50 = (c: Comparison) => c.metrics.find((m) => m.metric === 'latency-p50');
const behaviourShares = (c: Comparison) => ({
  'behaviour regressed': c.behaviour === 'regressed',
  'behaviour improved': c.behaviour === 'improved',
  'behaviour inconclusive': c.behaviour === 'inconclusive',
  'behaviour unchanged': c.behaviour === 'unchanged',
});

/** Flaky checks as a preview compares them: `checks` checks of one question × `repeats`. */
const FLAKY_RATES = [0.99, 0.99, 0.99, 0.99, 0.99, 0.99, 0.99, 0.7, 0.7, 0.7];
const previewSide = (label: string, seed: number, repeats: number): Side => ({
  label,
  checks: FLAKY_RATES.map((p, k) =>
    drawCheck(`check-${k}`, { passRates: [p], latencyMs: 800, latencySigma: 0.5 }, 1, repeats, seed * 100 + k),
  ),
});
/** Today's rule: a check passes with all its repeats (min-pass defaults to repeat); passing on one side only is a regression. */
const todaysRegressions = (production: Side, preview: Side) =>
  production.checks.filter((_, k) => {
    const passed = (s: Side) => s.checks[k].attempts.every((a) => a.outcome === 'pass');
    return passed(production) && !passed(preview);
  }).length;

export const SCENARIOS: Scenario[] = [
  {
    name: 'A/A: 0.90 both sides, 50 questions × 3',
    goal: 'regressed ≤ 5%, improved ≤ 5%',
    sides: (i) => [
      suite('a', referenceBehaviour(), 50, 3, 2 * i + 1),
      suite('b', referenceBehaviour(), 50, 3, 2 * i + 2),
    ],
    figures: (c) => ({
      'pass rate regressed': suiteRate(c).verdict === 'regressed',
      'pass rate improved': suiteRate(c).verdict === 'improved',
      ...behaviourShares(c),
    }),
  },
  {
    name: 'power: 0.90 → 0.81, 50 questions × 3',
    goal: `regressed ≥ 80% (analytic: ${Math.round(passRatePower(50, 3) * 100)}%)`,
    sides: (i) => [
      suite('a', referenceBehaviour(), 50, 3, 2 * i + 1),
      suite('b', referenceBehaviour(0.1), 50, 3, 2 * i + 2),
    ],
    figures: (c) => ({ 'pass rate regressed': suiteRate(c).verdict === 'regressed', ...behaviourShares(c) }),
  },
  {
    name: 'power: 0.90 → 0.72, 20 questions × 3',
    goal: `regressed ≥ 80% (analytic: ${Math.round(passRatePower(20, 3, { drop: 0.2 }) * 100)}%)`,
    sides: (i) => [
      suite('a', referenceBehaviour(), 20, 3, 2 * i + 1),
      suite('b', referenceBehaviour(0.2), 20, 3, 2 * i + 2),
    ],
    figures: (c) => ({ 'pass rate regressed': suiteRate(c).verdict === 'regressed', ...behaviourShares(c) }),
  },
  {
    name: 'latency A/A: 30 replies a side (10 × 3)',
    goal: 'p50 regressed ≤ 5%, behaviour regressed ≤ 5%',
    sides: (i) => [
      suite('a', referenceBehaviour(), 10, 3, 2 * i + 1),
      suite('b', referenceBehaviour(), 10, 3, 2 * i + 2),
    ],
    figures: (c) => ({
      'p50 regressed': p50(c)?.verdict === 'regressed',
      'p95 regressed': c.metrics.some((m) => m.metric === 'latency-p95' && m.verdict === 'regressed'),
      ...behaviourShares(c),
    }),
  },
  {
    name: 'latency +50% on p50: 30 replies a side',
    goal: 'p50 regressed ≥ 80%',
    sides: (i) => [
      suite('a', referenceBehaviour(0, 800), 10, 3, 2 * i + 1),
      suite('b', referenceBehaviour(0, 1200), 10, 3, 2 * i + 2),
    ],
    figures: (c) => ({ 'p50 regressed': p50(c)?.verdict === 'regressed', ...behaviourShares(c) }),
  },
  {
    name: 'latency +50% on p50, narrower spread (sigma 0.35 in log, not 0.5)',
    goal: 'p50 regressed ≥ 80%',
    sides: (i) => {
      const narrow = (ms: number) => ({ ...referenceBehaviour(0, ms), latencySigma: 0.35 });
      return [suite('a', narrow(800), 10, 3, 2 * i + 1), suite('b', narrow(1200), 10, 3, 2 * i + 2)];
    },
    figures: (c) => ({ 'p50 regressed': p50(c)?.verdict === 'regressed', ...behaviourShares(c) }),
  },
];

export function measureComparisons(runs: number): string[] {
  const lines = [
    `The comparison engine on the simulator's behaviour profiles (80% of questions at 0.99, 20% at 0.54: 0.90 overall; reply times log-normal, median 800 ms, σ 0.5 in log), ${runs} comparisons a scenario, the default tolerances (none on pass rates, 5% on latency). Shares of comparisons.`,
    '',
    '| scenario | goal | comparisons | figures | ms per comparison |',
    '|---|---|---|---|---|',
  ];
  for (const s of SCENARIOS) {
    const counts = new Map<string, number>();
    const started = performance.now();
    for (let i = 0; i < runs; i++) {
      const [a, b] = s.sides(i);
      for (const [k, v] of Object.entries(s.figures(compareSides(a, b))))
        counts.set(k, (counts.get(k) ?? 0) + (v ? 1 : 0));
    }
    const ms = (performance.now() - started) / runs;
    const figures = [...counts].map(([k, n]) => `${k} ${((100 * n) / runs).toFixed(1)}%`).join('; ');
    lines.push(`| ${s.name} | ${s.goal} | ${runs} | ${figures} | ${ms.toFixed(0)} |`);
  }
  // Previews: two identical flaky Claws, 10 checks × 3 repeats (3 of them passing 70% of the time).
  let engine = 0;
  let today = 0;
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    const [production, preview] = [previewSide('production', 2 * i + 1, 3), previewSide('preview', 2 * i + 2, 3)];
    const c = compareSides(production, preview);
    if (c.metrics.some((m) => m.verdict === 'regressed')) engine++;
    if (todaysRegressions(production, preview) > 0) today++;
  }
  const ms = (performance.now() - started) / runs;
  lines.push(
    `| previews: two identical flaky Claws, 10 checks × 3 (3 at 0.70) | regressions > 0 in ≤ 5% | ${runs} | engine ${((100 * engine) / runs).toFixed(1)}%; today's rule ${((100 * today) / runs).toFixed(1)}% | ${ms.toFixed(0)} |`,
  );
  return lines;
}
