// The adapters around the comparison engine: tolerances read from the checks file (with their
// lines), a saved run read back as a baseline, the checks' samples as the engine's sides, what
// `fail-on` makes of a verdict, and the outputs and table the contract names.
import { describe, expect, it } from 'vitest';
import { INTERVAL_NOTE, comparisonOutputs, comparisonSummary } from './comparison-report.js';
import { parseBaselineFile } from './baseline-file.js';
import { type Compared, compareRuns, comparisonFails, describeComparison, gateFails, sideOf } from './comparison.js';
import { parseChecks } from './load.js';
import type { AttemptSample, CheckEntry } from './result.js';

const file = (extra: string) =>
  `defaults:\n  repeat: 3\n${extra}checks:\n  - name: q1\n    send: q1\n    assert: [{type: equals, value: 'yes'}]\n`;

/** A check's entry from its samples, as the runner leaves it when comparing. */
function entry(check: string, samples: AttemptSample[], clawId = 'c1'): CheckEntry {
  const passes = samples.filter((s) => s.outcome === 'pass').length;
  return {
    check,
    clawId,
    passed: passes === samples.length,
    passes,
    attempts: samples.length,
    repeat: samples.length,
    minPass: samples.length,
    failures: samples.filter((s) => s.outcome === 'fail').length,
    errors: 0,
    replies: [],
    samples,
  };
}
const runOf = (rate: (q: number, r: number) => boolean, questions = 30, repeats = 3) =>
  Array.from({ length: questions }, (_, q) =>
    entry(
      `q${q + 1}`,
      Array.from({ length: repeats }, (_, r) => ({ outcome: rate(q, r) ? 'pass' : 'fail', latencyMs: 100 }) as const),
    ),
  );

describe('the log line of a verdict', () => {
  it('names the rows that decided it, not a suite-wide row that could not tell', () => {
    const row = (check: string, metric: string, primary: boolean, reason: string) =>
      ({ check, metric, primary, verdict: 'inconclusive', reason }) as unknown as Compared['metrics'][number];
    const line = describeComparison({
      behaviour: 'inconclusive',
      metrics: [
        row('*', 'latency-p95', false, 'needs 159 replies a side'),
        row('*', 'latency-p50', false, 'measured at another time'),
        row('q27', 'pass-rate', false, 'passed 1/1 on the baseline and failed 3/3 on the candidate'),
      ],
    });
    expect(line).toBe(
      'behaviour inconclusive: "q27"\'s pass-rate (passed 1/1 on the baseline and failed 3/3 on the candidate)',
    );
  });
});

describe('tolerance in the checks file', () => {
  it('reads shares and percentages, for the suite and per check', () => {
    const suite = parseChecks(
      'checks.yml',
      `defaults:\n  tolerance: {latency: 20%}\nchecks:\n  - name: q1\n    send: q1\n    tolerance:\n      pass-rate: 0.05\n      score: 10%\n`,
    );
    expect(suite.tolerance).toEqual({ latency: 0.2 });
    expect(suite.checks[0].tolerance).toEqual({ passRate: 0.05, score: 0.1 });
  });

  it('refuses an unknown key or a share past 100%, naming the file and line', () => {
    expect(() => parseChecks('checks.yml', file('  tolerance:\n    latncy: 10%\n'))).toThrow(
      /^checks\.yml, line 4: unknown key/,
    );
    expect(() => parseChecks('checks.yml', file('  tolerance:\n    latency: 150%\n'))).toThrow(
      "checks.yml, line 4: 'latency' is \"150%\": expected a share of the baseline's latency, such as 10% or 0.1 (from 0 to 100%).",
    );
    expect(() => parseChecks('checks.yml', file('  tolerance: {}\n'))).toThrow(/line 3: .*at least one of pass-rate/);
  });
});

describe('a saved run as the baseline', () => {
  const saved = (samples: string) =>
    `{"results": {"results": [\n {"metadata": {"clawDeploy": {"check": "q1", "clawId": "c1", "samples": ${samples}}}}\n]}}`;

  it('reads each attempt back, with the judge that graded it', () => {
    const run = parseBaselineFile(
      'before.json',
      saved(
        '[{"outcome": "pass", "latencyMs": 120, "score": 0.5, "judge": {"model": "m-1", "promptHash": "abcdef0123456789"}}, {"outcome": "unjudged"}]',
      ),
      'c1',
    );
    expect(run.clawId).toBe('c1');
    expect(run.entries[0].samples).toEqual([
      { outcome: 'pass', latencyMs: 120, score: 0.5, judge: { model: 'm-1', promptHash: 'abcdef0123456789' } },
      { outcome: 'unjudged' },
    ]);
  });

  it('refuses what is not a saved comparison run, naming the line and what was expected', () => {
    expect(() => parseBaselineFile('before.json', '{"results": {}}', 'c1')).toThrow(
      /^before\.json, line 1: results\.results: expected a checks output/,
    );
    expect(() => parseBaselineFile('before.json', saved('[{"outcome": "pass", "score": 7}]'), 'c1')).toThrow(
      'before.json, line 2: results.results.0.metadata.clawDeploy.samples.0.score: expected a score from 0 to 1, or nothing.',
    );
    expect(() => parseBaselineFile('before.json', saved('[]'), 'c1')).toThrow(/samples: expected the check's attempts/);
  });
});

describe('the engine fed from the checks', () => {
  it('each check a question, n its attempts, with its own tolerance', () => {
    const suite = parseChecks('checks.yml', file('').replace('assert', 'tolerance: {pass-rate: 5%}\n    assert'));
    const side = sideOf('before', [entry('q1', [{ outcome: 'pass' }, { outcome: 'fail' }])], suite);
    expect(side.checks).toEqual([
      {
        check: 'q1',
        tolerance: { passRate: 0.05 },
        attempts: [
          { question: 'q1', outcome: 'pass' },
          { question: 'q1', outcome: 'fail' },
        ],
      },
    ]);
  });

  it('a release that fails a third of its questions is regressed; the same release is not', () => {
    const before = runOf(() => true);
    const worse = compareRuns(
      { label: 'before', entries: before },
      { label: 'after', entries: runOf((q) => q % 3 !== 0) },
    );
    expect(worse.behaviour).toBe('regressed');
    const same = compareRuns({ label: 'before', entries: before }, { label: 'after', entries: runOf(() => true) });
    expect(same.behaviour).not.toBe('regressed');
    expect(same.metrics.find((m) => m.check === '*' && m.metric === 'pass-rate')).toMatchObject({
      baseline: { value: 1, n: 90 },
      candidate: { value: 1, n: 90 },
    });
  });

  it('two identical flaky Claws side by side: no regressed metric, where the old rule counted several', () => {
    // Each of 30 questions passes 4 times in 5 on both sides (a fixed, seeded draw).
    let seed = 11;
    const draw = () => (seed = (seed * 16807) % 2147483647) / 2147483647 < 0.8;
    const production = runOf(() => draw());
    const preview = runOf(() => draw());
    // Today's rule: a check passing (all its repeats) on one side and not the other is a regression.
    const oldRule = production.filter((p, i) => p.passed && !preview[i].passed).length;
    expect(oldRule).toBeGreaterThan(0);
    const compared = compareRuns({ label: 'production', entries: production }, { label: 'preview', entries: preview });
    expect(compared.metrics.filter((m) => m.verdict === 'regressed')).toEqual([]);
  });

  it('a cancelled side compares nothing, and says why', () => {
    const cut = compareRuns(
      { label: 'before', entries: runOf(() => true), cancelled: true },
      { label: 'after', entries: [] },
    );
    expect(cut).toMatchObject({ behaviour: '', metrics: [] });
    expect(cut.reason).toMatch(/baseline \(before\) was cancelled/);
  });

  it('fail-on: regression fails only on regressed, inconclusive on either, failure by the absolute rule, never not at all', () => {
    expect(comparisonFails('regressed', 'regression')).toBe(true);
    expect(comparisonFails('inconclusive', 'regression')).toBe(false);
    expect(comparisonFails('inconclusive', 'inconclusive')).toBe(true);
    expect(comparisonFails('regressed', 'never')).toBe(false);
    const unchanged = { behaviour: 'unchanged' as const, metrics: [] };
    expect(gateFails('failure', false, unchanged)).toBe(true);
    expect(gateFails('regression', false, unchanged)).toBe(false);
  });
});

describe('the outputs and the table', () => {
  it('behaviour and comparison as the contract names them; empty when nothing was compared', () => {
    expect(comparisonOutputs(undefined).outputs).toEqual({ behaviour: '', comparison: '' });
    const compared = compareRuns(
      { label: 'before', entries: runOf(() => true) },
      { label: 'after', entries: runOf((q) => q % 3 !== 0) },
    );
    const { outputs } = comparisonOutputs([{ clawId: 'c1', compared }]);
    expect(outputs.behaviour).toBe('regressed');
    const entries = JSON.parse(outputs.comparison) as Record<string, unknown>[];
    expect(entries[0]).toEqual({
      check: '*',
      metric: 'pass-rate',
      baseline: { value: 1, n: 90 },
      candidate: expect.objectContaining({ n: 90 }),
      change: expect.any(Number),
      low: expect.any(Number),
      high: expect.any(Number),
      bound: expect.any(Number),
      verdict: 'regressed',
    });
    // Several Claws: each entry names its Claw.
    const two = JSON.parse(
      comparisonOutputs([
        { clawId: 'c1', compared },
        { clawId: 'c2', compared },
      ]).outputs.comparison,
    );
    expect(two[0].clawId).toBe('c1');
  });

  it('the summary escapes what the checks file named and caps its rows', () => {
    const hostile = runOf(() => true, 50).map((e, i) => ({ ...e, check: i === 0 ? '<img src=x> | pwned' : e.check }));
    const compared = compareRuns({ label: 'before', entries: hostile }, { label: 'after', entries: hostile });
    const summary = comparisonSummary([{ clawId: 'c1', compared }]);
    expect(summary).not.toContain('<img');
    // The header says 95% interval, and the note under the table what it and the verdicts mean.
    expect(summary).toContain('| 95% interval |');
    expect(summary).toContain(INTERVAL_NOTE);
    expect(summary).toMatch(/\d+ more metric\(s\) are in the `comparison` output\./);
    const row = summary.split('\n').find((l) => l.includes('pwned'))!;
    // Seven cells (one Claw: no Claw column), the check's own `|` escaped.
    expect(row.split(/(?<!\\)\|/)).toHaveLength(9);
  });
});
