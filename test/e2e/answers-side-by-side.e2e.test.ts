// The answers side by side: for each question a comparison finds worse (or every one, with
// --show-answers all), a baseline reply beside a candidate reply (the failing one), escaped and cut
// to 300 characters, with the assertion that failed; in the terminal, the summary and the checks
// output (promptfoo's viewer shows it in the result's metadata). Through the bin and dist/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../sim/server.ts';
import { runAction, workspaceWith } from './harness.ts';
import { base, oneJsonObject, runCli } from './cli-run.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

const CHECKS = `defaults:\n  repeat: 3\nchecks:\n${[1, 2, 3]
  .map((i) => `  - {name: q${i}, send: q${i}, assert: [{type: starts-with, value: 'PASS:'}]}`)
  .join('\n')}\n`;
/** next's reply to q2: failing, hostile, and far longer than shown. */
const HOSTILE = `FAIL: q2 \u001b[31m<img src=x> | ::error::pwned ${'x'.repeat(1000)}`;

function claws(sim: Simulator): void {
  sim.addClaw('prod', { chat: { mode: 'sync', respond: (text) => `PASS: ${text}` } });
  sim.addClaw('next', { chat: { mode: 'sync', respond: (text) => (text === 'q2' ? HOSTILE : `PASS: ${text}`) } });
}

interface Saved {
  results: {
    results: {
      provider: { label: string };
      metadata: { clawDeploy: { check: string; answers?: { candidate: { reply: string } } } };
    }[];
  };
}

describe('the answers side by side', () => {
  it('the terminal shows the worse question only: the baseline reply, the failing candidate reply cut and escaped, what failed', async () => {
    const sim = await start();
    claws(sim);
    const cwd = workspaceWith({ 'checks.yml': CHECKS });
    const args = ['compare', ...base(sim), '--checks', 'checks.yml', '--claw-id', 'next', '--baseline', 'prod'];
    const run = await runCli([...args, '--output', 'out.json'], { cwd, env: { COLUMNS: '120' } });
    const text = run.stdout.slice(run.stdout.indexOf('Answers side by side'));
    expect(text.split('\n')[0]).toBe('Answers side by side (each reply cut to 300 characters):');
    expect(text).toContain('  q2 (passed 0 of 3, 3 of 3 before)');
    expect(text).not.toMatch(/^ {2}q[13] /m);
    expect(text).toMatch(/ {4}baseline {2}prod, the last attempt:\n {6}│ PASS: q2\n/);
    expect(text).toMatch(
      / {4}candidate next, attempt 1 of 3:\n {6}│ FAIL: q2 \\x1b\[31m<img src=x> \| ::error::pwned\n {6}│ x+\n/,
    );
    expect(text).toMatch(new RegExp(`… \\(${HOSTILE.length - 300} more\\s+(│\\s+)?characters\\)`));
    expect(text).toContain('failed: attempt 1 of 3: starts-with "PASS:" did not hold');
    // Cut to 300 characters: the x's shown are those of the reply's first 300 characters.
    const xs = text.slice(text.indexOf('│ FAIL: q2'), text.indexOf('    failed:')).match(/x/g)!.length;
    expect(xs).toBe(HOSTILE.slice(0, 300).match(/x/g)!.length + 1); // and the x of \x1b
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stdout).not.toMatch(/^::error::/m);

    // The checks output carries them for promptfoo's viewer, on the candidate's result.
    const out = JSON.parse(readFileSync(join(cwd, 'out.json'), 'utf8')) as Saved;
    const q2 = out.results.results.find((r) => r.provider.label === 'next' && r.metadata.clawDeploy.check === 'q2')!;
    expect(q2.metadata.clawDeploy.answers).toMatchObject({
      check: 'q2',
      baseline: { label: 'prod', reply: 'PASS: q2', attempt: 'the last attempt' },
      candidate: { label: 'next', attempt: 'attempt 1 of 3' },
    });
    expect(q2.metadata.clawDeploy.answers!.candidate.reply).toBe(
      `${HOSTILE.slice(0, 300)}… (${HOSTILE.length - 300} more characters)`,
    );
  });

  it('--show-answers all shows every question; a bad value is refused before any request', async () => {
    const sim = await start();
    claws(sim);
    const cwd = workspaceWith({ 'checks.yml': CHECKS });
    const args = ['compare', ...base(sim), '--checks', 'checks.yml', '--claw-id', 'next', '--baseline', 'prod'];
    const run = await runCli([...args, '--show-answers', 'all'], { cwd, env: { COLUMNS: '120' } });
    const text = run.stdout.slice(run.stdout.indexOf('Answers side by side'));
    expect(text).toContain('  q1 (every question asked for)');
    expect(text).toContain('  q2 (passed 0 of 3, 3 of 3 before)');
    expect(text).toContain('  q3 (every question asked for)');

    const bad = await runCli([...args, '--show-answers', 'some', '--json'], { cwd });
    expect(bad.code).toBe(2);
    expect(oneJsonObject(bad).message).toMatch(/--show-answers is "some": expected .*worse.*all/);
  });

  it('the summary shows them in a table, escaped; against a saved baseline its reply comes from the file', async () => {
    const sim = await start();
    claws(sim);
    const dir = workspaceWith({ 'checks.yml': CHECKS });
    const saved = await runAction(
      inputsFor(sim, { command: 'check', 'claw-id': 'prod', checks: 'checks.yml', 'checks-output': 'before.json' }),
      { env: { GITHUB_WORKSPACE: dir }, cwd: dir },
    );
    expect(saved.exitCode).toBe(0);
    const run = await runAction(
      inputsFor(sim, { command: 'compare', 'claw-id': 'next', 'baseline-file': 'before.json', checks: 'checks.yml' }),
      { env: { GITHUB_WORKSPACE: dir }, cwd: dir },
    );
    const summary = run.summary.slice(run.summary.indexOf('##### Answers side by side'));
    expect(summary.split('\n')[0]).toBe('##### Answers side by side (each reply cut to 300 characters)');
    expect(summary).toContain(
      '| Question | Baseline (before.json &#40;prod&#41;) | Candidate (next) | Failed assertion |',
    );
    const row = summary.split('\n').find((l) => l.startsWith('| q2'))!;
    expect(row).toContain('| *the last attempt:* PASS&#58; q2 |');
    expect(row).toContain('| *attempt 1 of 3:* FAIL&#58; q2 \ufffd&#91;31m&lt;img src=x&gt; &#124; &#58;&#58;error');
    expect(row.split(/(?<!\\)\|/)).toHaveLength(6);
    expect(summary).not.toContain('<img');
    expect(summary.split('\n').filter((l) => /^\| q[13]/.test(l))).toEqual([]);
  });
});
