// A failed check shows the reply of an attempt that failed, and says which: never a later attempt's
// reply that passed. The candidate answers q6 `PASS`, then `FAIL`, then `PASS`: a comparison whose
// answers vary makes every attempt, so the last reply passed while the check failed (2 of 3, all 3 needed). Through the
// packed command line (the terminal, --json, JUnit, the promptfoo output) and the action (the log,
// the summary).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../sim/server.ts';
import { runAction, workspaceWith } from './harness.ts';
import { base, runCli } from './cli-run.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

const decoded = (html: string): string =>
  html.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/&quot;/g, '"');

const CHECKS = `defaults:\n  repeat: 3\n  min-pass: 3\nchecks:\n  - {name: q6, send: q6, assert: [{type: starts-with, value: 'PASS:'}]}\n`;

/**
 * next fails the second attempt of each three only, and says so in the reply; prod the first of each
 * three: a comparison asks a question again only while its answers vary on either side, and the two
 * sides differing from the first round on keep every attempt of q6 made on both.
 */
function claws(sim: Simulator): void {
  sim.addClaw('prod', {
    chat: {
      mode: 'sync',
      respond: (text, n) => (n % 3 === 1 ? `FAIL: ${text} (prod's first reply)` : `PASS: ${text}`),
    },
  });
  sim.addClaw('next', {
    chat: {
      mode: 'sync',
      respond: (text, n) => (n % 3 === 2 ? `FAIL: ${text} (the second reply)` : `PASS: ${text} (reply ${n})`),
    },
  });
}

describe('the failing reply', () => {
  it('the command line shows the failing attempt and its reply, never the passing one after it', async () => {
    const sim = await start();
    claws(sim);
    const cwd = workspaceWith({ 'checks.yml': CHECKS });
    const args = ['compare', ...base(sim), '--checks', 'checks.yml', '--claw-id', 'next', '--baseline', 'prod'];
    const run = await runCli([...args, '--junit', 'checks.xml', '--output', 'out.json'], {
      cwd,
      env: { COLUMNS: '200' },
    });
    const lines = run.stdout.split('\n');
    const at = lines.findIndex((l) => /next · q6\s+✘ failed 2\/3/.test(l));
    expect(at, run.stdout).toBeGreaterThan(-1);
    const under = lines.slice(at + 1, at + 4).join('\n');
    expect(under).toContain('attempt 2 of 3: starts-with "PASS:" did not hold; reply: "FAIL: q6 (the second reply)"');
    expect(under).toMatch(/reply of attempt 2 of 3:\n\s+│ FAIL: q6 \(the second reply\)/);
    expect(run.stdout).not.toMatch(/│ PASS: q6 \(reply 3\)/);

    // JUnit: the failure names the attempt and carries its reply, not the last one.
    const junit = readFileSync(join(cwd, 'checks.xml'), 'utf8');
    expect(junit).toContain('message="attempt 2 of 3: starts-with');
    expect(junit).toContain('reply of attempt 2 of 3:\nFAIL: q6 (the second reply)');
    expect(junit).not.toContain('PASS: q6 (reply 3)');

    // promptfoo's output: the failed result shows the failing attempt's reply as its output.
    const out = JSON.parse(readFileSync(join(cwd, 'out.json'), 'utf8')) as {
      results: {
        results: {
          provider: { label: string };
          response?: { output: string };
          error?: string;
          metadata: { clawDeploy: Record<string, unknown> };
        }[];
      };
    };
    const failed = out.results.results.find((r) => r.provider.label === 'next')!;
    expect(failed.response?.output).toBe('FAIL: q6 (the second reply)');
    expect(failed.error).toMatch(/^attempt 2 of 3: /);
    expect(failed.metadata.clawDeploy.failedAttempt).toBe(2);

    // --json: the checks-report entry says which attempt.
    const json = await runCli([...args, '--json'], { cwd: workspaceWith({ 'checks.yml': CHECKS }) });
    const report = (JSON.parse(json.stdout) as { 'checks-report': Record<string, unknown>[] })['checks-report'];
    expect(report.find((e) => e.clawId === 'next')).toMatchObject({ passed: false, passes: 2, failedAttempt: 2 });
  });

  it('the action: the log line and the summary name the failing attempt and quote its reply', async () => {
    const sim = await start();
    claws(sim);
    const dir = workspaceWith({ 'checks.yml': CHECKS });
    const run = await runAction(
      inputsFor(sim, { command: 'compare', 'claw-id': 'next', baseline: 'prod', checks: 'checks.yml' }),
      { env: { GITHUB_WORKSPACE: dir }, cwd: dir },
    );
    expect(run.stdout).toMatch(
      /❌ next · q6: failed \(2 of 3 attempts passed, 3 of 3 needed.*\): attempt 2 of 3: starts-with "PASS:" did not hold; reply: "FAIL: q6 \(the second reply\)"/,
    );
    // The summary escapes the reply for Markdown (`:` as &#58;): read back as a reader sees it.
    const row = decoded(run.summary.split('\n').find((l) => l.startsWith('|') && l.includes('`next`'))!);
    expect(row).toContain('attempt 2 of 3: starts-with');
    expect(row).toContain('FAIL: q6 (the second reply)');
    expect(row).not.toContain('reply 3');
  });
});
