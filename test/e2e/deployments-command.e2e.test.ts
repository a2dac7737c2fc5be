// `claw-deploy deployments` (and the action's `command: deployments`): a Claw's recent deployments
// from the service, newest first, read page by page as the service pages and bounded; joined with
// this tool's records (the commit, the verdict, the run) where the history holds them. What the
// service sends is untrusted: a strategy with terminal controls and Markdown reaches neither raw.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentLine } from '../../src/health/deployment-log.ts';
import { sealKey } from '../../src/shared/seal.ts';
import { DEMO_KEY, type Simulator } from '../sim/server.ts';
import { runAction } from './harness.ts';
import { base, oneJsonObject, runCli } from './cli-run.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const HOSTILE = '\u001b[31mred|<img src=x>';
const COMMIT = 'a'.repeat(7) + 'b'.repeat(33);

/** c1's three deployments (the middle one hostile) among c2's two, oldest first; two to a page. */
function seeded(sim: Simulator): string[] {
  const ids: string[] = [];
  for (const [claw, ago] of [
    ['c1', 50_000],
    ['c2', 40_000],
    ['c1', 30_000],
    ['c2', 20_000],
    ['c1', 10_000],
  ] as const) {
    const d = sim.addPastDeployment(claw, 1000, ago);
    d.strategy = ago === 30_000 ? HOSTILE : 'blue-green';
    if (claw === 'c1') ids.push(d.id);
  }
  return ids.reverse();
}

describe('claw-deploy deployments', () => {
  it("lists a Claw's deployments newest first, paged, with this tool's record of one of them", async () => {
    const sim = await start({ pageSize: 2, paging: 'link-header' });
    sim.addClaw('c1');
    sim.addClaw('c2');
    const [newest, middle, oldest] = seeded(sim);
    // The folder health --history-dir keeps: one sealed record, for the middle deployment.
    const cwd = mkdtempSync(join(tmpdir(), 'claw-deployments-'));
    const at = Date.now() - 25_000;
    mkdirSync(join(cwd, 'status', 'history', 'deployments'), { recursive: true });
    const record = {
      at,
      claw: 'c1',
      deployment: middle,
      outcome: 'rolled-back' as const,
      run: '4242',
      commit: COMMIT,
      behaviour: 'regressed' as const,
    };
    writeFileSync(
      join(cwd, 'status', 'history', 'deployments', `${new Date(at).toISOString().slice(0, 7)}.ndjson`),
      `${deploymentLine(record, sealKey(DEMO_KEY, ''))}\n`,
    );
    const args = ['deployments', '--claw-id', 'c1', '--history-dir', 'status', ...base(sim)];

    const text = await runCli(args, { cwd, env: { COLUMNS: '200' } });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Claw c1: 3 recent deployment(s), newest first.');
    const rows = text.stdout.split('\n').filter((l) => /^ {2}dep_/.test(l));
    expect(rows.map((l) => l.trim().split(/\s+/)[0])).toEqual([newest, middle, oldest]);
    // The escape is replaced (U+FFFD) where it is read: the terminal gets no control.
    expect(rows[1]).toMatch(/succeeded +\ufffd\[31mred\|<img src=x> +aaaaaaa +rolled-back, behaviour regressed +4242$/);
    expect(rows[0]).toMatch(/succeeded +blue-green +— +— +—$/);
    expect(text.stdout).not.toContain('\u001b');
    // Three pages of two: every page of the list read, as the service pages it.
    expect(sim.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0] === '/v1/deployments')).toHaveLength(
      3,
    );

    const json = oneJsonObject(await runCli([...args, '--json'], { cwd }));
    const listed = json.deployments as Record<string, unknown>[];
    expect(listed.map((d) => d.id)).toEqual([newest, middle, oldest]);
    expect(listed[1]).toMatchObject({
      status: 'succeeded',
      commit: COMMIT,
      outcome: 'rolled-back',
      behaviour: 'regressed',
      run: '4242',
    });
    expect(listed[1].strategy).toBe('\ufffd[31mred|<img src=x>');
    expect(Date.parse(String(listed[0].at))).toBeGreaterThan(Date.parse(String(listed[2].at)));
  });

  it('stops at the newest 20 and says older ones are not listed; an unknown Claw is an error', async () => {
    const sim = await start({ pageSize: 5, paging: 'link-header' });
    sim.addClaw('c1');
    for (let i = 30; i > 0; i--) sim.addPastDeployment('c1', 1000, i * 1000);
    const json = oneJsonObject(await runCli(['deployments', '--claw-id', 'c1', '--json', ...base(sim)]));
    expect(json.deployments).toHaveLength(20);
    expect(json.message).toContain('read up to the newest 20, within 10 pages: older ones, if any, are not listed');
    // Four pages of five hold the newest 20: the fifth is never asked for.
    expect(sim.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0] === '/v1/deployments')).toHaveLength(
      4,
    );

    const unknown = await runCli(['deployments', '--claw-id', 'nope', '--json', ...base(sim)]);
    expect(unknown.code).toBe(3);
  });

  it('the action: command deployments sets the deployments output and a summary table, escaped', async () => {
    const sim = await start();
    sim.addClaw('c1');
    sim.addClaw('c2');
    const [newest, middle, oldest] = seeded(sim);
    const run = await runAction(inputsFor(sim, { command: 'deployments' }));
    expect(run.exitCode).toBe(0);
    expect(run.outputs.outcome).toBe('succeeded');
    const listed = JSON.parse(run.outputs.deployments) as { id: string; strategy: string }[];
    expect(listed.map((d) => d.id)).toEqual([newest, middle, oldest]);
    expect(run.summary).toContain('#### Deployments of `c1`, newest first');
    expect(run.summary).not.toContain('<img');
    const row = run.summary.split('\n').find((l) => l.includes(middle))!;
    expect(row.split(/(?<!\\)\|/)).toHaveLength(9);
    expect(run.summary).toContain('set `history` to read them');
  });
});
