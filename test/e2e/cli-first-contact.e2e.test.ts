// What a newcomer meets on the command line (issue 40's smaller items), through the packed CLI:
// Ctrl-C says what happens next and names a rollback only where one can happen; a mistyped
// assertion type in the native checks format is named with the nearest real one.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { base, runCli } from './cli-run.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const noticeOf = (stderr: string): string => stderr.split('\n').find((l) => l.includes('Received SIGINT')) ?? '';

describe('the command line, first contact', () => {
  it('Ctrl-C during a deploy without a rollback on cancel: the deployment goes on, and the commands that follow or undo it', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 600_000], ['live']] });
    const run = await runCli(['deploy', '--claw-id', 'c1', ...base(s)], {
      onLog: (line, child) => void (line.includes('pending (in progress)') && child.kill('SIGINT')),
    });
    expect(run.code).toBe(130);
    expect(noticeOf(run.stderr)).toBe(
      'warning: Received SIGINT: stopping. Deployment dep_0001 goes on on the service (no rollback: --auto-rollback with --rollback-on cancelled would roll it back). Follow it: claw-deploy wait --deployment-id dep_0001; undo it: claw-deploy rollback --deployment-id dep_0001.',
    );
    expect(s.requests.some((r) => r.method === 'POST' && r.path.endsWith('/rollback'))).toBe(false);
  });

  it('Ctrl-C during a check: no word of a rollback, which a check never makes', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'never' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(join(cwd, 'checks.yml'), 'checks:\n  - {name: a, send: hi, assert: [{type: contains, value: x}]}\n');
    const run = await runCli(['check', '--claw-id', 'c1', '--checks', 'checks.yml', '--verbose', ...base(s)], {
      cwd,
      onLog: (line, child) => void (/GET \S+\/tasks\//.test(line) && child.kill('SIGINT')),
    });
    expect(run.code).toBe(130);
    expect(noticeOf(run.stderr)).toBe(
      'warning: Received SIGINT: stopping the check; what is known so far is reported.',
    );
    expect(run.stderr).not.toMatch(/roll/i);
  });

  it('rollback of a deployment already rolled back says so and posts nothing', async () => {
    const s = await start();
    s.addClaw('c1');
    const done = s.addDeployment('c1', [['rolled_back']]);
    for (const target of [
      ['--deployment-id', done.id],
      ['--claw-id', 'c1'],
    ]) {
      const run = await runCli(['rollback', ...target, ...base(s)]);
      expect(run.code, target.join(' ')).toBe(0);
      expect(run.stdout.split('\n')[0]).toBe(
        `✔ Deployment ${done.id} is already rolled back (status "rolled_back"): no rollback was sent.`,
      );
    }
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('health shows the reply that failed the probe, as a failed check shows its reply', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'I am a teapot.\nShort and stout.' } });
    s.addDeployment('c1', [['live']]);
    const run = await runCli([
      'health',
      '--claw-id',
      'c1',
      '--probe-message',
      'ping',
      '--probe-expect',
      'pong',
      ...base(s),
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /Not healthy:\n {2}✘ c1: unhealthy\n {6}[^\n]*probe[\s\S]*?\n {6}reply:\n {6}│ I am a teapot\.\n {6}│ Short and stout\./,
    );
  });

  it('a mistyped assertion type in the native format: did you mean, exit 2, nothing sent', async () => {
    const s = await start();
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(
      join(cwd, 'checks.yml'),
      'checks:\n  - name: a\n    send: hi\n    assert:\n      - type: contians\n        value: x\n',
    );
    const run = await runCli(['check', '--claw-id', 'c1', '--checks', 'checks.yml', ...base(s)], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /checks\.yml, line 5: 'type' is "contians": expected one of the \d+ types; did you mean 'contains'\?/,
    );
    expect(s.requests).toHaveLength(0);
  });
});
