// Health over time against push access and a collaborator, through dist/index.js: a genuine
// healthy line copied 2,000 times counts once; a sealed state pasted into another incident is
// ignored with a warning, each Claw keeping its own issue; Claw ids that are the key struck through
// or fullwidth reach no issue, history line, page, badge path or log.
// (health-trust.e2e.test.ts holds the other lines and issues this action did not write.)
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../sim/server.ts';
import type { ActionRun } from './harness.ts';
import { HealthWorld } from './health-world.ts';
import { showsKey, sinksOf } from './key-sinks.ts';

describe('health over time: push access and a collaborator', () => {
  const T = Date.parse('2026-11-20T10:00:00Z');
  const HOUR = 3600_000;
  const world = new HealthWorld({ timeout: '20s', 'status-page': 'true', confirm: '1' }, {}, 900);
  afterEach(() => world.stop());
  const startHealth = () => world.start();
  const run = (when: number, extra: Record<string, string> = {}): Promise<ActionRun> => world.run(when, extra);

  it("a genuine healthy line copied 2,000 times counts once: the page shows the Claw's real uptime, one warning", async () => {
    const { sim, github } = await startHealth();
    const bot = sim.addClaw('bot');
    await run(T - 3 * HOUR);
    bot.status = 'offline';
    await run(T - 2 * HOUR);
    // Input controlled by: anyone with push access. The line is this action's own, its seal intact.
    const path = 'history/2026-11.ndjson';
    const text = github.repo.file('claw-health', path)!;
    const healthy = text.split('\n').find((l) => l.includes('"claw":"bot"') && l.includes('"status":"healthy"'))!;
    expect(healthy).toBeDefined();
    github.repo.push('claw-health', { [path]: text + `${healthy}\n`.repeat(2000) });
    const done = await run(T - HOUR);
    expect(done.warnings).toEqual([
      "History: ignored 2000 line(s) on 'claw-health': 2000 repeating a line already read. Only lines this action wrote count.",
    ]);
    const status = JSON.parse(github.repo.file('claw-health', 'status.json')!) as {
      claws: { id: string; uptime: Record<string, number>; days: { runs: number; healthy: number }[] }[];
    };
    // Before: 2,001 healthy of 2,003 runs, 99.9% up. Now: 1 of 3.
    expect(status.claws[0].days.at(-1)).toMatchObject({ runs: 3, healthy: 1 });
    expect(status.claws[0].uptime['24h']).toBeLessThan(0.5);
    expect(github.repo.file('claw-health', 'index.html')).not.toContain('99.9');
  });

  it("a sealed state pasted into another incident (a collaborator's edit) is ignored with a warning: each Claw keeps its own issue; long ids sharing a label keep theirs", async () => {
    const { sim, github } = await startHealth();
    const long = 'a'.repeat(60);
    for (const id of ['bot-a', 'bot-b', `${long}-one`, `${long}-two`]) sim.addClaw(id, { status: 'offline' });
    await run(T - 2 * HOUR);
    expect(github.repo.issues).toHaveLength(4);
    const a = github.repo.issues.find((i) => i.title === 'bot-a is down')!;
    const b = github.repo.issues.find((i) => i.title === 'bot-b is down')!;
    // Input controlled by: a collaborator (may edit any issue). Before, the next run closed bot-a's
    // own issue as "a duplicate" of bot-b's, which then stood for bot-a on the page.
    b.body = a.body;
    const second = await run(T - HOUR);
    const third = await run(T);
    for (const done of [second, third]) {
      expect(done.warnings).toEqual([
        `Incidents: ignored https://github.com/octo/claws/issues/${b.number}: its state is #${a.number}'s, whose labels name its subject (a state copied from one issue into another). It is never edited.`,
      ]);
    }
    expect(a.state).toBe('open');
    expect(b.body).toBe(a.body);
    const open = github.repo.issues.filter((i) => i.state === 'open').map((i) => i.title);
    expect(open.sort()).toEqual(
      ['bot-a is down', 'bot-b is down', 'bot-b is down', `${long}-one is down`, `${long}-two is down`].sort(),
    );
    const status = JSON.parse(github.repo.file('claw-health', 'status.json')!) as {
      claws: { id: string; incident: { number: number } | null }[];
    };
    const incidentOf = (id: string) => status.claws.find((c) => c.id === id)!.incident!.number;
    expect(incidentOf('bot-a')).toBe(a.number);
    expect(incidentOf('bot-b')).not.toBe(b.number);
    expect(new Set(status.claws.map((c) => c.incident?.number)).size).toBe(4);
  });

  it('Claw ids that are the key struck through or fullwidth reach no issue, label, history line, page, badge path or log', async () => {
    const { sim, github } = await startHealth();
    const struck = [...DEMO_KEY].map((c) => `${c}\u0336`).join('');
    const wide = [...DEMO_KEY].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('');
    for (const id of [struck, wide, 'claw-plain']) sim.addClaw(id, { status: 'offline' });
    const done = await run(T);
    expect(done.exitCode).toBe(1);
    const paths = github.repo.files('claw-health');
    const sinks = {
      ...sinksOf(done, []),
      issues: JSON.stringify(github.repo.issues),
      paths: JSON.stringify(paths),
      files: JSON.stringify(paths.map((p) => github.repo.file('claw-health', p))),
    };
    for (const [name, text] of Object.entries(sinks)) expect(showsKey(text), name).toBeUndefined();
    expect(github.repo.file('claw-health', 'index.html')).toContain('claw-plain');
  });
});
