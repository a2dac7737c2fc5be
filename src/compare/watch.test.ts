import { describe, expect, it } from 'vitest';
import { phi, seededUniform } from './distributions.js';
import { readFileSync } from 'node:fs';
import {
  QUIET_H,
  QUIET_K,
  cusumArl,
  dispersion,
  excursionZ,
  quietNoise,
  driftContrastVariance,
  fitDrift,
  mixtureBoundary,
  quietWatch,
  tightestRho,
  type WatchRun,
  watchDeployment,
  withinDayDispersion,
} from './watch.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const DEPLOYED = Date.parse('2026-03-08T00:00:00Z');
/** The benchmark's reference Claw: 80% of questions near-certain, 20% flaky (0.90 overall). */
const REFERENCE = [0.99, 0.99, 0.99, 0.99, 0.54];

/** Per-question pass rates, or 'swinging': every run's rate drawn between 0.70 and 0.95 (runs vary more than binomial). */
type Rates = number[] | 'swinging';

/** One health run: 10 questions × 3 repeats drawn from per-question pass rates (× (1 − drop)). */
function drawRun(uniform: () => number, at: number, rates: Rates, drop = 0): WatchRun {
  const runRate = rates === 'swinging' ? [0.7 + 0.25 * uniform()] : rates;
  let passed = 0;
  for (let i = 0; i < 30; i++) if (uniform() < runRate[Math.floor(i / 3) % runRate.length] * (1 - drop)) passed++;
  return { at, passed, failed: 30 - passed, unjudged: 0 };
}

/** A week of runs at 4 a day before the deployment, and `after` runs at 4 a day since. */
function week(uniform: () => number, rates: Rates, after: number, drop = 0): WatchRun[] {
  const runs: WatchRun[] = [];
  for (let k = 28; k >= 1; k--) runs.push(drawRun(uniform, DEPLOYED - k * 6 * HOUR, rates));
  for (let k = 0; k < after; k++) runs.push(drawRun(uniform, DEPLOYED + k * 6 * HOUR + HOUR, rates, drop));
  return runs;
}

const fixed = (at: number, passed: number, failed: number, unjudged = 0): WatchRun => ({
  at,
  passed,
  failed,
  unjudged,
});
/** `count` identical runs 6 hours apart, the first at `from`. */
const repeated = (from: number, count: number, passed: number, failed: number) =>
  Array.from({ length: count }, (_, k) => fixed(from + k * 6 * HOUR, passed, failed));

describe('the mixture boundary', () => {
  it('is where the half-normal mixture martingale reaches 1/α', () => {
    for (const [information, rho] of [
      [10, 3],
      [400, 50],
      [2000, 2000],
    ]) {
      const s = mixtureBoundary(information, rho, 0.05);
      const scale = information + rho;
      const mixture = 2 * Math.sqrt(rho / scale) * Math.exp((s * s) / (2 * scale)) * phi(s / Math.sqrt(scale));
      expect(mixture).toBeCloseTo(20, 8);
    }
  });

  it('is narrowest, as a bound on the difference, at the information ρ was chosen for', () => {
    const rho = tightestRho(400, 0.05);
    const width = (r: number) => mixtureBoundary(400, r, 0.05) / 400;
    expect(width(rho)).toBeLessThan(width(rho * 2));
    expect(width(rho)).toBeLessThan(width(rho / 2));
  });
});

describe('the dispersion of the baseline', () => {
  it('is near 1 for independent attempts, above it when runs swing, below it for a fixed set of questions', () => {
    const uniform = seededUniform(11);
    const of = (rates: Rates) => dispersion(week(uniform, rates, 0));
    expect(of([0.9])).toBeGreaterThan(0.6);
    expect(of([0.9])).toBeLessThan(1.5);
    expect(of('swinging')).toBeGreaterThan(1.5);
    expect(of(REFERENCE)).toBeLessThan(1);
  });

  it('is taken as binomial with fewer than 10 runs, and never below one half', () => {
    expect(
      dispersion(
        repeated(DEPLOYED - 7 * DAY, 9, 0, 30).map((r, k) => ({
          ...r,
          passed: k % 2 ? 30 : 0,
          failed: k % 2 ? 0 : 30,
        })),
      ),
    ).toBe(1);
    expect(dispersion(repeated(DEPLOYED - 7 * DAY, 28, 27, 3))).toBe(0.5);
  });
});

describe('the watch after a deployment', () => {
  it('keeps false alarms under 5% over a 7-day watch looked at 4 times a day (2,000 A/A watches, fixed seed)', () => {
    const N = 2000;
    let regressed = 0;
    let improved = 0;
    const claws: Rates[] = [REFERENCE, [0.7], 'swinging'];
    for (let i = 0; i < N; i++) {
      const rates = claws[i % 3];
      const r = watchDeployment({
        runs: week(seededUniform(7000 + i), rates, 28),
        deployedAt: DEPLOYED,
        now: DEPLOYED + 8 * DAY,
      });
      if (r.verdict === 'regressed') regressed++;
      if (r.verdict === 'improved') improved++;
    }
    // 5% plus three Monte Carlo standard errors at 5% (0.5 points each).
    expect(regressed / N).toBeLessThanOrEqual(0.065);
    expect(improved / N).toBeLessThanOrEqual(0.065);
  });

  it('finds a clear 20% drop within 3 runs (90% of attempts passing, then 70%)', () => {
    const runs = [...repeated(DEPLOYED - 7 * DAY, 28, 27, 3), ...repeated(DEPLOYED + HOUR, 3, 21, 9)];
    const r = watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + 1 * DAY });
    expect(r.verdict).toBe('regressed');
    expect(r.decidedAt).toBeLessThanOrEqual(DEPLOYED + HOUR + 12 * HOUR);
    expect(r.before).toEqual({ passRate: 0.9, n: 840, unjudged: 0, runs: 28 });
    expect(r.change).toBeCloseTo(-0.2, 10);
    expect(r.low!).toBeLessThan(-0.2);
    expect(r.high!).toBeLessThan(0);
  });

  it('finds most simulated 20% drops within 3 runs', () => {
    let found = 0;
    for (let i = 0; i < 200; i++) {
      const r = watchDeployment({
        runs: week(seededUniform(9000 + i), REFERENCE, 3, 0.2),
        deployedAt: DEPLOYED,
        now: DEPLOYED + DAY,
      });
      if (r.verdict === 'regressed') found++;
    }
    expect(found / 200).toBeGreaterThanOrEqual(0.8);
  });

  it('calls a rise improved, mirrored', () => {
    const runs = [...repeated(DEPLOYED - 7 * DAY, 28, 21, 9), ...repeated(DEPLOYED + HOUR, 4, 29, 1)];
    expect(watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + DAY }).verdict).toBe('improved');
  });

  it('watches inside the window, and calls it unchanged at its end when the interval is tight', () => {
    const runs = [...repeated(DEPLOYED - 7 * DAY, 28, 27, 3), ...repeated(DEPLOYED + HOUR, 28, 27, 3)];
    const inside = watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + 3 * DAY });
    expect(inside.verdict).toBe('watching');
    expect(inside.after.runs).toBe(12);
    const end = watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + 7 * DAY });
    expect(end.verdict).toBe('unchanged');
    expect(end.change).toBe(0);
    expect(end.high! - end.low!).toBeLessThan(0.2);
  });

  it('does not call a small drop in a tolerance regressed', () => {
    const runs = [...repeated(DEPLOYED - 7 * DAY, 28, 27, 3), ...repeated(DEPLOYED + HOUR, 28, 24, 6)];
    const strict = watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + 7 * DAY });
    const tolerant = watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + 7 * DAY, tolerance: 0.1 });
    expect(strict.verdict).toBe('regressed');
    // Plainly lower, but past 10 points or not is not yet clear.
    expect(tolerant).toMatchObject({
      verdict: 'inconclusive',
      reason: 'a change, but whether it passes the tolerance is not yet clear',
    });
    expect(tolerant.high!).toBeLessThan(0);
    expect(tolerant.low!).toBeLessThan(-0.1);
  });

  it('is inconclusive with no run before the deployment', () => {
    const r = watchDeployment({
      runs: repeated(DEPLOYED + HOUR, 5, 10, 20),
      deployedAt: DEPLOYED,
      now: DEPLOYED + DAY,
    });
    expect(r.verdict).toBe('inconclusive');
    expect(r.reason).toBe('no health run in the window before the deployment');
    expect(r.after.passRate).toBeCloseTo(1 / 3, 10);
  });

  it('never counts unjudged attempts as passes: all unjudged is no evidence', () => {
    const runs = [
      ...repeated(DEPLOYED - 7 * DAY, 28, 27, 3),
      fixed(DEPLOYED + HOUR, 0, 0, 30),
      fixed(DEPLOYED + 7 * HOUR, 0, 0, 30),
    ];
    const inside = watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + DAY });
    expect(inside.verdict).toBe('watching');
    expect(inside.reason).toBe('nothing judged since the deployment');
    expect(inside.after).toEqual({ passRate: null, n: 0, unjudged: 60, runs: 2 });
    expect(watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + 8 * DAY }).verdict).toBe('inconclusive');
    const before = [fixed(DEPLOYED - DAY, 0, 0, 30), fixed(DEPLOYED + HOUR, 20, 10)];
    expect(watchDeployment({ runs: before, deployedAt: DEPLOYED, now: DEPLOYED + DAY }).reason).toBe(
      'nothing judged before the deployment',
    );
  });

  it('does not call a deployment unchanged when it turned many answers into errors', () => {
    const runs = [
      ...repeated(DEPLOYED - 7 * DAY, 28, 27, 3),
      ...Array.from({ length: 28 }, (_, k) => fixed(DEPLOYED + HOUR + k * 6 * HOUR, 18, 2, 10)),
    ];
    const r = watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + 7 * DAY });
    expect(r.verdict).toBe('inconclusive');
    expect(r.reason).toBe('too many attempts unjudged since the deployment');
    expect(r.after).toEqual({ passRate: 0.9, n: 560, unjudged: 280, runs: 28 });
    expect(watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + 7 * DAY, maxMissing: 0.5 }).verdict).toBe(
      'unchanged',
    );
  });

  it('weighs one run against one run: no change found, its wide interval saying how much it could hide', () => {
    const runs = [fixed(DEPLOYED - DAY, 27, 3), fixed(DEPLOYED + HOUR, 24, 6)];
    const r = watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + 8 * DAY });
    expect(r.verdict).toBe('unchanged');
    expect(r.reason).toBeUndefined();
    expect(r.change).toBeCloseTo(-0.1, 10);
    expect(r.low!).toBeLessThan(-0.1);
    expect(r.high!).toBeGreaterThan(0);
  });

  it('counts only the window before, the window after, and runs up to now, in any order', () => {
    const runs = [
      fixed(DEPLOYED - 9 * DAY, 0, 30), // before the window: not counted
      ...repeated(DEPLOYED - 7 * DAY, 28, 27, 3),
      fixed(DEPLOYED + 8 * DAY, 0, 30), // after the window
      fixed(DEPLOYED + 2 * DAY, 0, 30), // after now
      fixed(DEPLOYED + HOUR, 27, 3),
    ];
    const r = watchDeployment({ runs: [...runs].reverse(), deployedAt: DEPLOYED, now: DEPLOYED + DAY });
    expect(r.before.runs).toBe(28);
    expect(r.after.runs).toBe(1);
    expect(r.verdict).toBe('watching');
    expect(r.windowEndsAt).toBe(DEPLOYED + 7 * DAY);
    const short = watchDeployment({ runs, deployedAt: DEPLOYED, now: DEPLOYED + DAY, windowDays: 1 });
    expect(short.before.runs).toBe(4);
  });
});

/**
 * Four weeks of runs (4 a day, 30 attempts) before the deployment and one after, every attempt's
 * chance 0.9 plus the day's level, a stationary AR(1) over days (φ, standard deviation `sd` in points).
 */
function driftingMonth(uniform: () => number, phiDays: number, sd: number, drop = 0, after = 28): WatchRun[] {
  const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  let level = sd * normal();
  const runs: WatchRun[] = [];
  for (let day = -28; day < 7; day++) {
    if (day > -28) level = phiDays * level + Math.sqrt(1 - phiDays ** 2) * sd * normal();
    for (let k = 0; k < 4; k++) {
      const at = DEPLOYED + day * DAY + k * 6 * HOUR + HOUR;
      if (day >= 0 && day * 4 + k >= after) continue;
      const chance = Math.min(0.99, Math.max(0.01, 0.9 + level)) * (day >= 0 ? 1 - drop : 1);
      let passed = 0;
      for (let i = 0; i < 30; i++) if (uniform() < chance) passed++;
      runs.push({ at, passed, failed: 30 - passed, unjudged: 0 });
    }
  }
  return runs;
}

describe('the watch under drift from day to day', () => {
  // Recorded by test/compare/drift-reference.py: numpy's own dispersion, semivariogram fit and
  // c'Σc (scipy's toeplitz), and a Monte Carlo of AR(1) paths (scipy's lfilter).
  const reference = JSON.parse(
    readFileSync(new URL('../../test/compare/drift-reference.json', import.meta.url), 'utf8'),
  ) as {
    deployedAt: number;
    before: [number, number][];
    afterFirstDay: [number, number][];
    afterWeek: [number, number][];
    histories: {
      name: string;
      runs: WatchRun[];
      withinDayDispersion: number;
      model: { variance: number; phi: number; days: number; floored: boolean };
      contrastFirstDay: number;
      contrastWeek: number;
    }[];
    known: { phi: number; variance: number; after: string; contrast: number; monteCarlo: number }[];
  };
  const days = (list: [number, number][]) => list.map(([day, n]) => ({ day, n }));
  const close = (a: number, b: number, relative: number) => expect(Math.abs(a - b)).toBeLessThanOrEqual(relative * b);

  it("fits the same drift as numpy's computation of it, history by history", () => {
    expect(reference.deployedAt).toBe(DEPLOYED);
    for (const h of reference.histories) {
      const scale = withinDayDispersion(h.runs, DEPLOYED)!;
      close(scale, h.withinDayDispersion, 1e-9);
      const model = fitDrift(h.runs, DEPLOYED, scale);
      expect({ phi: model.phi, days: model.days, floored: model.floored }, h.name).toEqual({
        phi: h.model.phi,
        days: h.model.days,
        floored: h.model.floored,
      });
      close(model.variance, h.model.variance, 1e-9);
      close(
        driftContrastVariance(model, days(reference.afterFirstDay), days(reference.before)),
        h.contrastFirstDay,
        1e-9,
      );
      close(driftContrastVariance(model, days(reference.afterWeek), days(reference.before)), h.contrastWeek, 1e-9);
    }
  });

  it("gives a known AR(1)'s contrast variance: numpy's c'Σc, and within 3% of 200,000 simulated paths", () => {
    for (const k of reference.known) {
      const model = { variance: k.variance, phi: k.phi, days: 28, floored: false };
      const after = days(k.after === 'week' ? reference.afterWeek : reference.afterFirstDay);
      const v = driftContrastVariance(model, after, days(reference.before));
      close(v, k.contrast, 1e-9);
      close(v, k.monteCarlo, 0.03);
    }
  });

  it('floors the drift of a history too short or too quiet to show it, more for fewer days', () => {
    const steady = repeated(DEPLOYED - 28 * DAY, 112, 27, 3);
    const long = fitDrift(steady, DEPLOYED, 1);
    expect(long.floored).toBe(true);
    expect(long.variance).toBeGreaterThan(0);
    const short = fitDrift(steady.slice(-28), DEPLOYED, 1);
    expect(short.variance).toBeGreaterThan(2.5 * long.variance);
  });

  it("measures the runs' noise within days, and leaves it to the runs' dispersion with one run a day", () => {
    // Days alternating between 30/30 and 24/30, their runs alike: all the spread is between days.
    const days = Array.from({ length: 28 }, (_, d) =>
      repeated(DEPLOYED - (28 - d) * DAY, 4, d % 2 ? 24 : 30, d % 2 ? 6 : 0),
    ).flat();
    expect(withinDayDispersion(days, DEPLOYED)).toBe(0.5); // no noise within days: the floor
    expect(dispersion(days.slice(-28))).toBeGreaterThan(2);
    const daily = days.filter((_, k) => k % 4 === 0);
    expect(withinDayDispersion(daily, DEPLOYED)).toBeUndefined();
    // The drift fit sees the days differ: τ² near the variance of the day rates (0.03² = 0.0009).
    const model = fitDrift(days, DEPLOYED, 0.5);
    expect(model.floored).toBe(false);
    expect(model.variance).toBeGreaterThan(0.0005);
  });

  it('keeps false alarms under 5% over a 7-day watch when the level drifts from day to day (φ 0.5 and 0.9, fixed seed)', () => {
    const N = 400;
    for (const phiDays of [0.5, 0.9]) {
      let regressed = 0;
      let improved = 0;
      for (let i = 0; i < N; i++) {
        const r = watchDeployment({
          runs: driftingMonth(seededUniform(12_000 + i), phiDays, 0.04),
          deployedAt: DEPLOYED,
          now: DEPLOYED + 8 * DAY,
        });
        if (r.verdict === 'regressed') regressed++;
        if (r.verdict === 'improved') improved++;
      }
      // 5% plus three Monte Carlo standard errors at 5% (1.1 points each).
      expect(regressed / N, `φ ${phiDays}`).toBeLessThanOrEqual(0.083);
      expect(improved / N, `φ ${phiDays}`).toBeLessThanOrEqual(0.083);
    }
  });

  // A drift this large (a day's level moves 4 points) hides part of a drop in the first day's own
  // level: before the drift was counted, 77.5% of these were found (and 13% of harmless ones flagged).
  it('still finds 70% of 20% drops within 3 runs under that drift', () => {
    let found = 0;
    for (let i = 0; i < 200; i++) {
      const r = watchDeployment({
        runs: driftingMonth(seededUniform(15_000 + i), 0.9, 0.04, 0.2, 3),
        deployedAt: DEPLOYED,
        now: DEPLOYED + DAY,
      });
      if (r.verdict === 'regressed') found++;
    }
    expect(found / 200).toBeGreaterThanOrEqual(0.7);
  });
});

describe('the watch with nothing deployed: one CUSUM', () => {
  // Recorded by test/compare/cusum-reference.py: the Brook-Evans Markov chain with scipy's normal.
  const reference = JSON.parse(
    readFileSync(new URL('../../test/compare/cusum-reference.json', import.meta.url), 'utf8'),
  ) as { cases: { k: number; h: number; arl: number; alarmWithin1460: number }[] };

  it("its run length: Siegmund's approximation within 8% of scipy's chain; the chosen h holds 0.05 a Claw-year", () => {
    for (const c of reference.cases)
      expect(Math.abs(cusumArl(c.k, c.h) / c.arl - 1), `k ${c.k}, h ${c.h}`).toBeLessThan(0.08);
    const chosen = reference.cases.find((c) => c.k === QUIET_K && c.h === QUIET_H)!;
    expect(chosen.arl).toBeGreaterThan(20 * 365 * 4); // 20 years of 4 runs a day
    expect(chosen.alarmWithin1460).toBeLessThan(0.05);
  });

  const HOUR = 3600_000;
  const runsOf = (rate: (k: number) => number, count: number, seed = 3): WatchRun[] => {
    const uniform = seededUniform(seed);
    return Array.from({ length: count }, (_, k) => {
      let passed = 0;
      for (let i = 0; i < 30; i++) if (uniform() < rate(k)) passed++;
      return { at: k * 6 * HOUR, passed, failed: 30 - passed, unjudged: 0 };
    });
  };

  it('finds a 20% drop of binomial runs within five runs, from the run it began, against the week before it', () => {
    const runs = runsOf((k) => (k >= 40 ? 0.72 : 0.9), 45);
    expect(quietWatch(runs, runs[41].at).alarm).toBe(false);
    const result = quietWatch(runs, runs[44].at);
    expect(result.alarm).toBe(true);
    // The excursion begins where the CUSUM last left 0: near the drop's first run (a run at 0.72 can
    // draw as well as one at 0.90, and a low run before it can start the excursion early).
    expect(result.since).toBeLessThanOrEqual(runs[41].at);
    expect(result.since).toBeGreaterThanOrEqual(runs[36].at);
    expect(result.before.runs).toBe(28);
    expect(result.after.runs).toBe((runs[44].at - result.since!) / (6 * HOUR) + 1);
  });

  it('a level that wandered as much in the weeks before is no alarm; the same drop on a steady Claw is', () => {
    const DAY = 24 * HOUR;
    // Seven weeks at 4 runs a day; the last week 9 points down. Wandering: the weeks before moved
    // as far, day by day (a sine of 5 points over 20 days); steady: they did not.
    const level = (wander: boolean) => (k: number) => {
      const day = Math.floor(k / 4);
      if (day >= 42) return 0.81;
      return wander ? 0.9 + 0.05 * Math.sin((2 * Math.PI * day) / 20) : 0.9;
    };
    const wandering = runsOf(level(true), 49 * 4, 7);
    const steady = runsOf(level(false), 49 * 4, 7);
    const now = 49 * DAY - 6 * HOUR;
    const quiet = quietWatch(steady, now);
    expect(quiet.alarm).toBe(true);
    // Looked at after every run of the last week: the CUSUM crosses h, but the drop does not stand
    // out of the drift the weeks before showed.
    const looks = wandering.slice(42 * 4).map((r) => quietWatch(wandering, r.at));
    expect(Math.max(...looks.map((l) => l.statistic))).toBeGreaterThan(QUIET_H);
    expect(looks.filter((l) => l.alarm)).toEqual([]);
  });

  it('counts the floor of a history the read cut short: a 10-point step on nine days read is no alarm, the same after eight steady weeks is', () => {
    // A fleet of 1,000 Claws at 4 runs a day fills the read's 8 MiB with about nine days: the drift
    // is then fitted on the few days before the excursion, and floored. Left uncounted, that floor
    // opened 3.9 false incidents a Claw-year under drift (φ 0.9, σ 0.6) on a nine-day read; counted, 0.7.
    const level = (k: number, lowFrom: number) => {
      const day = Math.floor(k / 4);
      return day < lowFrom ? [27, 28, 26, 27][k % 4] : 24 + [0, 1, -1, 0][k % 4];
    };
    const runs = (days: number) =>
      Array.from({ length: days * 4 }, (_, k): WatchRun => {
        const passed = level(k, days - 4);
        return { at: k * 6 * HOUR, passed, failed: 30 - passed, unjudged: 0 };
      });
    const short = runs(9);
    const cut = quietWatch(short, short.at(-1)!.at + 1);
    expect(cut.statistic).toBeGreaterThan(QUIET_H);
    expect(cut.alarm).toBe(false);
    const full = runs(9 + 56);
    expect(quietWatch(full, full.at(-1)!.at + 1).alarm).toBe(true);
  });

  it("the drift check's z: numpy's computation of it, case by case", () => {
    // Recorded by test/compare/quiet-reference.py (drift-reference.py's fit, the GLS predictor with numpy's inverse).
    const reference = JSON.parse(
      readFileSync(new URL('../../test/compare/quiet-reference.json', import.meta.url), 'utf8'),
    ) as {
      start: number;
      history: WatchRun[];
      cases: { name: string; history?: WatchRun[]; after: WatchRun[]; z: number }[];
    };
    expect(reference.cases.filter((c) => c.history)).toHaveLength(1); // the short history is checked too
    for (const c of reference.cases) {
      const history = c.history ?? reference.history;
      const noise = quietNoise(history, reference.start);
      const before = history.filter((r) => r.at >= reference.start - 7 * 24 * HOUR);
      expect(Math.abs(excursionZ(before, c.after, noise) - c.z), c.name).toBeLessThan(1e-9 * Math.abs(c.z));
    }
  });

  it('stays quiet on a steady Claw, and a drop that ended is no alarm', () => {
    const steady = runsOf(() => 0.9, 60, 5);
    expect(quietWatch(steady, steady[59].at).alarm).toBe(false);
    const over = runsOf((k) => (k >= 40 && k < 43 ? 0.5 : 0.9), 70);
    expect(quietWatch(over, over[42].at).alarm).toBe(true);
    expect(quietWatch(over, over[69].at).alarm).toBe(false);
  });
});
