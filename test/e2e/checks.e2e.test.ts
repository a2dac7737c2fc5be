// Conversation checks through dist/index.js: the gate, the outputs, the summary, the JUnit file,
// and a bad checks file refused before any request.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest({ rollbackForm: 'new-deployment' });

/** A workspace holding `.github/claw-checks.yml`. */
function workspace(checks: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'claw-workspace-'));
  mkdirSync(join(dir, '.github'));
  writeFileSync(join(dir, '.github', 'claw-checks.yml'), checks);
  return dir;
}

const CHECKS = `defaults:
  timeout: 10s
checks:
  - name: greets the customer
    send: Hello
    assert:
      - type: icontains
        value: hello
  - name: refund flow
    turns:
      - send: I want a refund
        assert:
          - type: regex
            value: '(?i)order number'
`;

const withChecks = (extra: Record<string, string> = {}) => ({ checks: '.github/claw-checks.yml', ...extra });

describe('conversation checks, end to end', () => {
  it('a deployment that succeeds but fails a check is failed and rolled back; outputs, summary, JUnit', async () => {
    const s = await start();
    // The new release answers the greeting, but its reply to the refund is hostile text.
    const hostile = 'Sorry ]]> <img src=x> | `code` \u001b[31m::error::pwned';
    s.addClaw('c1', {
      plan: [['pending', 2000], ['live']],
      chat: { mode: 'sync', respond: (m) => (m === 'Hello' ? 'Hello! How can I help?' : hostile) },
    });
    const dir = workspace(CHECKS);
    const run = await runAction(
      inputsFor(s, withChecks({ 'auto-rollback': 'true', 'checks-junit': 'reports/claw-checks.xml' })),
      {
        env: { GITHUB_WORKSPACE: dir },
      },
    );
    expect(run.exitCode).toBe(1);
    expect(run.outputs).toMatchObject({
      outcome: 'failed',
      status: 'live',
      'rolled-back': 'true',
      'checks-passed': 'false',
    });
    const report = JSON.parse(run.outputs['checks-report']) as Record<string, unknown>[];
    expect(report).toEqual([
      expect.objectContaining({
        check: 'greets the customer',
        clawId: 'c1',
        passed: true,
        passes: 1,
        repeat: 1,
        errors: 0,
      }),
      expect.objectContaining({ check: 'refund flow', passed: false, passes: 0, errors: 0 }),
    ]);
    expect(String(report[1].failure)).toContain('regex /(?i)order number/ did not hold; reply: "Sorry ]]> <img src=x>');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(
      /succeeded with status "live" after .*, but its checks did not pass: "refund flow" on c1/,
    );
    // The reply never becomes a command, HTML or a broken table.
    // (The action's own ::debug:: lines carry the attempts, the reply inside them as data.)
    expect(run.commands.filter((c) => c.includes('pwned') && !/^::(error::Deployment|debug::)/.test(c))).toEqual([]);
    expect(run.summary).toContain('#### Conversation checks: 1 of 2 passed');
    expect(run.summary).not.toContain('<img');
    const row = run.summary.split('\n').find((l) => l.startsWith('|') && l.includes('refund flow'))!;
    expect(row.split(/(?<!\\)\|/)).toHaveLength(9);
    // The JUnit file, where asked.
    const junit = readFileSync(join(dir, 'reports', 'claw-checks.xml'), 'utf8');
    expect(junit).toContain('<testsuite name="Claw c1" tests="2" failures="1" errors="0"');
    expect(junit).toContain('&lt;img src=x&gt;');
    expect(run.stdout).toContain("Wrote the checks' results as JUnit XML to reports/claw-checks.xml.");
    // The log: the gate in a group, a line per check as it ends.
    expect(run.stdout).toContain('::group::Checks: Claw c1');
    expect(run.stdout).toMatch(/✅ c1 · greets the customer: passed \(1 of 1 attempt passed/);
    expect(run.stdout).toMatch(/❌ c1 · refund flow: failed \(0 of 1 attempt passed, 1 of 1 needed.*\): regex /);
  });

  it('checks that pass leave the deployment succeeded, with checks-passed true', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['live']], chat: { mode: 'sync', reply: 'Hello! What is your order number?' } });
    const run = await runAction(inputsFor(s, withChecks()), { env: { GITHUB_WORKSPACE: workspace(CHECKS) } });
    expect(run.exitCode).toBe(0);
    expect(run.outputs).toMatchObject({ outcome: 'succeeded', 'checks-passed': 'true' });
  });

  it('health: a Claw that fails its checks is unhealthy; the probe is one more check', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, pong! Your order number?' } });
    s.addClaw('c2', { chat: { mode: 'sync', reply: 'pong' } });
    const run = await runAction(
      inputsFor(
        s,
        withChecks({ command: 'health', 'claw-id': 'c1,c2', 'probe-message': 'ping', 'probe-expect': 'PONG' }),
      ),
      { env: { GITHUB_WORKSPACE: workspace(CHECKS) } },
    );
    expect(run.exitCode).toBe(1);
    expect(run.outputs.healthy).toBe('false');
    const report = JSON.parse(run.outputs['checks-report']) as { check: string; clawId: string; passed: boolean }[];
    expect(report.map((e) => [e.clawId, e.check, e.passed])).toEqual([
      ['c1', 'greets the customer', true],
      ['c1', 'refund flow', true],
      ['c1', 'probe', true],
      ['c2', 'greets the customer', false],
      ['c2', 'refund flow', false],
      ['c2', 'probe', true],
    ]);
  });

  it.each([
    [
      'a missing file',
      undefined,
      /^The checks file "\.github\/claw-checks\.yml" could not be read \(no such file in the workspace\)/,
    ],
    [
      'a syntax error',
      'checks:\n  - name: a\n   send: b\n',
      /^\.github\/claw-checks\.yml, line 3: the checks file is not valid YAML/,
    ],
    [
      'an unknown assertion type',
      'checks:\n  - name: a\n    send: b\n    assert:\n      - type: contians\n        value: x\n',
      /^\.github\/claw-checks\.yml, line 5: 'type' is "contians": expected one of the \d+ types; did you mean 'contains'\?$/,
    ],
  ])('refuses %s before any request, with outcome error and one ::error::', async (_, text, message) => {
    const s = await start();
    s.addClaw('c1');
    const dir = text === undefined ? mkdtempSync(join(tmpdir(), 'claw-workspace-')) : workspace(text);
    const run = await runAction(inputsFor(s, withChecks()), { env: { GITHUB_WORKSPACE: dir } });
    expect(run.exitCode).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(message);
    expect(run.outputs.outcome).toBe('error');
    expect(s.requests).toHaveLength(0);
    expect(existsSync(join(dir, 'reports'))).toBe(false);
  });
});
