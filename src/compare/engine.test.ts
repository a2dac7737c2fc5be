// The engine's verdicts on made-up sides: what each verdict needs, missing data, a judge change,
// cached verdicts, tolerances from the checks file and the order of precedence.
import { describe, expect, it } from 'vitest';
import { seededUniform } from './distributions.js';
import { KEPT_BY_SHARE, UNCLEAR_TOLERANCE, compareSides, decide, weightedHolm, worstVerdict } from './engine.js';
import type { Evidence } from './evidence.js';
import type { Attempt, CheckRun, MetricResult, Side } from './types.js';

/** `questions` questions × `repeats`, question i passing with rate(i) (seeded), replies of `latency` ms (× e^±0.7, sd 0.35 in log). */
function run(
  check: string,
  seed: number,
  o: {
    questions?: number;
    repeats?: number;
    rate?: (q: number) => number;
    latency?: number;
    spread?: number;
    extra?: Partial<Attempt>;
  },
): CheckRun {
  const uniform = seededUniform(seed);
  const attempts: Attempt[] = [];
  for (let q = 0; q < (o.questions ?? 50); q++)
    for (let r = 0; r < (o.repeats ?? 3); r++)
      attempts.push({
        question: `q${q}`,
        outcome: uniform() < (o.rate ?? (() => 0.9))(q) ? 'pass' : 'fail',
        latencyMs: (o.latency ?? 800) * Math.exp((o.spread ?? 0.35) * (uniform() + uniform() + uniform() - 1.5) * 2),
        ...o.extra,
      });
  return { check, attempts };
}
const side = (label: string, ...checks: CheckRun[]): Side => ({ label, checks });
const metric = (m: MetricResult[], check: string, name: MetricResult['metric']) =>
  m.find((x) => x.check === check && x.metric === name)!;
const profile = (drop: number) => (q: number) => (q % 5 ? 0.99 : 0.54) * (1 - drop);

describe('compareSides', () => {
  it('reads reply times measured at another time (a saved run) without letting them decide behaviour', () => {
    const before = side('saved', run('c', 1, { latency: 800 }));
    const after = side('now', run('c', 1, { latency: 1600 }));
    expect(compareSides(before, after).behaviour).toBe('regressed');
    const apart = compareSides(before, after, { timesApart: 'measured at another time' });
    const p50 = metric(apart.metrics, '*', 'latency-p50');
    expect(p50).toMatchObject({ verdict: 'inconclusive', reason: 'measured at another time', primary: false });
    expect(metric(apart.metrics, '*', 'latency-p95')).toMatchObject({ verdict: 'inconclusive' });
    expect(apart.behaviour).toBe('unchanged');
  });

  it('weighs every question alike in the suite pass rate, however often the gate asked it', () => {
    // 12 questions steady on both sides, asked once; 8 that fail on the candidate asked 3 times.
    const side = (label: string, failing: boolean): Side => {
      const attempts: Attempt[] = [];
      for (let q = 0; q < 20; q++)
        for (let r = 0; r < (q < 12 ? 1 : 3); r++)
          attempts.push({ question: `q${q}`, outcome: failing && q >= 12 ? 'fail' : 'pass' });
      return { label, checks: [{ check: 'c', attempts }] };
    };
    const suite = (tolerance?: number) =>
      compareSides(side('before', false), side('after', true), {
        ...(tolerance === undefined ? {} : { tolerance: { passRate: tolerance } }),
      }).metrics.find((m) => m.check === '*' && m.metric === 'pass-rate')!;
    // Pooled, the candidate would read 12 of 36 (a 67-point drop); by question it passes 12 of 20.
    expect(suite()).toMatchObject({ baseline: { value: 1, n: 20 }, candidate: { value: 0.6, n: 20 } });
    expect(suite().change).toBeCloseTo(-0.4, 12);
    expect(suite().verdict).toBe('regressed');
    // A 40-point drop is inside a 50-point tolerance.
    expect(suite(0.5).verdict).not.toBe('regressed');
  });

  it('says nothing when nothing was compared', () => {
    expect(compareSides(side('a'), side('b'))).toEqual({ behaviour: '', metrics: [] });
  });

  it('calls identical sides unchanged, primary metrics first, every figure with its n', () => {
    const same = run('greets', 1, { rate: () => 1, spread: 0.02 });
    const { behaviour, metrics } = compareSides(side('a', same), side('b', same));
    expect(metrics.map((m) => `${m.check} ${m.metric} ${m.primary}`)).toEqual([
      '* pass-rate true',
      '* latency-p50 true',
      '* unjudged true',
      '* latency-p95 false',
      'greets pass-rate false',
    ]);
    expect(metric(metrics, '*', 'pass-rate')).toMatchObject({
      baseline: { value: 1, n: 150 },
      change: 0,
      verdict: 'unchanged',
    });
    expect(metric(metrics, '*', 'latency-p50')).toMatchObject({ change: expect.closeTo(0, 6), verdict: 'unchanged' });
    expect(behaviour).toBe('unchanged');
  });

  it('calls two draws of the same Claw unchanged, each interval saying how large a change it could hide', () => {
    const { behaviour, metrics } = compareSides(side('a', run('c', 1, {})), side('b', run('c', 2, {})));
    expect(behaviour).toBe('unchanged');
    for (const m of metrics) {
      expect(m.verdict, `${m.check} ${m.metric}`).toBe('unchanged');
      expect(m.low!).toBeLessThanOrEqual(0);
      expect(m.high!).toBeGreaterThanOrEqual(0);
    }
    // The pass rate: 2 points up, its 95% interval about ±7 points; the one-sided bound inside it.
    const suite = metric(metrics, '*', 'pass-rate');
    expect(suite.change!).toBeCloseTo(0.02, 10);
    expect(suite.bound!).toBeLessThan(suite.high!);
    expect(suite.bound!).toBeGreaterThan(suite.change!);
  });

  it('leaves a slowdown inconclusive when it is plainly there but straddles the tolerance, saying so', () => {
    // 8% slower on every reply, 150 replies a side: plainly slower, but past the 5% tolerance or not?
    const c = compareSides(
      side('a', run('c', 1, { rate: () => 1, latency: 800 })),
      side('b', run('c', 2, { rate: () => 1, latency: 864 })),
    );
    const p50 = metric(c.metrics, '*', 'latency-p50');
    expect(p50).toMatchObject({ verdict: 'inconclusive', reason: UNCLEAR_TOLERANCE });
    expect(p50.low!).toBeGreaterThan(0);
    expect(p50.low!).toBeLessThan(0.05 * p50.baseline.value!);
    expect(p50.high!).toBeGreaterThan(0.05 * p50.baseline.value!);
    expect(c.behaviour).toBe('inconclusive');
  });

  it('reads times polled too loosely for the tolerance inconclusive, saying what polls would measure them to it', () => {
    // Tasks seen done 300 ms after the last poll that saw them running, on both sides of one Claw.
    const polled = (r: CheckRun, gapMs: number): CheckRun => ({
      ...r,
      attempts: r.attempts.map((a) => ({ ...a, latencyLowMs: a.latencyMs! - gapMs })),
    });
    const [a, b] = [run('c', 1, { rate: () => 1, latency: 800 }), run('c', 2, { rate: () => 1, latency: 800 })];
    const loose = metric(
      compareSides(side('a', polled(a, 300)), side('b', polled(b, 300))).metrics,
      '*',
      'latency-p50',
    );
    expect(loose.verdict).toBe('inconclusive');
    const margin = Math.round(0.05 * loose.baseline.value!);
    expect(loose.reason).toMatch(
      new RegExp(`^reply times known to ±1\\d\\d ms at this budget, the tolerance is ±${margin} ms: `),
    );
    // Polls the tolerance apart across where most replies come, for each of the side's 150 replies.
    const [, from, to, polls, total] =
      /a poll every \d+ ms from (\d+) to (\d+) ms after the message \(about (\d+) polls a reply, (\d+) a side\)/
        .exec(loose.reason!)!
        .map(Number);
    expect(Number(polls)).toBe(Math.ceil((to - from) / margin) + 2);
    expect(total).toBe(polls * 150);
    expect(from).toBeLessThan(loose.baseline.value!);
    expect(to).toBeGreaterThan(loose.baseline.value!);
    // Polls 10 ms apart know the same replies well enough: no such reason.
    const narrow = metric(compareSides(side('a', polled(a, 10)), side('b', polled(b, 10))).metrics, '*', 'latency-p50');
    expect(narrow.reason ?? '').not.toMatch(/known to/);
  });

  it('calls a 20% drop over 50 questions × 3 regressed, with the whole interval below zero', () => {
    const c = compareSides(
      side('a', run('c', 1, { rate: profile(0) })),
      side('b', run('c', 2, { rate: profile(0.3) })),
    );
    const suite = metric(c.metrics, '*', 'pass-rate');
    expect(suite.verdict).toBe('regressed');
    expect(suite.high!).toBeLessThan(0);
    expect(suite.change!).toBeLessThan(0);
    expect(c.behaviour).toBe('regressed');
  });

  it('calls a rise improved, and latency 50% slower regressed past its 5% tolerance', () => {
    const c = compareSides(
      side('a', run('c', 3, { rate: profile(0.3), latency: 800 })),
      side('b', run('c', 4, { rate: profile(0), latency: 1200 })),
    );
    expect(metric(c.metrics, '*', 'pass-rate').verdict).toBe('improved');
    const p50 = metric(c.metrics, '*', 'latency-p50');
    expect(p50.verdict).toBe('regressed');
    // The one-sided bound on the worse side past the 5% tolerance; the 95% interval reaches below it.
    expect(p50.bound!).toBeGreaterThan(0.05 * p50.baseline.value!);
    expect(p50.low!).toBeLessThan(p50.bound!);
    expect(c.behaviour).toBe('regressed');
  });

  it('calls a small sample unchanged on its pass rate, its reply times too few to tell: never regressed', () => {
    const c = compareSides(
      side('a', run('c', 5, { questions: 2, repeats: 1 })),
      side('b', run('c', 6, { questions: 2, repeats: 1 })),
    );
    const suite = metric(c.metrics, '*', 'pass-rate');
    expect(suite.verdict).toBe('unchanged');
    expect(suite.reason).toBeUndefined();
    expect(suite.low!).toBeLessThan(-0.5);
    expect(suite.high!).toBeGreaterThan(0.5);
    expect(metric(c.metrics, '*', 'latency-p50')).toMatchObject({
      verdict: 'inconclusive',
      reason: 'too few reply times a question to reach its share of the level (about 5 a side in one question would)',
    });
    expect(c.behaviour).toBe('inconclusive');
  });

  it('one reply a side, twice slower and failing: never regressed, each metric saying what it needs', () => {
    const one = (outcome: Attempt['outcome'], latencyMs: number) =>
      side('x', { check: 'c', attempts: [{ question: 'q', outcome, latencyMs }] });
    const c = compareSides(one('pass', 800), one('fail', 1600));
    expect(c.metrics.filter((m) => m.verdict === 'regressed')).toEqual([]);
    expect(metric(c.metrics, '*', 'latency-p50').reason).toBe(
      'the reply time needs 5 values a side to reach its share of the level (1 on the smaller side)',
    );
    expect(metric(c.metrics, '*', 'latency-p95').reason).toMatch(/^the 95th percentile needs \d+ replies a side/);
    expect(metric(c.metrics, 'c', 'pass-rate')).toMatchObject({
      verdict: 'inconclusive',
      reason:
        'passed 1/1 on the baseline and failed 1/1 on the candidate: a check that passes 50% of the time on both sides does this 25% of the time; repeat: 7 on both sides would tell it from chance',
    });
    expect(c.behaviour).toBe('inconclusive');
  });

  it('never calls a flaky check that behaves the same on both sides regressed; a complete flip reads inconclusive', () => {
    // 10 checks × 3 repeats, 3 of them passing 7 times in 10, on both sides: 20 seeded pairs.
    const flaky = (seed: number) =>
      Array.from({ length: 10 }, (_, k) =>
        run(`check-${k}`, seed * 100 + k, { questions: 1, repeats: 3, rate: () => (k < 3 ? 0.7 : 0.99) }),
      );
    const verdicts = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const c = compareSides(side('production', ...flaky(2 * i + 1)), side('preview', ...flaky(2 * i + 2)));
      for (const m of c.metrics.filter((x) => x.check.startsWith('check-'))) {
        verdicts.add(m.verdict);
        // A complete flip says so; a check worse at 95% but not at its share says that (neither counts as regressed).
        if (m.verdict === 'inconclusive')
          expect(m.reason).toMatch(
            /^((passed|failed) 3\/3 on the baseline|worse past its tolerance at 95%, not at its share)/,
          );
      }
    }
    expect(verdicts.has('regressed')).toBe(false);
    expect(verdicts.has('unchanged')).toBe(true);
  });

  it('compares unequal repeats by design (5 against 3) without calling them missing', () => {
    const c = compareSides(side('a', run('c', 21, { repeats: 5 })), side('b', run('c', 22, { repeats: 3 })));
    expect(metric(c.metrics, '*', 'pass-rate')).toMatchObject({ verdict: 'unchanged' });
    expect(c.behaviour).toBe('unchanged');
  });

  it('shares the level by weight, a test that cannot reach its share leaving it to the others (Tarone)', () => {
    const e = (pWorse: number, smallest = 0) =>
      ({ pWorse, pBetter: 1, smallestP: { worse: smallest, better: smallest } }) as unknown as Evidence;
    // Weights 0.8 and 0.2 at 5%: 0.045 is past the first's share (0.04) while the second can reach its own.
    expect(
      weightedHolm(
        [
          { e: e(0.045), weight: 0.8, primary: true },
          { e: e(0.5), weight: 0.2, primary: true },
        ],
        0.05,
        'worse',
      ),
    ).toEqual([false, false]);
    // The second can never go under 1%: left out, the first has the whole 5%.
    expect(
      weightedHolm(
        [
          { e: e(0.045), weight: 0.8, primary: true },
          { e: e(0.5, 0.5), weight: 0.2, primary: true },
        ],
        0.05,
        'worse',
      ),
    ).toEqual([true, false]);
    // Step-down: the first held at its share, the second then has the whole level.
    expect(
      weightedHolm(
        [
          { e: e(0.001), weight: 0.8, primary: true },
          { e: e(0.03), weight: 0.2, primary: true },
        ],
        0.05,
        'worse',
      ),
    ).toEqual([true, true]);
    // The shares scale with the level: at 1%, 0.009 is past 0.8 × 1%.
    expect(
      weightedHolm(
        [
          { e: e(0.009), weight: 0.8, primary: true },
          { e: e(0.5), weight: 0.2, primary: true },
        ],
        0.01,
        'worse',
      ),
    ).toEqual([false, false]);
  });

  it('never counts a missing verdict as a pass: over 20% unjudged makes pass rates inconclusive, saying why', () => {
    const before = run('c', 7, { rate: () => 1 });
    const after = run('c', 7, { rate: () => 1 });
    after.attempts.forEach((a, i) => {
      if (i % 4 === 0) Object.assign(a, { outcome: 'unjudged', latencyMs: undefined });
    });
    const c = compareSides(side('a', before), side('b', after));
    expect(metric(c.metrics, '*', 'pass-rate')).toMatchObject({
      verdict: 'inconclusive',
      reason: expect.stringMatching(/25% of the candidate's attempts could not be judged or were not made/),
    });
    expect(metric(c.metrics, '*', 'unjudged')).toMatchObject({
      candidate: { value: 38 / 150, n: 150 },
      verdict: 'regressed',
    });
    expect(metric(c.metrics, '*', 'latency-p50').reason).toMatch(/have no reply time/);
    expect(c.behaviour).toBe('regressed');
  });

  it('makes judge-graded metrics inconclusive across a change of judge, naming it', () => {
    const graded = (model: string, promptHash: string, seed: number) =>
      run('polite', seed, { rate: () => 1, extra: { judge: { model, promptHash }, score: 0.9 } });
    const model = compareSides(side('a', graded('judge-1', 'abc', 1)), side('b', graded('judge-2', 'abc', 1)));
    expect(metric(model.metrics, 'polite', 'pass-rate').reason).toBe(
      'the judge of check polite changed from judge-1 to judge-2',
    );
    expect(metric(model.metrics, '*', 'pass-rate').verdict).toBe('inconclusive');
    expect(metric(model.metrics, '*', 'score').verdict).toBe('inconclusive');
    const prompt = compareSides(side('a', graded('judge-1', 'abc', 1)), side('b', graded('judge-1', 'def', 1)));
    expect(metric(prompt.metrics, 'polite', 'pass-rate').reason).toBe(
      'the grading prompt of check polite changed (abc → def)',
    );
    const same = compareSides(side('a', graded('judge-1', 'abc', 1)), side('b', graded('judge-1', 'abc', 1)));
    expect(metric(same.metrics, '*', 'score').verdict).toBe('unchanged');
  });

  it('reads a baseline cut short (a cancel) as missing, never as the questions it did not reach', () => {
    const after = run('c', 11, {});
    const cut = { ...after, attempts: after.attempts.slice(0, 90) };
    const c = compareSides(side('a', cut), side('b', after));
    expect(metric(c.metrics, '*', 'pass-rate')).toMatchObject({
      verdict: 'inconclusive',
      reason: "40% of the baseline's attempts could not be judged or were not made (more than 20%)",
    });
    expect(metric(c.metrics, 'c', 'pass-rate').verdict).toBe('inconclusive');
    // Every question made on both sides, fewer repeats on one: not missing.
    const fewer = { ...after, attempts: after.attempts.filter((_, i) => i % 3 !== 2) };
    expect(metric(compareSides(side('a', fewer), side('b', after)).metrics, '*', 'pass-rate').reason).toBeUndefined();
  });

  it('names a judge in a reason on one line, cut short, whatever the endpoint called itself', () => {
    const graded = (model: string) => run('c', 1, { rate: () => 1, extra: { judge: { model, promptHash: 'abc' } } });
    const c = compareSides(
      side('a', graded('judge-1')),
      side('b', graded(`judge-2\n::error::forged ${'x'.repeat(200)}`)),
    );
    const reason = metric(c.metrics, 'c', 'pass-rate').reason!;
    expect(reason).not.toMatch(/\n/);
    expect(reason).toMatch(
      /^the judge of check c changed from judge-1 to judge-2 ::error::forged x+… \(\d+ more characters\)$/,
    );
  });

  it('counts a cached verdict once per question and side, never as n attempts', () => {
    const cached = run('c', 8, { rate: () => 1, extra: { cached: true } });
    const c = compareSides(side('a', cached), side('b', cached));
    expect(metric(c.metrics, '*', 'pass-rate').baseline.n).toBe(50);
  });

  it("takes a check's tolerance from the checks file: a drop inside it is not a regression", () => {
    const before = run('c', 9, { questions: 100, repeats: 5, rate: () => 0.95 });
    const after = run('c', 10, { questions: 100, repeats: 5, rate: () => 0.85 });
    const strict = compareSides(side('a', before), side('b', after));
    expect(metric(strict.metrics, 'c', 'pass-rate').verdict).toBe('regressed');
    const tolerant = compareSides(side('a', before), side('b', { ...after, tolerance: { passRate: 0.3 } }));
    expect(metric(tolerant.metrics, 'c', 'pass-rate').verdict).toBe('unchanged');
  });

  it('counts a secondary regression in behaviour only when it survives the false-discovery correction', () => {
    const checks = (drop: number, seed: number) =>
      Array.from({ length: 20 }, (_, i) =>
        run(`check-${i}`, seed + i, { questions: 1, repeats: 10, rate: () => (i === 0 ? 1 - drop : 0.9) }),
      );
    const c = compareSides(side('a', ...checks(0, 100)), side('b', ...checks(1, 200)));
    expect(metric(c.metrics, 'check-0', 'pass-rate').verdict).toBe('regressed');
    expect(c.metrics.filter((m) => !m.primary && m.verdict === 'regressed')).toHaveLength(1);
  });

  it('marks a check that ran on one side only inconclusive', () => {
    const c = compareSides(side('a', run('old', 1, {}), run('kept', 2, {})), side('b', run('kept', 3, {})));
    expect(metric(c.metrics, 'old', 'pass-rate')).toMatchObject({
      verdict: 'inconclusive',
      reason: 'the check ran on the baseline side only',
    });
  });
});

/** Evidence with a change and its ends, in the change's units. */
const evidence = (o: {
  worse: 1 | -1;
  low: number;
  high: number;
  lowerBound: number;
  upperBound: number;
  margin?: number;
  blocked?: string;
}): Evidence => ({
  check: '*',
  metric: o.worse > 0 ? 'latency-p50' : 'pass-rate',
  baseline: { value: 0.9, n: 150 },
  candidate: { value: 0.9, n: 150 },
  change: (o.lowerBound + o.upperBound) / 2,
  pWorse: 0.5,
  pBetter: 0.5,
  margin: 0,
  ...o,
});

describe('decide: every branch of the verdict', () => {
  // Pass rates (lower is worse) with no tolerance; latency (higher is worse) with a tolerance of 50 ms.
  const cases: [string, Parameters<typeof evidence>[0], boolean, boolean, string, string?][] = [
    [
      'blocked: inconclusive, saying why',
      { worse: -1, low: -0.3, high: -0.1, lowerBound: -0.28, upperBound: -0.12, blocked: 'too much missing' },
      true,
      false,
      'inconclusive',
      'too much missing',
    ],
    [
      'worse held, the bound past 0: regressed',
      { worse: -1, low: -0.2, high: -0.01, lowerBound: -0.18, upperBound: -0.03 },
      true,
      false,
      'regressed',
    ],
    [
      'better held, the bound past 0: improved',
      { worse: -1, low: 0.01, high: 0.2, lowerBound: 0.03, upperBound: 0.18 },
      false,
      true,
      'improved',
    ],
    [
      'the interval across 0: unchanged',
      { worse: -1, low: -0.07, high: 0.07, lowerBound: -0.05, upperBound: 0.05 },
      false,
      false,
      'unchanged',
    ],
    [
      'a wide interval across 0 is still unchanged',
      { worse: -1, low: -0.6, high: 0.6, lowerBound: -0.5, upperBound: 0.5 },
      false,
      false,
      'unchanged',
    ],
    [
      'worse past no tolerance at 95%, the shared level not holding: inconclusive, never unchanged',
      { worse: -1, low: -0.3, high: -0.05, lowerBound: -0.28, upperBound: -0.08 },
      false,
      false,
      'inconclusive',
      KEPT_BY_SHARE,
    ],
    [
      'a slowdown wholly past the tolerance at 95%, not held: inconclusive (never milder than straddling it)',
      { worse: 1, low: 60, high: 200, lowerBound: 70, upperBound: 180, margin: 50 },
      false,
      false,
      'inconclusive',
      KEPT_BY_SHARE,
    ],
    [
      'worse past no tolerance at the one-sided bound only, not held: unchanged, saying so',
      { worse: -1, low: -0.2, high: 0.01, lowerBound: -0.18, upperBound: -0.01 },
      false,
      false,
      'unchanged',
      'kept unchanged by the level shared among the metrics: past its tolerance at 95%, not at its share',
    ],
    [
      'the worse direction held but the change better: never regressed',
      { worse: -1, low: -0.02, high: 0.2, lowerBound: 0.01, upperBound: 0.18 },
      true,
      false,
      'unchanged',
      'kept unchanged by the level shared among the metrics: past its tolerance at 95%, not at its share',
    ],
    [
      'held, the bound past the tolerance: regressed',
      { worse: 1, low: 55, high: 200, lowerBound: 60, upperBound: 180, margin: 50 },
      true,
      false,
      'regressed',
    ],
    [
      'held, the bound short of the tolerance, the interval across 0: unchanged',
      { worse: 1, low: -5, high: 120, lowerBound: 10, upperBound: 100, margin: 50 },
      true,
      false,
      'unchanged',
    ],
    [
      'a change wholly inside the tolerance: unchanged',
      { worse: 1, low: 5, high: 40, lowerBound: 8, upperBound: 35, margin: 50 },
      true,
      false,
      'unchanged',
    ],
    [
      'a slowdown straddling the tolerance: inconclusive',
      { worse: 1, low: 10, high: 120, lowerBound: 20, upperBound: 100, margin: 50 },
      true,
      false,
      'inconclusive',
      UNCLEAR_TOLERANCE,
    ],
    [
      'a speed-up straddling the tolerance: inconclusive',
      { worse: 1, low: -120, high: -10, lowerBound: -100, upperBound: -20, margin: 50 },
      false,
      true,
      'inconclusive',
      UNCLEAR_TOLERANCE,
    ],
    [
      'held and past the tolerance, a speed-up: improved',
      { worse: 1, low: -200, high: -55, lowerBound: -180, upperBound: -60, margin: 50 },
      false,
      true,
      'improved',
    ],
  ];
  it.each(cases)('%s', (_, e, worseHeld, betterHeld, verdict, reason) => {
    expect(decide(evidence(e), worseHeld, betterHeld)).toEqual({ verdict, ...(reason ? { reason } : {}) });
  });

  it('is inconclusive with no interval, whatever the corrections hold', () => {
    const e = { ...evidence({ worse: -1, low: 0, high: 0, lowerBound: 0, upperBound: 0 }), low: null, high: null };
    expect(decide(e, true, true)).toEqual({ verdict: 'inconclusive', reason: 'nothing to compare' });
  });
});

describe('worstVerdict', () => {
  it('orders regressed > inconclusive > improved > unchanged, and is empty for nothing', () => {
    expect(worstVerdict(['unchanged', 'improved'])).toBe('improved');
    expect(worstVerdict(['improved', 'inconclusive', 'unchanged'])).toBe('inconclusive');
    expect(worstVerdict(['inconclusive', 'regressed'])).toBe('regressed');
    expect(worstVerdict([])).toBe('');
  });
});
