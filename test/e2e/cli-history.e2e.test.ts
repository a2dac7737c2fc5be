// The history outside GitHub: `claw-deploy deploy` and `rollback` with `--history-dir DIR` keep
// sealed deployment records in the folder, as the action keeps them on its branch, and the next
// `claw-deploy health --history-dir DIR --status-page` shows them: the deployments table, the
// DORA figures on the page, in status.json and in health's output.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { base, oneJsonObject, runCli } from './cli-run.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest({ rollbackForm: 'new-deployment' });

/** The lines of every month file of the folder's deployment records. */
function recordLines(cwd: string): string[] {
  const dir = join(cwd, 'status', 'history', 'deployments');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ndjson'))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean));
}

describe('deployment records in a local history folder', () => {
  it('deploy and rollback keep sealed records; health shows the deployments and DORA on the page', async () => {
    const s = await start();
    s.addClaw('support-bot', { plan: [['pending', 2000], ['live']], chat: { mode: 'sync', reply: 'PONG' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-history-'));
    const folder = ['--history-dir', 'status'];

    const first = await runCli(['deploy', '--claw-id', 'support-bot', ...folder, ...base(s)], { cwd });
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(['deploy', '--claw-id', 'support-bot', ...folder, ...base(s)], { cwd });
    expect(second.code, second.stderr).toBe(0);
    const back = await runCli(['rollback', '--claw-id', 'support-bot', ...folder, ...base(s)], { cwd });
    expect(back.code, back.stderr).toBe(0);
    // One sealed line per deployment: two deploys and the rollback's own record.
    const lines = recordLines(cwd);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('seal');

    const health = ['health', '--claw-id', 'support-bot', '--probe-message', 'ping', ...folder, ...base(s)];
    const run = await runCli([...health, '--status-page'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Deployments (the figures teams track):');
    const page = readFileSync(join(cwd, 'status', 'index.html'), 'utf8');
    expect(page).toContain('<code>dep_0001</code>');
    expect(page).toContain('<code>dep_0002</code>');
    const status = JSON.parse(readFileSync(join(cwd, 'status', 'status.json'), 'utf8')) as {
      deployments: { id: string }[];
      dora: { overall: Record<string, { deployments: number }> };
    };
    expect(status.deployments.map((d) => d.id)).toEqual(expect.arrayContaining(['dep_0001', 'dep_0002']));
    expect(status.dora.overall['7'].deployments).toBeGreaterThanOrEqual(2);
    const json = oneJsonObject(await runCli([...health, '--json'], { cwd }));
    expect(json.dora).toMatchObject({ windowsDays: [7, 30, 90] });
  });

  it("labels a day by its share of healthy runs: 2 of 3 up is partly down, as the summary's squares say", async () => {
    const s = await start();
    s.addClaw('support-bot', { chat: { mode: 'sync', reply: 'PONG' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-history-'));
    const health = ['health', '--claw-id', 'support-bot', '--probe-message', 'ping', '--history-dir', 'status'];
    for (const status of ['online', 'offline', 'online']) {
      s.claws.get('support-bot')!.status = status;
      await runCli([...health, '--status-page', ...base(s)], { cwd });
    }
    const page = readFileSync(join(cwd, 'status', 'index.html'), 'utf8');
    expect(page).toMatch(/<td>partly down \(half the runs or more up\)<\/td><td>66\.\d%<\/td><td>1 of 3<\/td>/);
    expect(page).toContain('0 mostly down');
  });

  it('a month file cut back between two runs (--history-dir): one warning naming it and the records lost; the rest kept', async () => {
    const s = await start();
    s.addClaw('support-bot', { chat: { mode: 'sync', reply: 'PONG' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-history-'));
    const health = ['health', '--claw-id', 'support-bot', '--probe-message', 'ping', '--history-dir', 'status'];
    const month = join(cwd, 'status', 'history', `${new Date().toISOString().slice(0, 7)}.ndjson`);
    const lines = (): string[] => readFileSync(month, 'utf8').split('\n').filter(Boolean);
    for (let i = 0; i < 3; i++) expect((await runCli([...health, ...base(s)], { cwd })).code).toBe(0);
    expect(lines()).toHaveLength(6);
    writeFileSync(month, `${lines().slice(0, 2).join('\n')}\n`);
    const run = await runCli([...health, ...base(s)], { cwd });
    expect(run.code, run.stderr).toBe(0);
    const said = run.stderr.split('\n').filter((l) => l.includes('was cut'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(
      `history/${new Date().toISOString().slice(0, 7)}.ndjson on 'status' was cut since this action wrote it: 6 record(s) expected, 2 read; the 4 lost are not counted.`,
    );
    expect(lines()).toHaveLength(4);
    const next = await runCli([...health, ...base(s)], { cwd });
    expect(next.stderr).not.toContain('was cut');
    expect(lines()).toHaveLength(6);
  });

  it('refuses the history for a command that keeps none, and the page for one that is not health', async () => {
    const s = await start();
    const cwd = mkdtempSync(join(tmpdir(), 'claw-history-'));
    const refusals: [string[], string][] = [
      [['wait', '--deployment-id', 'dep_1', '--history-dir', 'out'], 'not of wait'],
      [['deploy', '--claw-id', 'c1', '--history-dir', 'out', '--status-page'], "--status-page renders health's"],
    ];
    for (const [args, message] of refusals) {
      const run = await runCli([...args, ...base(s)], { cwd });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain(message);
    }
    expect(s.requests).toHaveLength(0);
  });
});
