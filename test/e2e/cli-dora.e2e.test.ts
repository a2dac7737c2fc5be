// The figures teams track in the command line: `claw-deploy health --history-dir DIR` reads the
// deployment records kept in the folder (sealed as the action seals them) and prints the figures;
// --json carries them under `dora`, valid against the published schema.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentLine } from '../../src/health/deployment-log.ts';
import { sealKey } from '../../src/shared/seal.ts';
import { DEMO_KEY } from '../sim/server.ts';
import { base, oneJsonObject, runCli } from './cli-run.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

describe('the figures teams track in the command line', () => {
  it('health --history-dir prints them, and --json has them under dora', async () => {
    const s = await start();
    s.addClaw('support-bot', { chat: { mode: 'sync', reply: 'PONG' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-dora-'));
    const at = Date.now() - 3600_000;
    const month = new Date(at).toISOString().slice(0, 7);
    mkdirSync(join(cwd, 'status', 'history', 'deployments'), { recursive: true });
    // Outside GitHub the seal is keyed from the API key alone (no repository).
    const seal = sealKey(DEMO_KEY, '');
    // One deployment that went live, then an attempt that failed before going live: by DORA's
    // definitions the second is no deployment and no change failure, only counted apart (notLive).
    const live = {
      at,
      claw: 'support-bot',
      deployment: 'dep_1',
      outcome: 'succeeded' as const,
      run: '',
      committedAt: at - 7200_000,
    };
    const attempt = { ...live, at: at + 600_000, deployment: 'dep_2', outcome: 'failed' as const };
    writeFileSync(
      join(cwd, 'status', 'history', 'deployments', `${month}.ndjson`),
      `${deploymentLine(live, seal)}\n${deploymentLine(attempt, seal)}\n`,
    );
    const health = ['health', '--claw-id', '*', '--probe-message', 'ping', '--history-dir', 'status', ...base(s)];
    const text = await runCli(health, { cwd });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      [
        'Deployments (the figures teams track):',
        '  7 days   1 (1/week), 1 not live; lead time 2h (n=1); change failure rate 0 / 1 (0%); recovery —',
        '  30 days  1 (0.23/week), 1 not live; lead time 2h (n=1); change failure rate 0 / 1 (0%); recovery —',
        '  90 days  1 (0.08/week), 1 not live; lead time 2h (n=1); change failure rate 0 / 1 (0%); recovery —',
        '  support-bot: 1 (0.23/week), 1 not live in 30 days; change failure rate 0 / 1 (0%)',
      ].join('\n'),
    );
    const json = oneJsonObject(await runCli([...health, '--json'], { cwd }));
    const week = {
      days: 7,
      deployments: 1,
      perWeek: 1,
      notLive: 1,
      // The record carries only its commit's time: lead time from the head commit.
      leadTimeMs: { median: 7200_000, n: 1, from: { firstCommit: 0, merged: 0, headCommit: 1 } },
      changeFailureRate: { failed: 0, total: 1, rate: 0 },
      recoveryMs: { median: null, n: 0, open: 0 },
    };
    expect(json.dora).toMatchObject({
      windowsDays: [7, 30, 90],
      overall: { '7': week },
      claws: { 'support-bot': { '7': week, '30': { deployments: 1, notLive: 1 } } },
    });
    expect((json.dora as { overall: Record<string, unknown> }).overall['7']).toEqual(week);
  });
});
