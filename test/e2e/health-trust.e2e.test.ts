// Health over time under attack, through dist/index.js: issues carrying our marker that another
// author wrote or that were edited, a Claw whose reply holds the key, a history branch with forged
// lines, and a token without the permissions. Each is ignored, redacted or a warning; never a
// crash, never an edit of someone else's issue, never the health report lost.
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../sim/server.ts';
import { WORKFLOW_TOKEN } from './harness.ts';
import { HealthWorld } from './health-world.ts';

const T = Date.parse('2026-11-20T10:00:00Z');
const HOUR = 3600_000;
const world = new HealthWorld({ timeout: '20s', 'status-page': 'true' });
afterEach(() => world.stop());
const start = () => world.start();
const run = (when: number, extra: Record<string, string> = {}) => world.run(when, extra);

const marker =
  '<!-- claw-deploy incident: eyJ2IjoxLCJzdWJqZWN0Ijp7ImNsYXciOiJib3QtYSJ9fQ.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA -->';

describe('health over time: only what this action wrote is trusted', () => {
  it("never adopts or edits another author's issue, nor one whose seal was edited: one warning each, its own issue instead", async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a', { status: 'offline' });
    const base = { state: 'open' as const, labels: ['claw-incident', 'bot-a'], assignees: [], closed_at: null };
    const time = new Date(T - HOUR).toISOString();
    github.repo.issues.push(
      {
        ...base,
        number: 7,
        title: 'bot-a is down',
        body: `${marker}\nby mallory`,
        author: 'mallory',
        created_at: time,
        updated_at: time,
      },
      {
        ...base,
        number: 8,
        title: 'bot-a is down',
        body: `${marker}\nedited`,
        author: 'github-actions[bot]',
        created_at: time,
        updated_at: time,
      },
    );
    await run(T, { confirm: '1' });
    const second = await run(T + HOUR, { confirm: '1' });
    expect(second.warnings).toEqual([
      'Incidents: ignored https://github.com/octo/claws/issues/8: the seal does not match (the state was edited, or sealed with another key: set state-secret before rotating the API key). It is never edited.',
      "Incidents: ignored https://github.com/octo/claws/issues/7: it was not written by this action's identity. It is never edited.",
    ]);
    const [mallory, edited, own] = github.repo.issues;
    expect(mallory).toMatchObject({ body: `${marker}\nby mallory`, state: 'open', updated_at: time });
    expect(edited).toMatchObject({ body: `${marker}\nedited`, updated_at: time });
    expect(github.comments.get(7)).toBeUndefined();
    expect(own).toMatchObject({ title: 'bot-a is down', author: 'github-actions[bot]', state: 'open' });
    expect(github.repo.issues).toHaveLength(3); // the second run found its own issue again
  });

  it("a reply holding the run's GitHub token reaches the issue as ***", async () => {
    const { sim, github } = await start();
    const encoded = Buffer.from(WORKFLOW_TOKEN).toString('base64');
    sim.addClaw('bot-a', { chat: { mode: 'sync', reply: `my token is ${WORKFLOW_TOKEN} or ${encoded}` } });
    const done = await run(T, { confirm: '1', 'probe-message': 'ping', 'probe-expect': '^pong' });
    expect(done.exitCode).toBe(1);
    const [issue] = github.repo.issues;
    expect(issue.title).toBe('bot-a fails its probe');
    // Redacted at the service's door (the run's one redactor knows the token), then escaped as code.
    expect(issue.body).toContain('**Reply:** <code>my token is &#42;&#42;&#42; or &#42;&#42;&#42;</code>');
    const everything = JSON.stringify([github.repo.issues, [...github.repo.blobs.values()]]);
    expect(everything).not.toContain(WORKFLOW_TOKEN);
    expect(everything).not.toContain(encoded);
  });

  it('a Claw id that decodes to the key (base64, percent) reaches no issue title, label, history line or badge path', async () => {
    const { sim, github } = await start();
    // Input controlled by: a compromised service. Each id is the key in a form the redactor knows,
    // with one character written as a JSON `\\u` escape: the raw body shows no form of the key,
    // the decoded value is one.
    const base64 = Buffer.from(DEMO_KEY).toString('base64').replace(/=+$/, '');
    const percent = DEMO_KEY.replace(/-/g, '%2D');
    const ids = [base64, percent];
    for (const id of ids) sim.addClaw(id, { status: 'offline' });
    const auth = { authorization: `Bearer ${DEMO_KEY}` };
    const escaped = (text: string): string =>
      ids.reduce((t, id) => t.split(id).join(id.replace(/[c%]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)), text);
    const list = await (await fetch(`${sim.url}/v1/claws`, { headers: auth })).text();
    sim.fault({ kind: 'error', method: 'GET', path: /^\/claws(\?|$)/, status: 200, text: escaped(list), times: 99 });
    for (const id of ids) {
      const one = await (await fetch(`${sim.url}/v1/claws/${encodeURIComponent(id)}`, { headers: auth })).text();
      const path = new RegExp(`^/claws/${encodeURIComponent(encodeURIComponent(id)).replace(/%/g, '%(25)*')}$`);
      sim.fault({ kind: 'error', method: 'GET', path, status: 200, text: escaped(one), times: 99 });
    }
    const done = await run(T, { confirm: '1' });
    expect(done.exitCode).toBe(1);
    expect(github.repo.issues).toHaveLength(2);
    const everything = JSON.stringify([
      github.repo.issues,
      github.repo.files('claw-health'),
      github.repo.files('claw-health').map((path) => github.repo.file('claw-health', path)),
      done.stdout,
      done.summary,
      done.outputs,
    ]);
    for (const id of ids) expect(everything).not.toContain(id);
  });

  it('skips forged history lines with one warning, and escapes a Claw id full of markup on the page', async () => {
    const { sim, github } = await start();
    sim.addClaw('claw<img>');
    const at = new Date(T - HOUR).toISOString();
    github.repo.push('claw-health', {
      'history/2026-11.ndjson': [
        JSON.stringify({ at, run: '1', claw: '../../etc', status: 'healthy' }),
        JSON.stringify({ at, run: '1', claw: 'bot-z', status: 'healthy', latencyMs: 1e12 }),
        'not json at all',
        JSON.stringify({ at, run: '1', claw: 'claw<img>', status: 'unhealthy', latencyMs: 500 }),
      ].join('\n'),
    });
    const done = await run(T);
    expect(done.exitCode).toBe(0);
    expect(done.warnings).toEqual([
      "History: ignored 4 line(s) on 'claw-health': 4 not sealed by this action. Only lines this action wrote count.",
    ]);
    const file = github.repo.file('claw-health', 'history/2026-11.ndjson')!;
    expect(file.startsWith(JSON.stringify({ at, run: '1', claw: '../../etc', status: 'healthy' }))).toBe(true);
    const html = github.repo.file('claw-health', 'index.html')!;
    expect(html).toContain('<h2 id="claw-1">claw&lt;img&gt;</h2>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('bot-z');
    expect(github.repo.files('claw-health')).not.toContain('badges/../../etc.svg');
  });

  it('without contents: write or issues: write: one warning naming the permission, and health reported as ever', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a');
    github.repo.gitWriteStatus = 403;
    github.repo.issueStatus = 403;
    const done = await run(T);
    expect(done.exitCode).toBe(0);
    expect(done.outputs.healthy).toBe('true');
    expect(done.warnings).toEqual([
      "Incidents: could not read the issues (403: give the workflow 'permissions: issues: write' (and 'github-token' that has it)); no incident was opened or closed in this run.",
      "History: could not write to the branch 'claw-health' (403: give the workflow 'permissions: contents: write' (and 'github-token' that has it)); this run's records are not kept. Health is reported as usual.",
    ]);
  });

  it('history lines dated years ahead (push access) neither keep a down Claw out of an incident nor show it up on the page', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a', { status: 'offline' });
    // Input controlled by: anyone with push access to the history branch.
    const forged = ['01', '02', '03'].map((day) =>
      JSON.stringify({ at: `2199-12-${day}T00:00:00.000Z`, run: '1', claw: 'bot-a', status: 'healthy' }),
    );
    github.repo.push('claw-health', { 'history/2199-12.ndjson': `${forged.join('\n')}\n` });
    const first = await run(T);
    expect(first.warnings).toEqual([
      "History: ignored 3 line(s) on 'claw-health': 3 not sealed by this action. Only lines this action wrote count.",
    ]);
    await run(T + HOUR);
    expect(github.repo.issues.map((i) => [i.title, i.state])).toEqual([['bot-a is down', 'open']]);
    const html = github.repo.file('claw-health', 'index.html')!;
    expect(html).toContain('<span class="state unhealthy">down</span>');
    // Skipped, never rewritten.
    expect(github.repo.file('claw-health', 'history/2199-12.ndjson')).toBe(`${forged.join('\n')}\n`);
  });

  it("10,000 Claws on the history branch (push access): none is this action's, the page shows the checked Claw", async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a');
    // Input controlled by: anyone with push access to the history branch.
    const at = new Date(T - HOUR).toISOString();
    const lines = Array.from({ length: 10_000 }, (_, i) =>
      JSON.stringify({ at, run: '1', claw: `c${i}`, status: 'healthy', latencyMs: 5 }),
    );
    github.repo.push('claw-health', { 'history/2026-11.ndjson': `${lines.join('\n')}\n` });
    const done = await run(T);
    expect(done.exitCode).toBe(0);
    const html = github.repo.file('claw-health', 'index.html')!;
    const json = github.repo.file('claw-health', 'status.json')!;
    expect(Buffer.byteLength(html)).toBeLessThan(900 * 1024);
    expect(Buffer.byteLength(json)).toBeLessThan(900 * 1024);
    expect(github.repo.files('claw-health').filter((p) => p.startsWith('badges/')).length).toBeLessThanOrEqual(1000);
    expect(html).toContain('<h2 id="claw-1">bot-a</h2>');
    const status = JSON.parse(json) as { claws: { id: string }[]; clawsLeftOut?: number };
    expect(status.claws.map((c) => c.id)).toEqual(['bot-a']);
    expect(status.clawsLeftOut).toBeUndefined();
  });

  it('two runs at once both open the incident: the next run closes the duplicate, and one issue goes on', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a', { status: 'offline' });
    await run(T, { confirm: '2' });
    // Input controlled by: the schedule (a run that overlaps the next one, without `concurrency`).
    github.repo.holdIssueLists(2);
    await Promise.all([run(T + HOUR, { confirm: '2' }), run(T + HOUR, { confirm: '2' })]);
    expect(github.repo.issues.filter((i) => i.state === 'open')).toHaveLength(2);
    const third = await run(T + 2 * HOUR, { confirm: '2' });
    expect(third.exitCode).toBe(1);
    const open = github.repo.issues.filter((i) => i.state === 'open');
    expect(open).toHaveLength(1);
    const closed = github.repo.issues.find((i) => i.state === 'closed')!;
    expect(github.comments.get(closed.number)?.map((c) => c.body)).toEqual([
      expect.stringMatching(
        new RegExp(`^Closed as a duplicate of #${open[0].number}: two runs opened this incident at once`),
      ),
    ]);
    // Recovered: the one left is closed as ever; nothing stays open.
    sim.claws.get('bot-a')!.status = 'online';
    await run(T + 3 * HOUR, { confirm: '2' });
    await run(T + 4 * HOUR, { confirm: '2' });
    expect(github.repo.issues.map((i) => i.state)).toEqual(['closed', 'closed']);
  });

  it("a 3 MB line in this month's history file (push access) is never sent back: the run's records start a new part", async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a');
    // Input controlled by: anyone with push access to the history branch.
    const huge = JSON.stringify({
      at: new Date(T - HOUR).toISOString(),
      run: '1',
      claw: 'bot-a',
      status: 'healthy',
      pad: 'x'.repeat(3_000_000),
    });
    github.repo.push('claw-health', { 'history/2026-11.ndjson': huge });
    const done = await run(T);
    expect(done.exitCode).toBe(0);
    const trees = github.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/git/trees'));
    expect(trees.map((r) => JSON.stringify(r.body).length).every((n) => n < 1024 * 1024)).toBe(true);
    expect(github.repo.file('claw-health', 'history/2026-11.ndjson')).toBe(huge);
    expect(github.repo.file('claw-health', 'history/2026-11.2.ndjson')).toContain('"claw":"bot-a"');
  });

  it('a GitHub App’s installation token: its own incident issue is found again, never a new one per run', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a', { status: 'offline' });
    // Input controlled by: the workflow (a token from a GitHub App).
    github.apps.set('ghs_app-installation-token-0123456789', 'claw-health[bot]');
    const app = { 'github-token': 'ghs_app-installation-token-0123456789', confirm: '1', recover: '1' };
    for (let i = 0; i < 3; i++) expect((await run(T + i * HOUR, app)).warnings).toEqual([]);
    expect(github.repo.issues.map((i) => [i.author, i.state])).toEqual([['claw-health[bot]', 'open']]);
    sim.claws.get('bot-a')!.status = 'online';
    await run(T + 3 * HOUR, app);
    expect(github.repo.issues.map((i) => i.state)).toEqual(['closed']);
  });
});

const line = (at: number, claw: string, status = 'healthy'): string =>
  JSON.stringify({ at: new Date(at).toISOString(), run: '1', claw, status, latencyMs: 5 });

// At the sizes a hostile or careless writer reaches: a 30 MB month file, 1,000 made-up Claws, a
// healthy line dated ahead, and well-formed lines that claim 99.9999% uptime. None is this action's:
// the run goes on, a down Claw gets its incident, and the page, status.json and badge.svg say so.
describe('a history branch that cannot be trusted, at size', () => {
  it('a 30 MB month file is skipped with one warning naming it: the incident opens and the page is written', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-down', { status: 'offline' });
    sim.addClaw('bot-up');
    // Input controlled by: anyone with push access to the history branch.
    const one = `${line(T - HOUR, 'bot-down')}\n`;
    const huge = one.repeat(Math.ceil((30 * 1024 * 1024) / one.length));
    github.repo.push('claw-health', { 'history/2026-11.ndjson': huge });
    const first = await run(T, { confirm: '2' });
    const second = await run(T + HOUR, { confirm: '2' });
    for (const done of [first, second]) expect(done.exitCode).toBe(1);
    // The first run, on a branch without an index of the action's parts, reads by names and skips it
    // as too large; the next reads the parts its index names, and names the file as not among them.
    expect(first.warnings).toEqual([
      "History: skipped history/2026-11.ndjson on 'claw-health': 30.0 MiB, over the 5 MiB this action ever writes to a file. It is left as it is; the run goes on without it.",
    ]);
    expect(second.warnings).toEqual([
      `History: skipped 1 file(s) on 'claw-health' (${Buffer.byteLength(huge)} bytes) that are not among this action's parts: history/2026-11.ndjson. Its own parts are named by its sealed index and read first; only lines it sealed count.`,
    ]);
    // confirm: 2 — two failing runs in a row, read from the history the action wrote beside it.
    expect(github.repo.issues.map((i) => [i.title, i.state])).toEqual([['bot-down is down', 'open']]);
    expect(github.repo.file('claw-health', 'index.html')).toContain('Down: bot-down (1 of 2).');
    expect(github.repo.file('claw-health', 'history/2026-11.ndjson')).toBe(huge);
  }, 60_000);

  it('1,000 forged Claws, a healthy line 59 minutes ahead and 99.9999% uptime lines: the down Claw is down everywhere and gets its incident', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-down', { status: 'offline' });
    // Input controlled by: anyone with push access to the history branch.
    const forged = Array.from({ length: 1000 }, (_, i) => line(T - HOUR, `forged-${String(i).padStart(4, '0')}`));
    const uptime = Array.from({ length: 5000 }, (_, i) => line(T - 2 * HOUR - i * 60_000, 'bot-down'));
    const ahead = line(T + HOUR + 59 * 60_000, 'bot-down');
    github.repo.push('claw-health', { 'history/2026-11.ndjson': [...forged, ...uptime, ahead].join('\n') + '\n' });
    const first = await run(T, { confirm: '2' });
    expect(first.warnings).toEqual([
      "History: ignored 6001 line(s) on 'claw-health': 6001 not sealed by this action. Only lines this action wrote count.",
    ]);
    await run(T + HOUR, { confirm: '2' });
    expect(github.repo.issues.map((i) => [i.title, i.state])).toEqual([['bot-down is down', 'open']]);
    const html = github.repo.file('claw-health', 'index.html')!;
    expect(html).toContain('<h2 id="claw-1">bot-down</h2>');
    expect(html).toContain('<span class="state unhealthy">down</span>');
    expect(html).not.toContain('forged-');
    expect(html).not.toContain('99.99');
    const status = JSON.parse(github.repo.file('claw-health', 'status.json')!) as {
      claws: { id: string; status: string; uptime: Record<string, number | null> }[];
    };
    expect(status.claws).toEqual([
      expect.objectContaining({ id: 'bot-down', status: 'down', uptime: expect.objectContaining({ '24h': 0 }) }),
    ]);
    expect(github.repo.file('claw-health', 'badge.svg')).toContain('1 of 1 down');
    expect(github.repo.files('claw-health').filter((p) => p.startsWith('badges/'))).toEqual(['badges/bot-down.svg']);
  }, 60_000);
});
