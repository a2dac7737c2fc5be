// The history branch at the sizes a hostile or careless writer reaches, through dist/index.js and
// the fake GitHub API: a 30 MB month file, 1,000 made-up Claws, a healthy line dated ahead, and
// well-formed lines that claim 99.9999% uptime. None is this action's: the run goes on, a down
// Claw gets its incident, and the page, status.json and badge.svg say it is down.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../sim/github.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { runAction } from './harness.ts';

const T = Date.parse('2026-11-20T10:00:00Z');
const HOUR = 3600_000;
const BRANCH = 'claw-health';
let sim: Simulator | undefined;
let github: FakeGitHub | undefined;
let offset = 0;

afterEach(async () => {
  await sim?.stop();
  await github?.stop();
  sim = undefined;
  github = undefined;
});

async function start(): Promise<{ sim: Simulator; github: FakeGitHub }> {
  const now = (): number => Date.now() + offset;
  sim = new Simulator({ now });
  await sim.start();
  github = new FakeGitHub({ now });
  await github.start();
  return { sim, github };
}

let runId = 300;
function run(when: number, extra: Record<string, string> = {}) {
  offset = when - Date.now();
  return runAction(
    {
      command: 'health',
      'api-key': DEMO_KEY,
      'base-url': `${sim!.url}/v1`,
      'claw-id': '*',
      'poll-interval': '100ms',
      timeout: '30s',
      incidents: 'true',
      'status-page': 'true',
      confirm: '2',
      ...extra,
    },
    { clockAt: when, env: { GITHUB_API_URL: github!.url, GITHUB_RUN_ID: String(++runId) } },
  );
}

const line = (at: number, claw: string, status = 'healthy'): string =>
  JSON.stringify({ at: new Date(at).toISOString(), run: '1', claw, status, latencyMs: 5 });

describe('a history branch that cannot be trusted', () => {
  it('a 30 MB month file is skipped with one warning naming it: the incident opens and the page is written', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-down', { status: 'offline' });
    sim.addClaw('bot-up');
    // Input controlled by: anyone with push access to the history branch.
    const one = `${line(T - HOUR, 'bot-down')}\n`;
    const huge = one.repeat(Math.ceil((30 * 1024 * 1024) / one.length));
    github.repo.push(BRANCH, { 'history/2026-11.ndjson': huge });
    const first = await run(T);
    const second = await run(T + HOUR);
    for (const done of [first, second]) {
      expect(done.exitCode).toBe(1);
      expect(done.warnings).toEqual([
        "History: skipped history/2026-11.ndjson on 'claw-health': 30.0 MiB, over the 5 MiB this action ever writes to a file. It is left as it is; the run goes on without it.",
      ]);
    }
    // confirm: 2 — two failing runs in a row, read from the history the action wrote beside it.
    expect(github.repo.issues.map((i) => [i.title, i.state])).toEqual([['bot-down is down', 'open']]);
    expect(github.repo.file(BRANCH, 'index.html')).toContain('Down: bot-down (1 of 2).');
    expect(github.repo.file(BRANCH, 'history/2026-11.ndjson')).toBe(huge);
  }, 60_000);

  it('1,000 forged Claws, a healthy line 59 minutes ahead and 99.9999% uptime lines: the down Claw is down everywhere and gets its incident', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-down', { status: 'offline' });
    // Input controlled by: anyone with push access to the history branch.
    const forged = Array.from({ length: 1000 }, (_, i) => line(T - HOUR, `forged-${String(i).padStart(4, '0')}`));
    const uptime = Array.from({ length: 5000 }, (_, i) => line(T - 2 * HOUR - i * 60_000, 'bot-down'));
    const ahead = line(T + HOUR + 59 * 60_000, 'bot-down');
    github.repo.push(BRANCH, { 'history/2026-11.ndjson': [...forged, ...uptime, ahead].join('\n') + '\n' });
    const first = await run(T);
    expect(first.warnings).toEqual([
      "History: ignored 6001 line(s) on 'claw-health': 6001 not sealed by this action. Only lines this action wrote count.",
    ]);
    await run(T + HOUR);
    expect(github.repo.issues.map((i) => [i.title, i.state])).toEqual([['bot-down is down', 'open']]);
    const html = github.repo.file(BRANCH, 'index.html')!;
    expect(html).toContain('<h2 id="claw-1">bot-down</h2>');
    expect(html).toContain('<span class="state unhealthy">down</span>');
    expect(html).not.toContain('forged-');
    expect(html).not.toContain('99.99');
    const status = JSON.parse(github.repo.file(BRANCH, 'status.json')!) as {
      claws: { id: string; status: string; uptime: Record<string, number | null> }[];
    };
    expect(status.claws).toEqual([
      expect.objectContaining({ id: 'bot-down', status: 'down', uptime: expect.objectContaining({ '24h': 0 }) }),
    ]);
    expect(github.repo.file(BRANCH, 'badge.svg')).toContain('1 of 1 down');
    expect(github.repo.files(BRANCH).filter((p) => p.startsWith('badges/'))).toEqual(['badges/bot-down.svg']);
  }, 60_000);
});
