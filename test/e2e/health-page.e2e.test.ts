// The status page as a team reads it, after 14 daily runs through dist/index.js against the
// simulator and the fake GitHub API: the latency drawn is the probe's reply (a Claw that slows from
// about 300 ms to about 900 ms after its one deployment), the deployment is marked once, on its day,
// with its id; the down Claw comes first, the banner names it, and its incident is linked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../sim/github.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { runAction } from './harness.ts';

const DAY0 = Date.parse('2026-11-02T09:00:00Z');
const DAY = 24 * 3600_000;
const BRANCH = 'claw-health';
let sim: Simulator;
let github: FakeGitHub;
let offset = 0;

beforeAll(async () => {
  const now = (): number => Date.now() + offset;
  sim = new Simulator({ now });
  await sim.start();
  github = new FakeGitHub({ now });
  await github.start();
  sim.addClaw('support-bot', { chat: { mode: 'task', taskMs: 300, reply: 'PONG' } });
  sim.addClaw('billing-bot', { status: 'offline' });
  sim.addClaw('sales-bot', { chat: { mode: 'sync', reply: 'PONG' } });
  for (const id of ['support-bot', 'billing-bot', 'sales-bot']) sim.addDeployment(id, [['succeeded']], `dep_${id}_1`);
  for (let day = 0; day < 14; day++) {
    if (day === 9) {
      // The one deployment of the fortnight: the new release answers three times slower.
      sim.addDeployment('support-bot', [['succeeded']], 'dep_support-bot_2');
      sim.claws.get('support-bot')!.chat.taskMs = 900;
    }
    offset = DAY0 + day * DAY - Date.now();
    await runAction(
      {
        command: 'health',
        'api-key': DEMO_KEY,
        'base-url': `${sim.url}/v1`,
        'claw-id': '*',
        'probe-message': 'Reply with the word PONG',
        'probe-expect': 'PONG',
        'poll-interval': '100ms',
        timeout: '20s',
        incidents: 'true',
        confirm: '1',
        'status-page': 'true',
      },
      { clockAt: DAY0 + day * DAY, env: { GITHUB_API_URL: github.url, GITHUB_RUN_ID: String(9000 + day) } },
    );
  }
}, 120_000);

afterAll(async () => {
  await sim?.stop();
  await github?.stop();
});

const dayOf = (n: number): string => new Date(DAY0 + n * DAY).toISOString().slice(0, 10);

describe('the status page after a fortnight', () => {
  it('shows the down Claw first, names it in the banner, and links its incident', () => {
    const html = github.repo.file(BRANCH, 'index.html')!;
    expect(html).toContain('Down: billing-bot (1 of 3).');
    const order = [...html.matchAll(/<h2 id="claw-\d+">([^<]+)<\/h2>/g)].map((m) => m[1]);
    expect(order[0]).toBe('billing-bot');
    const [issue] = github.repo.issues;
    expect(html).toContain(`<h2 id="incidents">Incidents</h2>`);
    expect(html).toContain(
      `href="https://github.com/octo/claws/issues/${issue.number}">Open #${issue.number}</a>: billing-bot is down`,
    );
  });

  it("draws the probe's reply latency, and marks the one deployment once, on its day, with its id", () => {
    const status = JSON.parse(github.repo.file(BRANCH, 'status.json')!) as {
      claws: { id: string; days: { day: string; latencyP50: number | null; newDeployments: string[] }[] }[];
    };
    const support = status.claws.find((c) => c.id === 'support-bot')!;
    const before = support.days.filter((d) => d.day < dayOf(9)).map((d) => d.latencyP50!);
    const after = support.days.filter((d) => d.day >= dayOf(9)).map((d) => d.latencyP50!);
    // The reply through its task, never the status read's few milliseconds.
    for (const ms of before) expect(ms).toBeGreaterThanOrEqual(300);
    for (const ms of after) expect(ms).toBeGreaterThanOrEqual(900);
    // The jump is visible: a bound below 900 ms on each day would measure the machine, not the
    // action (a loaded runner stretches a poll), so the days are compared by their middle.
    const middle = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
    expect(middle(before)).toBeLessThan(middle(after));
    expect(support.days.flatMap((d) => d.newDeployments.map((id) => `${d.day} ${id}`))).toEqual([
      `${dayOf(9)} dep_support-bot_2`,
    ]);
    // The other Claws were never deployed in the fortnight: no marker at all.
    for (const claw of status.claws.filter((c) => c.id !== 'support-bot')) {
      expect(claw.days.flatMap((d) => d.newDeployments)).toEqual([]);
    }
    const html = github.repo.file(BRANCH, 'index.html')!;
    expect(html).toContain(`New deployment on ${dayOf(9)} (dep_support-bot_2).`);
    expect(html.match(/No new deployment in 90 days\./g)).toHaveLength(2);
  });
});
