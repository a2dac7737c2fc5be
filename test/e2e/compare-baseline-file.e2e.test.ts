// A saved run given to `compare --baseline-file`, through the command line and dist/index.js: a
// forged file's check names reach the log, --json, the summary and the outputs as text, never as
// commands or markup; a file naming one check many times (to claim more attempts than any run
// makes) is one error at the second, before any request, beside a control.
import { describe, expect, it } from 'vitest';
import { base, runCli } from './cli-run.ts';
import { eventWorkspace } from './fork-files.ts';
import { onEvent, runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const SECRETS = { GITHUB_TOKEN: 'ghs_round4-step-token-0123456789', OPENAI_API_KEY: 'sk-round4-openai-0123456789' };

describe('a forged saved run given to compare', () => {
  const NAMES = [
    'q1',
    '\u009b2J\u001b[2J::error::FORGED all checks passed',
    '<img src=x onerror=alert(1)>',
    '[click](https://evil.example/x) | --- | ![x](https://evil.example/p.png)',
    '\n::warning::forged\n##[error]legacy',
  ];
  const saved = (names: string[]): string =>
    JSON.stringify({
      results: {
        results: names.map((check) => ({
          metadata: {
            clawDeploy: {
              check,
              clawId: 'prod',
              // No reply timed: latency cannot be compared, so the machine's own timing never decides.
              samples: Array.from({ length: 3 }, () => ({ outcome: 'pass', score: 1 })),
            },
          },
        })),
      },
    });
  it('check names in the file reach the log, --json, the summary and outputs as text, never as commands or markup', async () => {
    const s = await start();
    s.addClaw('next', { chat: { mode: 'sync', reply: 'yes' } });
    const checks = `defaults:\n  repeat: 3\nchecks:\n${NAMES.map((n) => `  - name: ${JSON.stringify(n)}\n    send: hi\n    assert:\n      - type: equals\n        value: 'yes'\n`).join('')}`;
    // The saved file also holds a check the checks file does not name, with the same hostile text.
    const ONLY_SAVED = '\u009b2J::error::ONLY-SAVED <img src=x onerror=alert(2)> [x](https://evil.example/y)';
    const dir = eventWorkspace({ 'checks.yml': checks, 'saved.json': saved([...NAMES, ONLY_SAVED]) });
    const args = [
      'compare',
      ...base(s),
      '--checks',
      'checks.yml',
      '--claw-id',
      'next',
      '--baseline-file',
      'saved.json',
    ];
    const cli = await runCli(args, { cwd: dir });
    expect(cli.code, cli.stderr).toBe(0);
    for (const text of [cli.stdout, cli.stderr]) {
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(text).not.toMatch(/^(::|##\[)/m);
    }
    const json = await runCli([...args, '--json'], { cwd: dir });
    expect(json.stdout).not.toMatch(/[\u007f-\u009f\u2028\u2029]/);
    const result = JSON.parse(json.stdout) as { behaviour: string; comparison: { metric: string; reason?: string }[] };
    // The data cannot speak on latency (the saved run timed no reply): inconclusive, saying why.
    expect(result.behaviour).toBe('inconclusive');
    expect(result.comparison.find((m) => m.metric === 'latency-p50')?.reason).toBe(
      'no reply time on the baseline side',
    );
    const run = await runAction(
      inputsFor(s, { command: 'compare', checks: 'checks.yml', 'claw-id': 'next', 'baseline-file': 'saved.json' }),
      onEvent(dir, 'push', SECRETS),
    );
    expect(run.exitCode, run.stdout).toBe(0);
    const commands = run.stdout.split('\n').filter((l) => /^(::|##\[)/.test(l));
    expect(
      commands.every((l) => /^::(add-mask|debug|warning)::/.test(l)),
      commands.join('\n'),
    ).toBe(true);
    expect(run.warnings.join('\n')).not.toMatch(/forged|ONLY-SAVED/);
    expect(run.errors).toEqual([]);
    expect(run.summary).not.toMatch(/<img|\]\(https:\/\/evil|^\s*::|##\[error\]/m);
    // The saved file's own check is not compared (only the checks file's are read): one log line
    // counts and names it, as text, and no row of the summary holds it.
    const named = run.stdout.split('\n').filter((l) => l.includes('ONLY-SAVED'));
    expect(named).toEqual([
      expect.stringMatching(
        /^The saved run holds 1 other check\(s\) the checks file does not have, not compared: ".2J::error::ONLY-SAVED <img src=x onerror=alert\(2\)> \[x\]\(http… \(19 more characters\)"\.$/,
      ),
    ]);
    expect(run.summary).not.toContain('ONLY-SAVED');
  });
});

describe('a saved run that names one check many times', () => {
  /** A checks output as this action writes it: each listed check with `samples` attempts. */
  const saved = (checks: { name: string; outcome: 'pass' | 'fail' }[], samples = 10): string =>
    JSON.stringify({
      results: {
        results: checks.map(({ name, outcome }) => ({
          metadata: {
            clawDeploy: {
              check: name,
              clawId: 'prod',
              samples: Array.from({ length: samples }, () => ({ outcome, score: outcome === 'pass' ? 1 : 0 })),
            },
          },
        })),
      },
    });
  const CHECKS = `defaults:\n  repeat: 10\nchecks:\n  - name: q1\n    send: hi\n    assert:\n      - type: equals\n        value: 'yes'\n`;
  const compare = async (file: string) => {
    const s = await start();
    s.addClaw('next', { chat: { mode: 'sync', reply: 'yes' } });
    const dir = eventWorkspace({ 'checks.yml': CHECKS, 'saved.json': file });
    const args = [
      'compare',
      ...base(s),
      '--checks',
      'checks.yml',
      '--claw-id',
      'next',
      '--baseline-file',
      'saved.json',
    ];
    return { s, cli: await runCli([...args, '--json'], { cwd: dir }) };
  };

  // Found, now fixed (medium: figures that lie; whoever writes the file, a fork's under a fork's
  // event). A run saves one result per check and Claw, at most 100 attempts each. The reader took
  // every result and the comparison pooled results of one name, so q1 written 1,000 times claimed
  // 10,000 baseline attempts of one check: the pass rate's interval drawn 30 times narrower than
  // any run can support, and the report's n a figure no run made. Now a check named twice for its
  // Claw is one error naming the file and the line of the second, before any request.
  it('q1 written 1,000 times is one error at the second, before any request', async () => {
    const { s, cli } = await compare(saved(Array.from({ length: 1000 }, () => ({ name: 'q1', outcome: 'pass' }))));
    expect(cli.code, cli.stdout).not.toBe(0);
    expect(cli.stderr).toMatch(
      /saved\.json, line \d+: results\.results\.1\.metadata\.clawDeploy\.check: expected .*once/,
    );
    expect(cli.stdout).not.toMatch(/"n": ?10000/);
    expect(s.requests).toEqual([]);
  });

  it('control: each check once, the baseline n is its own attempts', async () => {
    // q1's saved answers vary (8 of 10 passed): the candidate is asked every repeat, so the baseline
    // keeps all 10 (a question answered the same on both sides is asked once, matched to one).
    const file = JSON.parse(
      saved([
        { name: 'q1', outcome: 'pass' },
        { name: 'q2', outcome: 'pass' },
      ]),
    ) as { results: { results: { metadata: { clawDeploy: { samples: { outcome: string; score: number }[] } } }[] } };
    const q1 = file.results.results[0].metadata.clawDeploy.samples;
    q1[3] = { outcome: 'fail', score: 0 };
    q1[7] = { outcome: 'fail', score: 0 };
    const { cli } = await compare(JSON.stringify(file));
    expect(cli.code, cli.stderr).toBe(0);
    const result = JSON.parse(cli.stdout) as {
      comparison: { check: string; metric: string; baseline: { n: number } }[];
    };
    const row = result.comparison.find((m) => m.check === 'q1' && m.metric === 'pass-rate');
    expect(row?.baseline.n).toBe(10);
  });
});
