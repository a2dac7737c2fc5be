// compare as a user runs it (bin/claw-deploy.cjs over dist/) at the sizes teams have: one reply a
// side never reads `regressed` and says what it needs; a large saved run (4 MiB, 116,000 timed
// attempts of 1,160 checks) against a suite of 10 checks reads only those 10, names the others in
// one line, and compares (its time and memory go to the bench, not here).
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { behavingClaw, failsFirst, questionsFile } from '../sim/behaviour.ts';
import { base, oneJsonObject, runCli } from './cli-run.ts';
import { savedRun } from '../support/saved-run.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest({});

interface Row {
  check: string;
  metric: string;
  verdict: string;
  reason?: string;
}

describe('compare at small sizes and against a large saved run', () => {
  it('one reply a side, the candidate failing it: never regressed; inconclusive, saying what would tell', async () => {
    const sim = await start();
    sim.addClaw('prod', behavingClaw({ passRates: [1] }));
    sim.addClaw('next', behavingClaw({ passRates: failsFirst(1) }));
    const cwd = mkdtempSync(join(tmpdir(), 'claw-small-'));
    writeFileSync(join(cwd, 'checks.yml'), questionsFile(1, 1));
    const args = ['compare', ...base(sim), '--checks', 'checks.yml', '--claw-id', 'next', '--baseline', 'prod'];
    const run = await runCli([...args, '--json'], { cwd });
    const result = oneJsonObject(run);
    expect(result.behaviour).toBe('inconclusive');
    const rows = result.comparison as Row[];
    expect(rows.some((r) => r.verdict === 'regressed')).toBe(false);
    const check = rows.find((r) => r.check === 'q1' && r.metric === 'pass-rate')!;
    expect(check.verdict).toBe('inconclusive');
    expect(check.reason).toMatch(
      /^passed 1\/1 on the baseline and failed 1\/1 on the candidate: .* repeat: \d+ on both sides would tell it from chance$/,
    );
    const latency = rows.find((r) => r.metric === 'latency-p50')!;
    expect(latency.verdict).toBe('inconclusive');
    expect(latency.reason).toMatch(/needs \d+ values a side/);
    // fail-on: regression (the default) passes the step; fail-on: inconclusive fails it.
    expect(run.code).toBe(0);
    const strict = await runCli([...args, '--fail-on', 'inconclusive'], { cwd });
    expect(strict.code).toBe(1);
  });

  it('a 4 MiB saved run: only the suite checks read, the others counted and named in one line', async () => {
    const sim = await start();
    sim.addClaw('prod', behavingClaw({ passRates: [1] }));
    const cwd = mkdtempSync(join(tmpdir(), 'claw-large-'));
    writeFileSync(join(cwd, 'checks.yml'), questionsFile(10, 3, '  tolerance:\n    latency: 100%\n'));
    writeFileSync(join(cwd, 'saved.json'), savedRun(1160, 100));
    expect(statSync(join(cwd, 'saved.json')).size).toBeLessThanOrEqual(4 * 1024 * 1024);
    const run = await runCli(
      [
        'compare',
        ...base(sim),
        '--checks',
        'checks.yml',
        '--claw-id',
        'prod',
        '--baseline-file',
        'saved.json',
        '--json',
      ],
      { cwd },
    );
    const result = oneJsonObject(run);
    expect(result.behaviour, run.stderr).toBe('unchanged');
    const lines = run.stderr.split('\n').filter((l) => l.includes('other check(s)'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'The saved run holds 1150 other check(s) the checks file does not have, not compared: "q11", "q12", "q13", "q14", "q15", …',
    );
    const suite = (result.comparison as (Row & { baseline: { n: number }; candidate: { n: number } })[]).find(
      (r) => r.check === '*' && r.metric === 'pass-rate',
    )!;
    // The suite's 10 checks read, none of the others: every answer passes on both sides, so the
    // candidate is asked each question once and each saved check is matched to that one answer.
    expect(suite.baseline.n).toBe(10);
    expect(suite.candidate.n).toBe(10);
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/prod/messages')).toHaveLength(10);
  });

  it('a saved run with no check of the suite says so', async () => {
    const sim = await start();
    sim.addClaw('prod', behavingClaw({ passRates: [1] }));
    const cwd = mkdtempSync(join(tmpdir(), 'claw-none-'));
    writeFileSync(join(cwd, 'checks.yml'), questionsFile(2, 1));
    writeFileSync(join(cwd, 'saved.json'), savedRun(3, 1).replace(/"q(\d)"/g, '"other$1"'));
    const run = await runCli(
      ['compare', ...base(sim), '--checks', 'checks.yml', '--claw-id', 'prod', '--baseline-file', 'saved.json'],
      { cwd },
    );
    expect(run.stderr).toContain(
      "The saved run has none of the checks file's 2 check(s) for prod: nothing in common to compare.",
    );
    expect(run.stderr).toContain('3 other check(s)');
  });
});
