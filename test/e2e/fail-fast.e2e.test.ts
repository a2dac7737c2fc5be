// A wrong address fails fast and names itself, through dist/index.js: a judge where nothing
// listens ends two llm-rubric checks in seconds (not a minute each), a base-url where nothing
// listens ends the run naming it (not two minutes of retries), and a base-url whose path is wrong
// is an error that opens no Claw incidents (not every Claw "down").
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../sim/server.ts';
import { runAction, workspaceWith } from './harness.ts';
import { HealthWorld } from './health-world.ts';
import { inputsFor, simulatorPerTest } from './service.ts';
import { deadPort } from '../support/dead-port.ts';

const start = simulatorPerTest();
// Time enough for today's retries (a minute per judge check, two for the service): a run that
// ends long before it failed fast; the guard kills one that does not.
const LONG = '5m';
const GUARD_MS = 45_000;

describe('fail fast, and name the cause', () => {
  it('a judge where nothing listens: both llm-rubric checks are errors within seconds, naming its address', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Which order number?' } });
    const judgeUrl = `http://127.0.0.1:${await deadPort()}/v1`;
    const rubric = (name: string) =>
      `  - name: ${name}\n    send: I want a refund\n    assert: [{type: llm-rubric, value: Asks for the order number}]\n`;
    const dir = workspaceWith({
      'claw-checks.yml': `judge:\n  url: ${judgeUrl}\n  model: judge-model\ndefaults: {timeout: 60s}\nchecks:\n${rubric('first')}${rubric('second')}`,
    });
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'claw-checks.yml', timeout: LONG, 'checks-junit': 'junit.xml' }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: GUARD_MS },
    );
    expect(run.signal).toBeNull();
    const checks = JSON.parse(run.outputs['checks-report']) as { check: string; failure?: string }[];
    expect(checks).toHaveLength(2);
    for (const check of checks) {
      expect(check.failure).toContain(`Nothing answered at ${judgeUrl} (connection refused): check the judge's url.`);
    }
    // Two quick retries for the first check, none for the second: not 8–9 ECONNREFUSED per check.
    expect(run.stdout.match(/ECONNREFUSED/g)?.length ?? 0).toBeLessThanOrEqual(3);
  }, 60_000);

  it('a base-url where nothing listens ends the run at once, naming base-url and its value', async () => {
    const base = `http://127.0.0.1:${await deadPort()}`;
    const run = await runAction(
      { command: 'health', 'api-key': DEMO_KEY, 'base-url': `${base}/v1`, 'claw-id': 'c1', timeout: LONG },
      { killAfterMs: GUARD_MS },
    );
    expect(run.signal).toBeNull();
    expect(run.exitCode).not.toBe(0);
    expect(run.errors.join('\n')).toMatch(
      new RegExp(`Nothing answered at ${base.replace(/\./g, '\\.')}(/v1)? \\(connection refused\\): check 'base-url'`),
    );
    expect(run.stdout).not.toMatch(/gave up/);
  }, 60_000);

  describe('a wrong path under health with incidents', () => {
    const T = Date.parse('2026-11-20T10:00:00Z');
    const world = new HealthWorld({ timeout: '60s', confirm: '1' }, { killAfterMs: GUARD_MS }, 700);
    afterEach(() => world.stop());

    it('every Claw answered 404 without the service body: an error naming base-url, no incident issues', async () => {
      const { sim, github } = await world.start();
      sim.addClaw('bot-a');
      sim.addClaw('bot-b');
      const run = await world.run(T, { 'base-url': `${sim.url}/api/v2`, 'claw-id': 'bot-a,bot-b' });
      expect(run.exitCode).not.toBe(0);
      expect(run.errors.join('\n')).toContain(
        `'base-url' ${sim.url}/api/v2 looks wrong: GET /v1/claws/:id answered 404 without the service's error body.`,
      );
      expect(github.repo.issues).toEqual([]);
    }, 60_000);
  });
});
