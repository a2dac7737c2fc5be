// The figures teams track in the command line: `claw-deploy health --history-dir DIR` reads the
// deployment records kept in the folder (sealed as the action seals them) and prints the figures;
// --json carries them under `dora`, valid against the published schema.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentLine } from '../../src/health/deployment-log.ts';
import { sealKey } from '../../src/seal.ts';
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
    const record = {
      at,
      claw: 'support-bot',
      deployment: 'dep_1',
      outcome: 'failed' as const,
      run: '',
      committedAt: at - 7200_000,
    };
    writeFileSync(
      join(cwd, 'status', 'history', 'deployments', `${month}.ndjson`),
      `${deploymentLine(record, seal)}\n`,
    );
    const health = ['health', '--claw-id', '*', '--probe-message', 'ping', '--history-dir', 'status', ...base(s)];
    const text = await runCli(health, { cwd });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Deployments (the figures teams track):');
    expect(text.stdout).toMatch(
      /7 days +1 \(1\/week\); lead time —; change failure rate 1 \/ 1 \(100%\); recovery \S+ \(n=1\)/,
    );
    const json = oneJsonObject(await runCli([...health, '--json'], { cwd }));
    expect(json.dora).toMatchObject({
      windowsDays: [7, 30, 90],
      overall: { '7': { deployments: 1, changeFailureRate: { failed: 1, total: 1, rate: 1 } } },
      claws: { 'support-bot': { '30': { deployments: 1 } } },
    });
  });
});
