// The status page previewed before wiring GitHub: `claw-deploy health --history-dir DIR
// --status-page` through the packed command line writes the history and the page into a local
// folder, as the action writes its branch; a second run reads the first's sealed records back.
// The day-one page: the banner coloured by state, no chart drawn from one day, plurals right.
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { base, runCli } from './cli-run.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

interface StatusJson {
  claws: { id: string; status: string; days: { runs: number; healthy: number; unhealthy: number }[] }[];
}

/** The page's parts a reader looks at first: the banner (its state and text), and each chart's place. */
function readPage(html: string): { banner: { state: string; text: string }; charts: number; empty: string[] } {
  const banner = /<p class="banner (\w+)">([^<]*)<\/p>/.exec(html);
  return {
    banner: { state: banner?.[1] ?? '', text: banner?.[2] ?? '' },
    charts: html.match(/<svg class="chart"/g)?.length ?? 0,
    empty: [...html.matchAll(/<p class="empty"[^>]*>([^<]*)<\/p>/g)].map((m) => m[1]),
  };
}

describe('the status page in a local folder', () => {
  it('health --history-dir DIR --status-page writes the history, the page, status.json and badges; a second run adds to them', async () => {
    const s = await start();
    s.addClaw('support-bot', { chat: { mode: 'sync', reply: 'PONG' } });
    s.addClaw('billing-bot', { status: 'offline' });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-page-'));
    const health = ['health', '--claw-id', '*', '--probe-message', 'ping', '--history-dir', 'status', '--status-page'];
    const first = await runCli([...health, ...base(s)], { cwd });
    expect(first.code, first.stderr).toBe(1); // billing-bot is down
    expect(first.stderr).toContain("History: kept 3 record(s) on 'status' and rendered the status page.");
    const folder = join(cwd, 'status');
    for (const file of ['index.html', 'status.json', 'badge.svg', 'badges/support-bot.svg', 'badges/billing-bot.svg'])
      expect(existsSync(join(folder, file)), file).toBe(true);
    const month = new Date().toISOString().slice(0, 7);
    expect(
      readFileSync(join(folder, 'history', `${month}.ndjson`), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(3);

    const page = readPage(readFileSync(join(folder, 'index.html'), 'utf8'));
    expect(page.banner).toEqual({ state: 'down', text: 'Down: billing-bot (1 of 2).' });
    // Day one: one day of replies is no chart yet, and says so.
    expect(page.charts).toBe(0);
    // The down Claw comes first: it has no reply at all.
    expect(page.empty).toEqual([
      'Not enough data yet: the chart starts at 2 days of replies (0 days so far).',
      'Not enough data yet: the chart starts at 2 days of replies (1 day so far).',
    ]);
    expect(readFileSync(join(folder, 'index.html'), 'utf8')).not.toMatch(/\(1 days\)|Claw\(s\)/);

    const second = await runCli([...health, ...base(s)], { cwd });
    expect(second.code).toBe(1);
    const json = JSON.parse(readFileSync(join(folder, 'status.json'), 'utf8')) as StatusJson;
    const byId = Object.fromEntries(json.claws.map((c) => [c.id, c]));
    expect(byId['support-bot']).toMatchObject({ status: 'up', days: [{ runs: 2, healthy: 2, unhealthy: 0 }] });
    expect(byId['billing-bot']).toMatchObject({ status: 'down', days: [{ runs: 2, healthy: 0, unhealthy: 2 }] });
    expect(s.requests.every((r) => !r.path.includes('github'))).toBe(true);
  });

  it('a page whose Claws are all up has a green banner, with the count in words', async () => {
    const s = await start();
    s.addClaw('support-bot', { chat: { mode: 'sync', reply: 'PONG' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-page-'));
    const run = await runCli(
      ['health', '--claw-id', 'support-bot', '--history-dir', 'out', '--status-page', ...base(s)],
      {
        cwd,
      },
    );
    expect(run.code).toBe(0);
    expect(readPage(readFileSync(join(cwd, 'out', 'index.html'), 'utf8')).banner).toEqual({
      state: 'up',
      text: 'The Claw is up.',
    });
  });

  it('refuses what a folder cannot do, before any request: the page without a folder, another command, a file', async () => {
    const s = await start();
    const cwd = mkdtempSync(join(tmpdir(), 'claw-page-'));
    writeFileSync(join(cwd, 'a-file'), '');
    const refusals: [string[], string][] = [
      [['health', '--claw-id', 'c1', '--status-page'], 'or add --history-dir DIR to render it into a local folder'],
      [
        ['health', '--claw-id', 'c1', '--history', 'claw-health'],
        '--history-dir DIR keeps the history in a local folder',
      ],
      [['wait', '--deployment-id', 'dep_1', '--history-dir', 'out'], '--history-dir keeps the history of deploy'],
      [['health', '--claw-id', 'c1', '--history-dir', 'a-file'], '--history-dir is "a-file", which is not a folder'],
    ];
    for (const [args, message] of refusals) {
      const run = await runCli([...args, ...base(s)], { cwd });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain(message);
    }
    expect(s.requests).toHaveLength(0);
  });
});

/** Every file under `dir`, as paths relative to it. */
const filesUnder = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();

const pageRun = async (ids: string[]) => {
  const s = await start();
  s.addClaw('support-bot', { chat: { mode: 'sync', reply: 'PONG' } });
  for (const id of ids) s.addClaw(id, { chat: { mode: 'sync', reply: 'PONG' } });
  const cwd = mkdtempSync(join(tmpdir(), 'claw-status-page-'));
  const run = await runCli(
    ['health', '--claw-id', '*', '--probe-message', 'ping', '--history-dir', 'status', '--status-page', ...base(s)],
    { cwd },
  );
  return { run, cwd, files: filesUnder(cwd) };
};

describe("a compromised service's Claw ids on the local status page", () => {
  it('ids holding markup, quotes and dots stay text on the page and names inside the folder', async () => {
    const hostile = ['<script>alert(1)<!--', '"onmouseover="alert(1)', '..svg', '%2e%2e%2fx', '..'.repeat(3) + 'x'];
    const { run, cwd, files } = await pageRun(hostile);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/could not write/);
    expect(files.every((f) => f.startsWith('status/'))).toBe(true);
    expect(files).toContain('status/badges/..svg.svg');
    const page = readFileSync(join(cwd, 'status', 'index.html'), 'utf8');
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('"onmouseover="');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;!--');
    const json = JSON.parse(readFileSync(join(cwd, 'status', 'status.json'), 'utf8')) as { claws: { id: string }[] };
    expect(json.claws.map((c) => c.id).sort()).toEqual([...hostile, 'support-bot'].sort());
  });

  it('a status, name and probe reply holding markup stay text on the page', async () => {
    const s = await start();
    s.addClaw('bad-status', { status: '<script>alert(1)</script>', name: '<img src=x onerror=alert(2)>' });
    s.addClaw('bad-reply', { chat: { mode: 'sync', reply: '</p><script>alert(3)</script>\u202e' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-status-page-'));
    const run = await runCli(
      ['health', '--claw-id', '*', '--probe-message', 'ping', '--history-dir', 'status', '--status-page', ...base(s)],
      { cwd },
    );
    expect(run.stderr).not.toMatch(/could not write/);
    const page = readFileSync(join(cwd, 'status', 'index.html'), 'utf8');
    expect(page).not.toMatch(/<script>alert|<img src=x|\u202e/);
    for (const f of filesUnder(join(cwd, 'status')).filter((x) => x.endsWith('.svg')))
      expect(readFileSync(join(cwd, 'status', f), 'utf8'), f).not.toMatch(/<script|<img|onerror/);
  });

  // Found, now fixed (low, a compromised service). A Claw id may hold a backslash (isValidId refuses '/', not
  // '\'), and the folder host refuses any path with one (folder-host.ts `inside`). One listed Claw
  // named `a\..\..\..\pwned` makes the whole commit fail midway: "this run's records are not kept"
  // for every Claw, though the files written before it (badges, the month's history, the page)
  // stay, half a commit. Expected: the id refused where the service's ids are read (or its badge
  // named safely), every other Claw's records kept whole.
  it("one Claw id with a backslash costs every Claw's history, and leaves half a commit", async () => {
    const { run, files } = await pageRun(['a\\..\\..\\..\\pwned']);
    expect(run.stderr).not.toMatch(/could not write to the branch 'status'/);
    expect(files).toContain('status/badges/support-bot.svg');
  });
});
