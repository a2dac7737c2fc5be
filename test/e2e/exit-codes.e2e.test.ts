// The exit code table, as a user meets it: every command through the packed command line with a
// refused key, an unknown Claw, a bad flag, a failed outcome and a cancel, each exit compared with
// the table docs/cli.md publishes (which is the code's own table, src/cli/exit-codes.ts).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_TABLE } from '../../src/cli/exit-codes.ts';
import type { Simulator } from '../sim/server.ts';
import { base, oneJsonObject, runCli } from './cli-run.ts';
import { ROOT } from './harness.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest({ rollbackForm: 'new-deployment' });

/** docs/cli.md's exit code table: each row's codes and meaning, as written. */
function publishedTable(): [string, string][] {
  const doc = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');
  const table = doc.slice(doc.indexOf('| exit code |'));
  return table
    .split('\n')
    .slice(2)
    .filter((line) => line.startsWith('|'))
    .map(
      (line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()) as [string, string],
    );
}

/** The code docs/cli.md gives for a case: the row whose meaning names it (a signal: its place in the pair). */
function publishedCode(meaningHas: string, signal?: 'SIGINT' | 'SIGTERM'): number {
  const row = publishedTable().find(([, meaning]) => meaning.includes(meaningHas));
  if (!row) throw new Error(`docs/cli.md's exit codes name no "${meaningHas}"`);
  const codes = row[0].split('/').map((c) => Number(c.trim()));
  return signal === 'SIGTERM' ? codes[1] : codes[0];
}

type Case = 'a refused key' | 'an unknown Claw' | 'bad input' | 'the outcome failed' | 'SIGINT';
/**
 * Each command's run for each case, where the case can happen: the flags, the log line to
 * interrupt at, and the words of the table's row when they are not the case's own.
 */
type Runs = Partial<Record<Case, { args: string[]; interruptAt?: RegExp; row?: string }>>;

function world(s: Simulator, cwd: string): Record<string, Runs> {
  s.addClaw('live', { plan: [['live']], chat: { mode: 'sync', reply: 'pong' } });
  s.addClaw('crash', { plan: [['pending', 200], ['crashed']] });
  s.addClaw('slow', { plan: [['pending', 600_000], ['live']], chat: { mode: 'never' } });
  s.addClaw('mute', { plan: [['live']], chat: { mode: 'never' } });
  s.addClaw('dull', { plan: [['live']], chat: { mode: 'sync', reply: 'nothing to see' } });
  s.addClaw('stuck', { plan: [['live']], rollbackPlan: [['rolling_back', 600_000], ['live']] });
  s.addClaw('broken', { plan: [['live']], rollbackPlan: [['rolling_back', 200], ['failed']] });
  const live = s.addDeployment('live', [['live']]);
  const crashed = s.addDeployment('crash', [['crashed']]);
  const pending = s.addDeployment('slow', [['pending', 600_000], ['live']]);
  s.addDeployment('stuck', [['live']]);
  s.addDeployment('broken', [['live']]);
  writeFileSync(
    join(cwd, 'checks.yml'),
    'checks:\n  - {name: pong, send: ping, assert: [{type: contains, value: pong}]}\n',
  );
  writeFileSync(join(cwd, 'claws.yml'), 'claws:\n  live:\n    config: {personality: {tone: friendly}}\n');
  const checks = ['--checks', 'checks.yml'];
  const manifest = ['--manifest', 'claws.yml'];
  const bad = ['--bogus', 'x'];
  const probe = ['--probe-message', 'ping', '--probe-expect', 'pong'];
  const waiting = /in progress|rolling_back/;
  /** A reply awaited: the task the message started is polled. */
  const polled = /GET \S+\/tasks\//;
  return {
    deploy: {
      'a refused key': { args: ['deploy', '--claw-id', 'live'] },
      'an unknown Claw': { args: ['deploy', '--claw-id', 'nope'] },
      'bad input': { args: ['deploy', '--claw-id', 'live', ...bad] },
      'the outcome failed': { args: ['deploy', '--claw-id', 'crash'] },
      SIGINT: { args: ['deploy', '--claw-id', 'slow'], interruptAt: waiting },
    },
    wait: {
      'a refused key': { args: ['wait', '--deployment-id', live.id] },
      // wait names a deployment, not a Claw: one that does not exist is the same "could not act".
      'an unknown Claw': { args: ['wait', '--deployment-id', 'dep_nope'] },
      'bad input': { args: ['wait', '--deployment-id', live.id, ...bad] },
      'the outcome failed': { args: ['wait', '--deployment-id', crashed.id] },
      SIGINT: { args: ['wait', '--deployment-id', pending.id], interruptAt: waiting },
    },
    rollback: {
      'a refused key': { args: ['rollback', '--claw-id', 'live'] },
      'an unknown Claw': { args: ['rollback', '--claw-id', 'nope'] },
      'bad input': { args: ['rollback', '--claw-id', 'live', ...bad] },
      'the outcome failed': { args: ['rollback', '--claw-id', 'broken'] },
      SIGINT: { args: ['rollback', '--claw-id', 'stuck'], interruptAt: waiting },
    },
    health: {
      'a refused key': { args: ['health', '--claw-id', 'live'] },
      'bad input': { args: ['health', '--claw-id', 'live', ...bad] },
      // A Claw not found is health's verdict (it is down), as a deleted Claw's incident says.
      'an unknown Claw': { args: ['health', '--claw-id', 'nope'], row: 'a Claw not found' },
      'the outcome failed': { args: ['health', '--claw-id', 'dull', ...probe] },
      SIGINT: { args: ['health', '--claw-id', 'mute', ...probe, '--verbose'], interruptAt: polled },
    },
    check: {
      'a refused key': { args: ['check', '--claw-id', 'live', ...checks] },
      'an unknown Claw': { args: ['check', '--claw-id', 'nope', ...checks] },
      'bad input': { args: ['check', '--claw-id', 'live', ...checks, ...bad] },
      'the outcome failed': { args: ['check', '--claw-id', 'dull', ...checks] },
      SIGINT: { args: ['check', '--claw-id', 'mute', ...checks, '--verbose'], interruptAt: polled },
    },
    plan: {
      'a refused key': { args: ['plan', ...manifest] },
      'bad input': { args: ['plan', ...manifest, ...bad] },
    },
    drift: {
      'a refused key': { args: ['drift', ...manifest] },
      'bad input': { args: ['drift', ...manifest, ...bad] },
      'the outcome failed': { args: ['drift', ...manifest] },
    },
    apply: {
      'a refused key': { args: ['apply', ...manifest, '--auto-approve'] },
      'bad input': { args: ['apply', ...manifest, '--auto-approve', ...bad] },
    },
    preview: { 'bad input': { args: ['preview', ...manifest] } },
  };
}

describe('exit codes', () => {
  it("docs/cli.md's table is the code's table, row for row", () => {
    expect(publishedTable()).toEqual(EXIT_TABLE.map(([codes, meaning]) => [codes, meaning]));
  });

  const commands = ['deploy', 'wait', 'rollback', 'health', 'check', 'plan', 'drift', 'apply', 'preview'];
  it.each(commands)('%s, through the packed command line, exits as docs/cli.md says for each case', async (command) => {
    const s = await start();
    const cwd = mkdtempSync(join(tmpdir(), 'claw-exit-'));
    const got: string[] = [];
    const wanted: string[] = [];
    for (const [name, run] of Object.entries(world(s, cwd)[command]) as [Case, NonNullable<Runs[Case]>][]) {
      const env = name === 'a refused key' ? { CLAW_DEPLOY_API_KEY: 'not-the-key' } : undefined;
      const ran = await runCli([...run.args, '--json', ...base(s)], {
        cwd,
        env,
        onLog: (line, child) => void (run.interruptAt?.test(line) && child.kill('SIGINT')),
      });
      oneJsonObject(ran);
      got.push(`${command} · ${name}: ${String(ran.code)}`);
      wanted.push(`${command} · ${name}: ${publishedCode(run.row ?? name)}`);
    }
    expect(got).toEqual(wanted);
  });
});
