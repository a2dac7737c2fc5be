// Deployment records whose ids a hostile service chose, sealed as this action writes them and read
// back by a health run through dist/index.js: ids holding markup, workflow commands and pipes are
// text on the page, the summary, status.json and the log; an id recorded succeeded then failed
// counts once, live: by DORA's definitions a failed attempt is not a change failure (only a remedy
// makes one). (deployment-records.e2e.test.ts holds the records' other tests.)
import { afterEach, describe, expect, it } from 'vitest';
import { deploymentLine } from '../../src/health/deployment-log.ts';
import type { DeploymentRecord } from '../../src/health/deployment-records.ts';
import { sealKey } from '../../src/shared/seal.ts';
import { DEMO_KEY } from '../sim/server.ts';
import { HealthWorld } from './health-world.ts';

describe('deployment records whose ids a hostile service chose, sealed as this action writes them', () => {
  // Input controlled by: the service (the deployment id a deploy recorded), then anyone with push
  // access (which sealed lines sit in the month's file, repeated or not). Held: every sink escapes
  // the id, the link targets are built from the repository and the run's id only, and one id with
  // a failed and a succeeded record counts once, as the live deployment it was.
  const T = Date.parse('2026-11-20T10:00:00Z');
  const HOUR = 3600_000;
  const BRANCH = 'claw-health';
  const SEAL = sealKey(DEMO_KEY, 'octo/claws');
  const HOSTILE = [
    '<img_src=x_onerror=alert(1)>',
    '::error::FORGED-RECORD',
    '[x](javascript:alert(1))',
    'a|b`c`',
    '%0A::warning::x',
  ];
  const world = new HealthWorld({ timeout: '20s', 'status-page': 'true', incidents: 'false' }, {}, 5300);
  afterEach(() => world.stop());

  it('ids with markup, commands and pipes are text on the page, the summary, status.json and the log', async () => {
    const { sim } = await world.start({ speed: 20 });
    sim.addClaw('bot-a');
    const record = (deployment: string, at: number, outcome: DeploymentRecord['outcome']): DeploymentRecord => ({
      at,
      claw: 'bot-a',
      deployment,
      outcome,
      run: '77',
      commit: 'c0ffee'.padEnd(40, '1'),
    });
    const records = HOSTILE.map((id, i) => record(id, T - (i + 2) * HOUR, 'succeeded'));
    // The control: a plain id recorded twice, succeeded then failed (conflicting): one deployment,
    // live (its succeeded record), not a change failure (nothing remedied it), not counted apart.
    records.push(record('dep_plain', T - 10 * HOUR, 'succeeded'), record('dep_plain', T - 9 * HOUR, 'failed'));
    const lines = records.map((r) => deploymentLine(r, SEAL));
    world.github!.repo.push(BRANCH, { 'history/deployments/2026-11.ndjson': `${lines.join('\n')}\n${lines[0]}\n` });
    const run = await world.run(T, { 'claw-id': '*', history: BRANCH });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.errors).toEqual([]);
    expect(run.commands.every((c) => /^::(add-mask|debug|warning|notice|group|endgroup)::/.test(c))).toBe(true);
    expect(run.commands.join('\n')).not.toMatch(/FORGED-RECORD/);
    expect(run.summary).not.toMatch(/<img|\]\(javascript:|^\s*::/m);
    const html = world.github!.repo.file(BRANCH, 'index.html')!;
    expect(html).not.toMatch(/<img|href="javascript:|href="\/\//);
    expect(html).toContain('&lt;img_src=x_onerror=alert(1)&gt;');
    const status = JSON.parse(world.github!.repo.file(BRANCH, 'status.json')!) as {
      deployments: { id: string }[];
      dora: { overall: Record<string, unknown> };
    };
    expect(status.deployments.map((d) => d.id).sort()).toEqual([...HOSTILE, 'dep_plain'].sort());
    expect(status.dora.overall['7']).toEqual({
      days: 7,
      deployments: 6,
      perWeek: 6,
      notLive: 0,
      // The records carry a commit but no commit time: no lead time, from nothing.
      leadTimeMs: { median: null, n: 0, from: { firstCommit: 0, merged: 0, headCommit: 0 } },
      changeFailureRate: { failed: 0, total: 6, rate: 0 },
      recoveryMs: { median: null, n: 0, open: 0 },
    });
  });
});
