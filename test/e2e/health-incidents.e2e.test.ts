// Incidents at real sizes and under GitHub's own limits, through dist/index.js against the fake
// GitHub: a Claw failing 30 checks with long names, 1,100 Claws down, a secondary rate limit, a
// slow GitHub, a token that may read issues but not write them, an id the action cannot use in
// the workspace's list, and a rotated API key.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES, DEMO_KEY } from '../sim/server.ts';
import { HealthWorld } from './health-world.ts';

const T = Date.parse('2026-11-20T10:00:00Z');
const HOUR = 3600_000;
const ROTATED_KEY = 'sim-rotated-key-9876543210';
let workspace: string | undefined;
const world = new HealthWorld({ timeout: '60s', confirm: '1' }, { killAfterMs: 120_000 }, 500);

afterEach(async () => {
  await world.stop();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
  workspace = undefined;
});

const start = (options: { pageSize?: number } = {}) =>
  world.start({ keys: { [DEMO_KEY]: ALL_SCOPES, [ROTATED_KEY]: ALL_SCOPES }, ...options });
const run = (when: number, extra: Record<string, string> = {}) => world.run(when, extra, { cwd: workspace });

const open = () => world.github!.repo.issues.filter((i) => i.state === 'open');
/** Open issues per Claw (its label): more than one is a duplicate. */
const duplicated = () => {
  const seen = new Map<string, number>();
  for (const issue of open()) seen.set(issue.labels[1], (seen.get(issue.labels[1]) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1);
};
const notices = (done: { commands: string[] }) => done.commands.filter((c) => c.startsWith('::notice'));

describe('incidents: own state always readable, one issue per Claw at any count', () => {
  it('a Claw failing 30 checks with long descriptive names keeps one issue over 4 runs', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a', { chat: { mode: 'sync', reply: 'pong' } });
    workspace = mkdtempSync(join(tmpdir(), 'claw-incidents-'));
    // Input controlled by: the team's checks file (promptfoo test descriptions are sentences).
    const checks = Array.from(
      { length: 30 },
      (_, i) =>
        `  - name: "the agent answers question ${i} about the refund policy politely, in full sentences, citing the policy section it relies on"\n    send: question ${i}\n    assert:\n      - type: icontains\n        value: refund\n`,
    );
    writeFileSync(join(workspace, 'claw-checks.yml'), `checks:\n${checks.join('')}`);
    const warnings: string[] = [];
    for (let i = 0; i < 4; i++) {
      const done = await run(T + i * HOUR, { checks: 'claw-checks.yml' });
      expect(done.exitCode).toBe(1);
      warnings.push(...done.warnings);
    }
    expect(github.repo.issues).toHaveLength(1);
    expect(warnings).toEqual([]);
    expect(github.repo.issues[0]).toMatchObject({ state: 'open', labels: ['claw-incident', 'bot-a'] });
    // The marker stays small whatever the names: the names are in the body, not the state.
    const marker = /<!-- claw-deploy incident: [^ ]+ -->/.exec(github.repo.issues[0].body)![0];
    expect(marker.length).toBeLessThan(600);
    expect(github.repo.issues[0].body).toContain('citing the policy section it relies on');
  });

  it('1,100 Claws down: 1,100 issues after 3 runs; new ones capped by max-new-incidents, the rest held back one line', async () => {
    const { sim } = await start({ pageSize: 500 });
    for (let i = 0; i < 1100; i++) sim.addClaw(`bot-${String(i).padStart(4, '0')}`, { status: 'offline' });
    const big = { 'max-new-incidents': '1100', timeout: '120s' };
    await run(T, big);
    expect(open()).toHaveLength(1100);
    for (let i = 1; i <= 2; i++) {
      const done = await run(T + i * HOUR, { timeout: '120s' });
      expect(done.warnings).toEqual([]);
    }
    expect(open()).toHaveLength(1100);
    expect(duplicated()).toEqual([]);
    // 30 more go down: 20 open now (the default cap), 10 on the next run.
    for (let i = 1100; i < 1130; i++) sim.addClaw(`bot-${String(i).padStart(4, '0')}`, { status: 'offline' });
    const capped = await run(T + 3 * HOUR, { timeout: '120s' });
    expect(open()).toHaveLength(1120);
    expect(capped.stdout).toContain(
      'Incidents: 10 new incident(s) held back by max-new-incidents (20); they open on the next run(s).',
    );
    expect(capped.warnings).toEqual([]);
    await run(T + 4 * HOUR, { timeout: '120s' });
    expect(open()).toHaveLength(1130);
    expect(duplicated()).toEqual([]);
  }, 400_000);
});

describe("incidents: GitHub's limits obeyed", () => {
  for (const limit of [
    { status: 403 as const, retryAfter: undefined },
    { status: 429 as const, retryAfter: 60 },
  ]) {
    it(`a secondary rate limit (${limit.status}${limit.retryAfter ? ', Retry-After' : ''}) stops this run's GitHub calls at once, with one warning; health as ever`, async () => {
      const { sim, github } = await start({ pageSize: 500 });
      for (let i = 0; i < 300; i++) sim.addClaw(`bot-${String(i).padStart(3, '0')}`, { status: 'offline' });
      github.secondaryLimit = { after: 20, ...limit };
      const done = await run(T, { 'max-new-incidents': '1000' });
      expect(done.exitCode).toBe(1);
      expect(done.outputs.healthy).toBe('false');
      expect(done.errors).toEqual([expect.stringMatching(/^300 of 300 Claws are not healthy/)]);
      expect(github.repo.issues).toHaveLength(20);
      // Tries after the first refusal: none.
      expect(github.requests.length - 1 - github.secondaryLimit.hitAt!).toBe(0);
      expect(done.warnings).toEqual([
        expect.stringMatching(/^GitHub: a secondary rate limit .*; no more GitHub calls in this run/),
      ]);
      expect(done.warnings[0]).toContain(
        `(${limit.status}: You have exceeded a secondary rate limit${limit.retryAfter ? '; retry after 1m' : ''})`,
      );
    });
  }

  it('a slow GitHub (every call 4 s) with timeout 5s: the step ends near its timeout, one warning', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a');
    github.delayMs = 4000;
    const done = await run(T, { timeout: '5s', 'status-page': 'true' });
    expect(done.exitCode).toBe(0);
    expect(done.outputs.healthy).toBe('true');
    expect(done.ms).toBeLessThan(10_000);
    expect(done.warnings).toEqual([
      expect.stringMatching(/^GitHub: no answer within the step's timeout .*; no more GitHub calls in this run/),
    ]);
  }, 60_000);

  it('checks that hang until the deadline still leave GitHub its share: the run is kept, no warning', async () => {
    const { sim, github } = await start();
    // Input controlled by: the Claw (a task that never finishes).
    sim.addClaw('bot-a', { chat: { mode: 'task', taskMs: 600_000, reply: 'pong' } });
    workspace = mkdtempSync(join(tmpdir(), 'claw-incidents-'));
    writeFileSync(
      join(workspace, 'claw-checks.yml'),
      'checks:\n  - name: greets\n    send: Hello\n    assert:\n      - type: icontains\n        value: pong\n',
    );
    const done = await run(T, { checks: 'claw-checks.yml', timeout: '8s' });
    expect(done.warnings).toEqual([]);
    expect(JSON.parse(done.outputs.report)[0]).toMatchObject({ clawId: 'bot-a', verdict: 'unknown' });
    expect(github.repo.file('claw-health', 'history/2026-11.ndjson')).toContain('"claw":"bot-a"');
  });

  it('a token that may read issues but not write them: one warning for two incidents', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a', { status: 'offline' });
    sim.addClaw('bot-b', { status: 'offline' });
    github.repo.issueWriteStatus = 403;
    const done = await run(T);
    expect(done.exitCode).toBe(1);
    expect(done.warnings).toEqual([
      "Incidents: could not open an incident issue (403: give the workflow 'permissions: issues: write' (and 'github-token' that has it)); no more issue writes in this run (1 more held back).",
    ]);
  });
});

describe('incidents: one odd Claw never blinds the rest', () => {
  it("with '*', an id the action cannot use is skipped with one warning; the others are checked, no service incident", async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-down', { status: 'offline' });
    sim.addClaw('bot-up');
    // Input controlled by: the service's list (a Claw made by another tool, named with a slash).
    sim.addClaw('team/odd-name');
    const done = await run(T);
    expect(done.exitCode).toBe(1);
    expect(done.errors).toEqual(['1 of 2 Claws is not healthy: bot-down (unhealthy).']);
    expect(done.warnings).toEqual([
      expect.stringMatching(
        /^Skipped 1 Claw\(s\) the service listed with an id this action cannot use: "team\/odd-name"/,
      ),
    ]);
    expect(github.repo.issues.map((i) => i.title)).toEqual(['bot-down is down']);
  });
});

describe('incidents: a key rotation keeps the state', () => {
  it('with state-secret, the open incident stays the same issue across an API key rotation, and closes', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a', { status: 'offline' });
    const secret = { 'state-secret': 'a-long-random-state-secret-0123456789', recover: '1' };
    await run(T, secret);
    const rotated = await run(T + HOUR, { ...secret, 'api-key': ROTATED_KEY });
    expect(rotated.warnings).toEqual([]);
    expect(github.repo.issues.map((i) => i.state)).toEqual(['open']);
    sim.claws.get('bot-a')!.status = 'online';
    await run(T + 2 * HOUR, { ...secret, 'api-key': ROTATED_KEY });
    expect(github.repo.issues.map((i) => i.state)).toEqual(['closed']);
  });

  it('state sealed under the API key is re-sealed under a new state-secret on first sight (a notice), then survives the rotation', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a', { status: 'offline' });
    await run(T);
    const secret = { 'state-secret': 'a-long-random-state-secret-0123456789' };
    const adding = await run(T + HOUR, secret);
    expect(adding.warnings).toEqual([]);
    expect(notices(adding)).toEqual([
      expect.stringContaining('Incidents: re-sealed 1 issue(s) under the state-secret'),
    ]);
    const rotated = await run(T + 2 * HOUR, { ...secret, 'api-key': ROTATED_KEY });
    expect(rotated.warnings).toEqual([]);
    expect(github.repo.issues).toHaveLength(1);
  });

  it('without state-secret, a rotation cannot be told from an edit: the old issue is ignored with one warning, never trusted', async () => {
    const { sim, github } = await start();
    sim.addClaw('bot-a', { status: 'offline' });
    await run(T);
    const rotated = await run(T + HOUR, { 'api-key': ROTATED_KEY });
    // The history's lines are orphaned the same way, and say so once.
    expect(rotated.warnings.sort()).toEqual([
      // The index, sealed under the old key too, is named in that same line, not in one of its own.
      expect.stringMatching(
        /^History: ignored \d+ line\(s\).*not sealed by this action.* Its index \(history\/index\.json\) is not sealed by this action either/,
      ),
      expect.stringMatching(/issues\/\d+: the seal does not match .*state-secret/),
    ]);
    expect(github.repo.issues).toHaveLength(2);
  });

  it("two Claw ids sharing their first 50 characters: a label each, and one's sealed body pasted into the other's issue is ignored with one warning, the real incident kept open", async () => {
    const { sim, github } = await start();
    const shared = 'claw-support-'.padEnd(50, 'x');
    const [one, two] = [`${shared}-one`, `${shared}-two`];
    // A benign control: a short id keeps its whole id as its label.
    for (const id of [one, two, 'bot-a']) sim.addClaw(id, { status: 'offline' });
    await run(T);
    const issueOf = (id: string) => github.repo.issues.find((i) => i.title === `${id} is down`)!;
    const [a, b] = [issueOf(one), issueOf(two)];
    expect(a.labels[1]).not.toBe(b.labels[1]);
    expect(a.labels[1]).toMatch(/^claw-support-x+~[0-9a-f]{16}$/);
    expect(a.labels[1].length).toBeLessThanOrEqual(50);
    expect(issueOf('bot-a').labels).toEqual(['claw-incident', 'bot-a']);
    // Input controlled by: a collaborator (may edit any issue). Before, the next run closed one of
    // the two as "a duplicate", with no warning: the labels, cut at 50, could not tell them apart.
    b.body = a.body;
    const next = await run(T + HOUR);
    expect(next.warnings).toEqual([
      `Incidents: ignored https://github.com/octo/claws/issues/${b.number}: its state is #${a.number}'s, whose labels name its subject (a state copied from one issue into another). It is never edited.`,
    ]);
    expect(a.state).toBe('open');
    expect(github.repo.issues.filter((i) => i.state === 'closed')).toEqual([]);
  });
});
