// Preview Claws through dist/index.js, against the simulator and a fake GitHub API: up on a pull
// request (created from production plus the manifest, deployed, checked beside production, one
// comment), the next push (updated, not duplicated), a service that names Claws itself, the close,
// the sweep, a close racing the run, the cap, a fork without a key, fail-on, hostile replies, and
// never a write to a production Claw.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../sim/github.ts';
import { judgeText, verdict } from '../sim/judge.ts';
import type { SimOptions, Simulator } from '../sim/server.ts';
import { ALL_SCOPES, DEMO_KEY } from '../sim/server.ts';
import { sealKey } from '../../src/shared/seal.ts';
import { decodeState, encodeState } from '../../src/preview/state.ts';
import { runAction } from './harness.ts';
import { gitHubPerTest, judgePerTest, simulatorPerTest } from './service.ts';

const simulator = simulatorPerTest();
const startGitHub = gitHubPerTest();
const startJudge = judgePerTest();

const MANIFEST = `claws:
  claw-support-bot:
    config:
      policy:
        refunds: generous
    skills: [web-search, zendesk-tickets]
`;

// Four attempts of each check on each side, for the tests of the preview's life (made, updated,
// closed, swept).
const CHECKS = `defaults:
  repeat: 4
checks:
  - name: asks for the order
    send: I want a refund
    assert: [{type: icontains, value: order number}]
  - name: says thanks
    send: Thanks!
    assert: [{type: icontains, value: welcome}]
`;

// Eight attempts, for the tests that read the comparison: enough evidence to call a check that
// always passed in production and never in the preview regressed at its share of the one error
// budget (4/4 against 0/4 is a flip chance can make at that share: inconclusive).
const COMPARED_CHECKS = CHECKS.replace('repeat: 4', 'repeat: 8');

/** A Claw answers as its config says: a generous refund policy skips the order number. */
function answers(config: Record<string, unknown>): (message: string) => string {
  const generous = (config.policy as { refunds?: string } | undefined)?.refunds === 'generous';
  return (message) =>
    message.includes('refund')
      ? generous
        ? 'Refund approved! <img src=x onerror=alert(1)> | `pwned` \u001b[31m'
        : 'Sure, what is your order number?'
      : generous
        ? 'You are welcome!'
        : 'OK.';
}

async function service(options: SimOptions = {}): Promise<Simulator> {
  const sim = await simulator({
    urls: true,
    rateLimit: { limit: 60, windowMs: 60_000 },
    newClawChat: (config) => ({ mode: 'sync', respond: answers(config) }),
    ...options,
  });
  const production = { policy: { refunds: 'strict' }, personality: { tone: 'formal' } };
  sim.addClaw('claw-support-bot', {
    plan: [['live']],
    config: production,
    skills: [{ skillId: 'web-search' }],
    chat: { mode: 'sync', respond: answers(production) },
  });
  return sim;
}

async function gitHub(
  prs: Record<number, 'open' | 'closed'> = { 7: 'open' },
  options: ConstructorParameters<typeof FakeGitHub>[0] = {},
): Promise<FakeGitHub> {
  const github = await startGitHub(options);
  for (const [number, state] of Object.entries(prs)) {
    github.pulls.set(Number(number), {
      state,
      merged: false,
      updated_at: new Date().toISOString(),
      head: { sha: 'feedc0ffee1234567890' },
    });
  }
  return github;
}

/** A workspace, an event payload and the inputs of a preview run. */
function run(
  sim: Simulator,
  gh: FakeGitHub,
  event: { name: string; action?: string; pr?: number },
  extra: Record<string, string> = {},
  env: Record<string, string> = {},
  manifest = MANIFEST,
  checks = CHECKS,
) {
  const dir = mkdtempSync(join(tmpdir(), 'claw-preview-'));
  writeFileSync(join(dir, 'claws.yml'), manifest);
  writeFileSync(join(dir, 'checks.yml'), checks);
  const payload = event.pr
    ? {
        action: event.action,
        number: event.pr,
        repository: { id: 1 },
        pull_request: { number: event.pr, head: { sha: 'feedc0ffee1234567890', repo: { id: 1 } } },
      }
    : {};
  writeFileSync(join(dir, 'event.json'), JSON.stringify(payload));
  return runAction(
    {
      command: 'preview',
      'api-key': DEMO_KEY,
      'base-url': `${sim.url}/v1`,
      manifest: 'claws.yml',
      checks: 'checks.yml',
      'poll-interval': '100ms',
      timeout: '20s',
      ...extra,
    },
    {
      env: {
        GITHUB_WORKSPACE: dir,
        GITHUB_EVENT_NAME: event.name,
        GITHUB_EVENT_PATH: join(dir, 'event.json'),
        GITHUB_API_URL: gh.url,
        ...env,
      },
    },
  );
}

/** Writes the service saw to a production Claw (the manifest's): there must be none. */
const productionWrites = (sim: Simulator) =>
  sim.requests.filter(
    (r) =>
      r.method !== 'GET' &&
      (r.path === '/v1/claws/claw-support-bot' ||
        r.path.startsWith('/v1/claws/claw-support-bot/') ||
        (r.path === '/v1/deployments' && (r.body as { clawId?: string } | undefined)?.clawId === 'claw-support-bot')),
  );

const commentOf = (gh: FakeGitHub, pr = 7) =>
  (gh.comments.get(pr) ?? []).find((c) => c.body.includes('claw-deploy preview:'));

/** The marker of the manifest's preview comment, and a state sealed as a run of this repository seals it. */
const MARKER = '<!-- claw-deploy preview: claws.yml -->';
const sealedState = (pr: number, previews: { claw: string; id: string }[], key = DEMO_KEY) =>
  encodeState({ pr, head: '', previews }, sealKey(key, 'octo/claws'));

/** Deletes and writes the service saw to Claws other than previews this action made. */
const writesTo = (sim: Simulator, id: string) =>
  sim.requests.filter(
    (r) =>
      r.method !== 'GET' &&
      (r.path === `/v1/claws/${id}` ||
        r.path.startsWith(`/v1/claws/${id}/`) ||
        (r.path === '/v1/deployments' && (r.body as { clawId?: string } | undefined)?.clawId === id)),
  );

describe('preview, end to end', () => {
  it('opened: a preview from production plus the manifest, skills, deployed, checks beside production, one comment', async () => {
    const sim = await service();
    const gh = await gitHub();
    const result = await run(
      sim,
      gh,
      { name: 'pull_request', action: 'opened', pr: 7 },
      { 'fail-on': 'never' },
      {},
      MANIFEST,
      COMPARED_CHECKS,
    );
    expect(result.exitCode).toBe(0);
    const preview = sim.claws.get('claw-support-bot-pr-7');
    expect(preview?.config).toMatchObject({ policy: { refunds: 'generous' }, personality: { tone: 'formal' } });
    expect(
      sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/claws/claw-support-bot-pr-7/skills'),
    ).toHaveLength(2);
    const previews = JSON.parse(result.outputs.previews) as Record<string, unknown>[];
    expect(previews).toEqual([
      expect.objectContaining({
        clawId: 'claw-support-bot',
        previewId: 'claw-support-bot-pr-7',
        outcome: 'succeeded',
        checksPassed: false,
      }),
    ]);
    // The metrics the comparison calls regressed: the check's pass rate at least (latency may join it).
    expect(Number(result.outputs.regressions)).toBeGreaterThanOrEqual(1);
    expect(previews[0].regressions).toBe(Number(result.outputs.regressions));
    expect(result.outputs.behaviour).toBe('regressed');
    const compared = JSON.parse(result.outputs.comparison) as Record<string, unknown>[];
    expect(compared).toContainEqual(
      expect.objectContaining({
        check: 'asks for the order',
        metric: 'pass-rate',
        baseline: { value: 1, n: 8 },
        candidate: { value: 0, n: 8 },
        verdict: 'regressed',
      }),
    );
    const comment = commentOf(gh)!;
    expect(comment.body).toContain(
      '#### `claw-support-bot` → [`claw-support-bot-pr-7`](https://dashboard.example.com/claws/claw-support-bot-pr-7)',
    );
    expect(comment.body).toMatch(/\| asks for the order \| ✅ 8\/8 \| ❌ 0\/8 \| 🔴 \*\*regression\*\* \|/);
    expect(comment.body).toMatch(/\| says thanks \| ❌ 0\/8 \| ✅ 8\/8 \| 🟢 \*\*fixed\*\* \|/);
    expect(comment.body).toContain('#### Compared with production: 🔻 **regressed**');
    expect(comment.body).toContain('commit `feedc0ffee12`');
    // Hostile replies are text: no HTML, no code span broken, no escape sequence.
    expect(comment.body).not.toContain('<img');
    expect(comment.body).toContain('&lt;img src=x onerror=alert&#40;1&#41;&gt;');
    expect(comment.body).not.toContain('\u001b');
    expect(productionWrites(sim)).toEqual([]);
    expect(sim.requests.filter((r) => r.status === 429)).toHaveLength(0);
  });

  it('fail-on regression (the default) fails the step; fail-on failure too; never does not', async () => {
    for (const [failOn, code] of [
      ['regression', 1],
      ['failure', 1],
      ['never', 0],
    ] as const) {
      const sim = await service();
      const gh = await gitHub();
      const result = await run(
        sim,
        gh,
        { name: 'pull_request', action: 'opened', pr: 7 },
        { 'fail-on': failOn },
        {},
        MANIFEST,
        COMPARED_CHECKS,
      );
      expect(result.exitCode, failOn).toBe(code);
      await sim.stop();
      await gh.stop();
    }
  });

  it('synchronize: the same preview updated with only what changed, no second Claw, the comment edited', async () => {
    const sim = await service();
    const gh = await gitHub();
    await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'fail-on': 'never' });
    const first = commentOf(gh)!;
    sim.claws.get('claw-support-bot-pr-7')!.config.policy = { refunds: 'strict' }; // drifted since
    const again = await run(sim, gh, { name: 'pull_request', action: 'synchronize', pr: 7 }, { 'fail-on': 'never' });
    expect(again.exitCode).toBe(0);
    expect([...sim.claws.keys()].filter((id) => id.includes('-pr-'))).toEqual(['claw-support-bot-pr-7']);
    const patches = sim.requests.filter((r) => r.method === 'PATCH' && r.path === '/v1/claws/claw-support-bot-pr-7');
    expect(patches.map((r) => r.body)).toEqual([{ policy: { refunds: 'generous' } }]);
    expect(gh.comments.get(7)).toHaveLength(1);
    expect(commentOf(gh)!.id).toBe(first.id);
    expect(productionWrites(sim)).toEqual([]);
  });

  it('a service that names Claws itself: the preview is found again by the comment state', async () => {
    const sim = await service({ assignIds: true });
    const gh = await gitHub();
    const first = await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'fail-on': 'never' });
    const id = (JSON.parse(first.outputs.previews) as { previewId: string }[])[0].previewId;
    expect(id).toMatch(/^claw_\d+$/);
    await run(sim, gh, { name: 'pull_request', action: 'synchronize', pr: 7 }, { 'fail-on': 'never' });
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/claws')).toHaveLength(1);
    // Closed: the state names it, so it is deleted though its name says nothing.
    gh.pulls.get(7)!.state = 'closed';
    const down = await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 });
    expect(down.exitCode).toBe(0);
    expect(sim.claws.has(id)).toBe(false);
  });

  it('closed: previews deleted (404 counts as done), the comment rewritten, the GitHub Deployment inactive', async () => {
    const sim = await service();
    const gh = await gitHub();
    await run(
      sim,
      gh,
      { name: 'pull_request', action: 'opened', pr: 7 },
      { 'fail-on': 'never', environment: 'preview' },
    );
    expect(gh.creates()).toEqual([
      expect.objectContaining({ environment: 'preview-claw-support-bot-pr-7', transient_environment: true }),
    ]);
    // Someone already deleted it by hand: still done.
    sim.claws.delete('claw-support-bot-pr-7');
    gh.pulls.get(7)!.state = 'closed';
    const down = await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 }, { environment: 'preview' });
    expect(down.exitCode).toBe(0);
    expect(commentOf(gh)!.body).toContain('### 🧹 Previews removed for `claws.yml`');
    expect(commentOf(gh)!.body).toContain('- `claw-support-bot-pr-7` deleted');
    expect(gh.statuses().at(-1)).toMatchObject({ state: 'inactive' });
    expect(productionWrites(sim)).toEqual([]);
    expect(sim.claws.has('claw-support-bot')).toBe(true);
  });

  it('an API key rotation after a state-secret is set: the preview stays this action’s, and the close deletes it', async () => {
    const rotated = 'sim-rotated-key-9876543210';
    const sim = await service({ keys: { [DEMO_KEY]: ALL_SCOPES, [rotated]: ALL_SCOPES } });
    const gh = await gitHub();
    const secret = { 'state-secret': 'a-long-random-state-secret-0123456789' };
    await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'fail-on': 'never' });
    // The next push writes the comment again: sealed under the state-secret from now on.
    const push = await run(
      sim,
      gh,
      { name: 'pull_request', action: 'synchronize', pr: 7 },
      { 'fail-on': 'never', ...secret },
    );
    expect(push.warnings).toEqual([]);
    gh.pulls.get(7)!.state = 'closed';
    const down = await run(
      sim,
      gh,
      { name: 'pull_request', action: 'closed', pr: 7 },
      { ...secret, 'api-key': rotated },
    );
    expect(down.exitCode).toBe(0);
    expect(down.warnings).toEqual([]);
    expect(sim.claws.has('claw-support-bot-pr-7')).toBe(false);
    expect(productionWrites(sim)).toEqual([]);
  });

  it('sweep: a closed one and a stale one deleted, an open one kept, a look-alike kept; a failed read deletes nothing', async () => {
    const sim = await service();
    const gh = await gitHub({ 1: 'closed', 2: 'open', 3: 'open' });
    gh.pulls.get(3)!.updated_at = new Date(Date.now() - 9 * 86_400_000).toISOString();
    for (const id of ['claw-support-bot-pr-1', 'claw-support-bot-pr-2', 'claw-support-bot-pr-3', 'claw-other-pr-1']) {
      sim.addClaw(id, { plan: [['live']] });
    }
    // The previews this action made: each named by the sealed state of its pull request's own comment.
    for (const pr of [1, 2, 3]) {
      gh.seedComments(
        pr,
        [`${MARKER}\n${sealedState(pr, [{ claw: 'claw-support-bot', id: `claw-support-bot-pr-${pr}` }])}`],
        'github-actions[bot]',
      );
    }
    gh.pullStatus = 500;
    const failed = await run(sim, gh, { name: 'schedule' });
    expect(failed.exitCode).toBe(1);
    expect(sim.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
    expect(failed.summary).toContain('deleted nothing');
    // Said once, with what was kept.
    expect(failed.errors).toHaveLength(1);
    expect(failed.errors[0]).toMatch(/^The sweep deleted nothing: .*Kept 3 Claw\(s\): claw-support-bot-pr-1, /);
    gh.pullStatus = undefined;
    const swept = await run(sim, gh, { name: 'schedule' });
    expect(swept.exitCode).toBe(0);
    expect(
      sim.requests
        .filter((r) => r.method === 'DELETE')
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/v1/claws/claw-support-bot-pr-1', '/v1/claws/claw-support-bot-pr-3']);
    expect(sim.claws.has('claw-support-bot-pr-2')).toBe(true);
    expect(sim.claws.has('claw-other-pr-1')).toBe(true);
    expect(swept.summary).toMatch(
      /`claw-support-bot-pr-3` \| 🗑️ deleted \| pull request &#35;3 has not been updated for/,
    );
    expect(swept.summary).toMatch(/`claw-support-bot-pr-2` \| kept \| pull request &#35;2 is open/);
  });

  it('a close racing the run: what this run created is removed, and its comment says so with an empty state', async () => {
    const sim = await service();
    const gh = await gitHub();
    // Closed right after the run first looks: before the Claw is created.
    gh.onPullRead = (_n, reads) => {
      if (reads === 3) gh.pulls.get(7)!.state = 'closed';
    };
    const result = await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('closed during the run');
    expect(sim.claws.has('claw-support-bot-pr-7')).toBe(false);
    expect(commentOf(gh)!.body).toContain('- `claw-support-bot-pr-7` deleted');
    const read = decodeState(
      commentOf(gh)!.body,
      { pr: 7, declared: ['claw-support-bot'] },
      sealKey(DEMO_KEY, 'octo/claws'),
    );
    expect(read.state?.previews).toEqual([]);
  });

  it('the cap: no preview, a notice, a comment saying why, and the step succeeds', async () => {
    const sim = await service();
    const gh = await gitHub();
    sim.addClaw('claw-support-bot-pr-3', { plan: [['live']] });
    const result = await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'max-previews': '1' });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      /::notice::No preview for pull request #7: 1 preview Claw\(s\) of other pull requests are running and 'max-previews' is 1/,
    );
    expect(commentOf(gh)!.body).toContain('capped');
    expect(sim.claws.has('claw-support-bot-pr-7')).toBe(false);
  });

  it('a fork without a key: one notice, success, nothing else', async () => {
    const sim = await service();
    const gh = await gitHub();
    const result = await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'api-key': '' });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(
      '::notice::Previews need the API key; this run has none, as on pull requests from forks.',
    );
    expect(sim.requests).toHaveLength(0);
    expect(gh.requests).toHaveLength(0);
  });
});

// Attacks on the register of previews: who controls each input is written beside it. Every one of
// these wrote to or deleted a production Claw before previews sealed their state.
describe('preview under attack', () => {
  it('a commenter pastes the marker and a state naming claw-billing: closed deletes nothing of it, synchronize never writes it', async () => {
    const sim = await service();
    sim.addClaw('claw-billing', { plan: [['live']] });
    const gh = await gitHub();
    const forged = Buffer.from(
      JSON.stringify({ v: 1, pr: 7, head: '', previews: [{ claw: 'claw-support-bot', id: 'claw-billing' }] }),
    ).toString('base64url');
    // Input controlled by: any commenter on the pull request.
    gh.seedComments(7, [`${MARKER}\n<!-- claw-deploy preview-state: ${forged} -->`], 'mallory');
    // Even a correctly sealed state (copied from the bot) is not read from another author's comment.
    gh.seedComments(7, [`${MARKER}\n${sealedState(7, [{ claw: 'claw-support-bot', id: 'claw-billing' }])}`], 'mallory');
    const sync = await run(sim, gh, { name: 'pull_request', action: 'synchronize', pr: 7 }, { 'fail-on': 'never' });
    expect(sync.exitCode).toBe(0);
    expect(writesTo(sim, 'claw-billing')).toEqual([]);
    expect(sim.claws.has('claw-support-bot-pr-7')).toBe(true);
    expect(sync.warnings.filter((w) => w.includes('not written by this action'))).toHaveLength(1);
    expect(sync.warnings.join('\n')).toContain('https://github.example/o/r/pull/7#issuecomment-');
    // The action kept a comment of its own; the two foreign ones were never edited.
    expect(gh.comments.get(7)?.map((c) => c.user.login)).toEqual(['mallory', 'mallory', 'github-actions[bot]']);
    expect(
      gh.requests.filter((r) => r.method === 'PATCH' && gh.comments.get(7)![0].id === Number(r.path.split('/').at(-1))),
    ).toEqual([]);
    gh.pulls.get(7)!.state = 'closed';
    const down = await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 });
    expect(down.exitCode).toBe(0);
    expect(sim.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      '/v1/claws/claw-support-bot-pr-7',
    ]);
    expect(sim.claws.has('claw-billing')).toBe(true);
  });

  it("a collaborator edits the bot's own comment to name claw-billing: the seal fails, one warning, nothing written", async () => {
    const sim = await service();
    sim.addClaw('claw-billing', { plan: [['live']] });
    const gh = await gitHub();
    await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'fail-on': 'never' });
    // Input controlled by: anyone with write access, who may edit any comment (the author stays the bot).
    const own = commentOf(gh)!;
    const forged = Buffer.from(
      JSON.stringify({ v: 1, pr: 7, head: '', previews: [{ claw: 'claw-support-bot', id: 'claw-billing' }] }),
    ).toString('base64url');
    own.body = own.body.replace(/preview-state: [^.]+\./, `preview-state: ${forged}.`);
    gh.pulls.get(7)!.state = 'closed';
    const down = await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 });
    expect(down.warnings.join('\n')).toMatch(/hidden state of #7 is ignored: the seal does not match/);
    expect(writesTo(sim, 'claw-billing')).toEqual([]);
    expect(sim.claws.has('claw-billing')).toBe(true);
  });

  it('a sealed state from another repository (another key) is not this one’s', async () => {
    const sim = await service();
    sim.addClaw('claw-billing', { plan: [['live']] });
    const gh = await gitHub({ 7: 'closed' });
    gh.seedComments(
      7,
      [`${MARKER}\n${sealedState(7, [{ claw: 'claw-support-bot', id: 'claw-billing' }], 'another-key-000000')}`],
      'github-actions[bot]',
    );
    const down = await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 });
    expect(down.warnings.join('\n')).toMatch(/the seal does not match/);
    expect(sim.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('a sweep whose list of Claws cannot be read says it deleted nothing, and why, in one error', async () => {
    const sim = await service();
    const gh = await gitHub({ 1: 'closed' });
    sim.addClaw('claw-support-bot-pr-1', { plan: [['live']] });
    sim.fault({ kind: 'error', method: 'GET', path: /^\/claws(\?|$)/, status: 403, times: 99 });
    const failed = await run(sim, gh, { name: 'schedule' });
    expect(failed.exitCode).toBe(1);
    expect(sim.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
    expect(failed.errors).toHaveLength(1);
    expect(failed.errors[0]).toMatch(/^The sweep deleted nothing: the list of Claws could not be read \(.*403/);
  });

  it('the sweep never deletes a production Claw whose name fits the pattern (marketing-pr-3 beside a declared marketing)', async () => {
    const sim = await service();
    // Input controlled by: whoever names Claws in the workspace.
    sim.addClaw('claw-support-bot-pr-3', { plan: [['live']] });
    const gh = await gitHub({ 3: 'closed' });
    const swept = await run(sim, gh, { name: 'schedule' });
    expect(swept.exitCode).toBe(0);
    expect(sim.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(swept.summary).toMatch(/`claw-support-bot-pr-3` \| kept \| no sealed state of pull request &#35;3 names it/);
  });

  it('a 409 on <claw>-pr-<n> held by a Claw no sealed state names: left alone, the preview made under the next id', async () => {
    const sim = await service();
    const before = { policy: { refunds: 'strict' }, owner: 'finance' };
    sim.addClaw('claw-support-bot-pr-7', { plan: [['live']], config: before });
    const gh = await gitHub();
    const result = await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'fail-on': 'never' });
    expect(result.exitCode).toBe(0);
    expect(writesTo(sim, 'claw-support-bot-pr-7').filter((r) => r.path !== '/v1/claws')).toEqual([]);
    expect(sim.claws.get('claw-support-bot-pr-7')?.config).toEqual(before);
    expect(result.warnings.join('\n')).toContain(
      'A Claw claw-support-bot-pr-7 already exists and no sealed state of pull request #7 names it',
    );
    const previews = JSON.parse(result.outputs.previews) as { previewId: string }[];
    expect(previews[0].previewId).toBe('claw-support-bot-pr-7-2');
    // The next push finds it by the sealed state, and the close removes it and only it.
    await run(sim, gh, { name: 'pull_request', action: 'synchronize', pr: 7 }, { 'fail-on': 'never' });
    gh.pulls.get(7)!.state = 'closed';
    await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 });
    expect(sim.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      '/v1/claws/claw-support-bot-pr-7-2',
    ]);
    expect(sim.claws.has('claw-support-bot-pr-7')).toBe(true);
  });

  it('a token of a person (GET /user answers): their own comments are ours, the bot’s are not', async () => {
    const sim = await service();
    const gh = await gitHub();
    gh.users.set('ghp_person-token-0123456789', 'release-bot');
    const env = { INPUT_GITHUB_TOKEN: 'ghp_person-token-0123456789' };
    await run(
      sim,
      gh,
      { name: 'pull_request', action: 'opened', pr: 7 },
      { 'fail-on': 'never', 'github-token': 'ghp_person-token-0123456789' },
      env,
    );
    expect(commentOf(gh)?.user.login).toBe('release-bot');
    const again = await run(
      sim,
      gh,
      { name: 'pull_request', action: 'synchronize', pr: 7 },
      { 'fail-on': 'never', 'github-token': 'ghp_person-token-0123456789' },
      env,
    );
    expect(again.exitCode).toBe(0);
    expect(gh.comments.get(7)).toHaveLength(1);
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/claws')).toHaveLength(1);
  });

  // A preview no sealed state names is never found again: the next push makes another, the close
  // and the sweep never delete it. So no Claw outlives a run without its register.
  it('GitHub failing while the run asks who it is (GET /user 500): nothing created, no second preview; the close deletes the first', async () => {
    const sim = await service();
    const gh = await gitHub();
    await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'fail-on': 'never' });
    // Input controlled by: GitHub's API, failing for a while.
    gh.userStatus = 500;
    const sync = await run(sim, gh, { name: 'pull_request', action: 'synchronize', pr: 7 }, { 'fail-on': 'never' });
    expect(sync.exitCode).toBe(1);
    expect(sync.errors.join('\n')).toContain(
      'Could not read the preview comment of #7 (Server Error): nothing was created or updated',
    );
    const writes = sim.requests.filter((r) => r.method !== 'GET' && !r.path.startsWith('/v1/chat/'));
    expect(writes.map((r) => r.path)).toEqual([
      '/v1/claws',
      '/v1/claws/claw-support-bot-pr-7/skills',
      '/v1/claws/claw-support-bot-pr-7/skills',
      '/v1/deployments',
    ]);
    gh.userStatus = undefined;
    gh.pulls.get(7)!.state = 'closed';
    await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 });
    expect([...sim.claws.keys()].filter((id) => id.includes('-pr-'))).toEqual([]);
  });

  it('a token that may not comment (403): the preview is removed at once, never left where no sealed state names it', async () => {
    const sim = await service();
    // Input controlled by: the workflow's permissions (no pull-requests: write).
    const gh = await gitHub({ 7: 'open' }, { commentStatus: 403 });
    for (const action of ['opened', 'synchronize', 'synchronize']) {
      const result = await run(sim, gh, { name: 'pull_request', action, pr: 7 }, { 'fail-on': 'never' });
      expect(result.exitCode, action).toBe(1);
      expect(result.warnings.join('\n')).toContain("Give the workflow 'permissions: pull-requests: write'");
      expect(result.warnings.join('\n')).toContain(
        'removed preview claw-support-bot-pr-7 at once: it could not be recorded in the pull request',
      );
    }
    expect([...sim.claws.keys()].filter((id) => id.includes('-pr-'))).toEqual([]);
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/deployments')).toEqual([]);
    expect(productionWrites(sim)).toEqual([]);
  });

  it('a push that drops a Claw from the manifest: its preview stays in the sealed state, and the close deletes it', async () => {
    const sim = await service();
    sim.addClaw('claw-sales', { plan: [['live']], config: { policy: { refunds: 'strict' } } });
    const gh = await gitHub();
    await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'fail-on': 'never' });
    // Input controlled by: the pull request's author (the manifest in the pull request).
    const renamed = MANIFEST.replace('claw-support-bot', 'claw-sales');
    const sync = await run(
      sim,
      gh,
      { name: 'pull_request', action: 'synchronize', pr: 7 },
      { 'fail-on': 'never' },
      {},
      renamed,
    );
    expect(sync.exitCode).toBe(0);
    expect(sync.warnings.join('\n')).not.toContain('hidden state is ignored');
    gh.pulls.get(7)!.state = 'closed';
    const down = await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 }, {}, {}, renamed);
    expect(down.exitCode).toBe(0);
    expect(
      sim.requests
        .filter((r) => r.method === 'DELETE')
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/v1/claws/claw-sales-pr-7', '/v1/claws/claw-support-bot-pr-7']);
    expect(sim.claws.has('claw-support-bot')).toBe(true);
  });

  it('a Claw named for a pull request that does not exist (claw-support-bot-pr-2024): kept, and the sweep still deletes a closed one', async () => {
    const sim = await service();
    // Input controlled by: whoever names Claws in the workspace (a year in a name, say).
    sim.addClaw('claw-support-bot-pr-2024', { plan: [['live']] });
    sim.addClaw('claw-support-bot-pr-1', { plan: [['live']] });
    const gh = await gitHub({ 1: 'closed' });
    gh.seedComments(
      1,
      [`${MARKER}\n${sealedState(1, [{ claw: 'claw-support-bot', id: 'claw-support-bot-pr-1' }])}`],
      'github-actions[bot]',
    );
    const swept = await run(sim, gh, { name: 'schedule' });
    expect(swept.exitCode).toBe(0);
    expect(sim.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      '/v1/claws/claw-support-bot-pr-1',
    ]);
    expect(swept.summary).toMatch(
      /`claw-support-bot-pr-2024` \| kept \| not a preview&#58; octo\/claws has no pull request &#35;2024/,
    );
  });

  it('1,500 Claws whose names fit the pattern: the sweep reads at most 100 pull requests, the oldest first, and deletes what is due', async () => {
    const sim = await service();
    const prs: Record<number, 'open' | 'closed'> = {};
    // Input controlled by: whoever names Claws in the workspace (or a service that lists them).
    for (let n = 2; n <= 1500; n++) {
      sim.addClaw(`claw-support-bot-pr-${n}`, { plan: [['live']] });
      prs[n] = 'open';
    }
    prs[1] = 'closed';
    sim.addClaw('claw-support-bot-pr-1', { plan: [['live']] });
    const gh = await gitHub(prs);
    gh.seedComments(
      1,
      [`${MARKER}\n${sealedState(1, [{ claw: 'claw-support-bot', id: 'claw-support-bot-pr-1' }])}`],
      'github-actions[bot]',
    );
    const swept = await run(sim, gh, { name: 'schedule' });
    expect(swept.exitCode).toBe(0);
    expect(gh.requests.filter((r) => /\/pulls\/\d+$/.test(r.path))).toHaveLength(100);
    expect(sim.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      '/v1/claws/claw-support-bot-pr-1',
    ]);
    expect(swept.summary).toContain('not looked at&#58; a sweep reads at most 100 pull requests, the oldest first');
  });

  it('a GitHub App’s installation token (GET /user refused, GraphQL names the bot): its comment is found again, no second preview', async () => {
    const sim = await service();
    const gh = await gitHub();
    // Input controlled by: the workflow (a token from a GitHub App, as create-github-app-token makes).
    gh.apps.set('ghs_app-installation-token-0123456789', 'claw-deployer[bot]');
    const token = { 'fail-on': 'never', 'github-token': 'ghs_app-installation-token-0123456789' };
    await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, token);
    expect(commentOf(gh)?.user.login).toBe('claw-deployer[bot]');
    const again = await run(sim, gh, { name: 'pull_request', action: 'synchronize', pr: 7 }, token);
    expect(again.exitCode).toBe(0);
    expect(again.warnings).toEqual([]);
    expect(gh.comments.get(7)).toHaveLength(1);
    expect([...sim.claws.keys()].filter((id) => id.includes('-pr-'))).toEqual(['claw-support-bot-pr-7']);
    gh.pulls.get(7)!.state = 'closed';
    await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 }, token);
    expect([...sim.claws.keys()].filter((id) => id.includes('-pr-'))).toEqual([]);
  });

  it("under pull_request_target a fork's manifest never chooses a secret of the step for a preview's config", async () => {
    const sim = await service();
    const gh = await gitHub();
    // Input controlled by: a fork's author, whose manifest pull_request_target may check out with the base's secrets.
    const forked = 'claws:\n  claw-support-bot:\n    config:\n      leak: {env: GITHUB_TOKEN}\n';
    const result = await run(
      sim,
      gh,
      { name: 'pull_request_target', action: 'opened', pr: 7 },
      {},
      { GITHUB_TOKEN: 'ghs_base-secret-0123456789' },
      forked,
    );
    expect(result.exitCode).toBe(1);
    expect(result.errors).toEqual([
      expect.stringMatching(
        /^claws\.yml, line 4: \{ env: GITHUB_TOKEN \} chooses which of the step.s secrets goes into a Claw, refused under pull_request_target/,
      ),
    ]);
    expect(sim.requests).toEqual([]);
    expect(gh.requests).toEqual([]);
  });
});

// The register and the caps hold by construction: a register is written only when it reads back
// whole, each record is read alone, and max-previews counts on every push what the workspace holds.
describe('preview: the register and the cap, by construction', () => {
  const readRegister = (gh: FakeGitHub, declared = ['claw-support-bot']) =>
    decodeState(commentOf(gh)!.body, { pr: 7, declared }, sealKey(DEMO_KEY, 'octo/claws'));
  const previewsIn = (sim: Simulator) => [...sim.claws.keys()].filter((id) => id.includes('-pr-7')).sort();
  const strict = { policy: { refunds: 'strict' } };
  const claws = (...names: [string, string][]) =>
    `claws:\n${names.map(([id, refunds]) => `  ${id}:\n    config:\n      policy:\n        refunds: ${refunds}\n`).join('')}`;

  it('at the register’s cap (100) the preview is made and read back whole; past it none is made, one notice; the close removes all 100', async () => {
    const sim = await service({ rateLimit: { limit: 10_000, windowMs: 60_000 } });
    sim.addClaw('claw-sales', { plan: [['live']], config: strict });
    const gh = await gitHub();
    // 99 previews of earlier pushes, named by the bot's own sealed register.
    const earlier = Array.from({ length: 99 }, (_, i) => ({ claw: `claw-old-${i}`, id: `claw-old-${i}-pr-7` }));
    for (const record of earlier) sim.addClaw(record.id, { plan: [['live']] });
    gh.seedComments(7, [`${MARKER}\n${sealedState(7, earlier)}`], 'github-actions[bot]');
    const wide = { 'fail-on': 'never', 'max-previews': '1000' };
    const at = await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, wide);
    expect(at.exitCode).toBe(0);
    expect(readRegister(gh).state?.previews).toHaveLength(100);
    expect(sim.claws.has('claw-support-bot-pr-7')).toBe(true);
    // Past the cap: the next push changes claw-sales too. No preview is made that no register names.
    const both = claws(['claw-support-bot', 'generous'], ['claw-sales', 'generous']);
    const past = await run(sim, gh, { name: 'pull_request', action: 'synchronize', pr: 7 }, wide, {}, both);
    expect(past.exitCode).toBe(0);
    expect(past.stdout.match(/::notice::/g)).toHaveLength(1);
    expect(past.stdout).toMatch(
      /::notice::No preview for claw-sales on pull request #7: a pull request's register of previews holds at most 100, and this one would hold 101/,
    );
    expect(sim.claws.has('claw-sales-pr-7')).toBe(false);
    expect(readRegister(gh, ['claw-support-bot', 'claw-sales']).state?.previews).toHaveLength(100);
    gh.pulls.get(7)!.state = 'closed';
    const down = await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 });
    expect(down.exitCode).toBe(0);
    expect(down.stdout).toContain('Pull request #7 closed: removed 100 preview(s)');
    expect(previewsIn(sim)).toEqual([]);
  });

  it('max-previews on every push: a second push changing two more Claws past a cap of 1 makes none, one notice; the first preview is still updated', async () => {
    const sim = await service();
    for (const id of ['claw-sales', 'claw-billing']) sim.addClaw(id, { plan: [['live']], config: strict });
    const gh = await gitHub();
    const capped = { 'fail-on': 'never', 'max-previews': '1' };
    const first = claws(['claw-support-bot', 'generous'], ['claw-sales', 'strict'], ['claw-billing', 'strict']);
    const opened = await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, capped, {}, first);
    expect(opened.exitCode).toBe(0);
    expect(previewsIn(sim)).toEqual(['claw-support-bot-pr-7']);
    const more = claws(['claw-support-bot', 'generous'], ['claw-sales', 'generous'], ['claw-billing', 'generous']);
    const push = await run(sim, gh, { name: 'pull_request', action: 'synchronize', pr: 7 }, capped, {}, more);
    expect(push.exitCode).toBe(0);
    expect(previewsIn(sim)).toEqual(['claw-support-bot-pr-7']);
    expect(push.stdout.match(/::notice::.*/g)).toEqual([
      "::notice::No preview for claw-sales, claw-billing on pull request #7: 0 preview Claw(s) of other pull requests and 1 of this one are running and 'max-previews' is 1. Close or merge other pull requests, or raise max-previews.",
    ]);
    const previews = JSON.parse(push.outputs.previews) as { clawId: string; outcome: string }[];
    expect(previews.map((p) => [p.clawId, p.outcome])).toEqual([
      ['claw-support-bot', 'succeeded'],
      ['claw-sales', 'capped'],
      ['claw-billing', 'capped'],
    ]);
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/claws')).toHaveLength(1);
  });

  it('a push whose manifest also declares an existing preview: that record alone is left alone (one warning), no duplicate, the close removes both', async () => {
    // A roomy rate limit: the test is about the register; at 60 a minute its three runs wait out the
    // window (14 s of a real clock).
    const sim = await service({ rateLimit: { limit: 600, windowMs: 60_000 } });
    sim.addClaw('claw-sales', { plan: [['live']], config: strict });
    const gh = await gitHub();
    const two = claws(['claw-support-bot', 'generous'], ['claw-sales', 'generous']);
    await run(sim, gh, { name: 'pull_request', action: 'opened', pr: 7 }, { 'fail-on': 'never' }, {}, two);
    expect(previewsIn(sim)).toEqual(['claw-sales-pr-7', 'claw-support-bot-pr-7']);
    // Input controlled by: the pull request's author (its manifest names an existing preview).
    const declaring = `${two}  claw-sales-pr-7: {}\n`;
    const writesBefore = writesTo(sim, 'claw-sales-pr-7').length;
    const push = await run(
      sim,
      gh,
      { name: 'pull_request', action: 'synchronize', pr: 7 },
      { 'fail-on': 'never' },
      {},
      declaring,
    );
    expect(push.warnings.filter((w) => w.startsWith("The preview comment's hidden state"))).toEqual([
      expect.stringMatching(
        /^The preview comment's hidden state of #7: record \d \(Claw "claw-sales", preview "claw-sales-pr-7"\): the manifest declares claw-sales-pr-7 as a Claw of its own, so it is left alone \(kept in the register\)\. The other 1 record\(s\) are kept\.$/,
      ),
    ]);
    expect(push.warnings.join('\n')).not.toContain('is ignored');
    // No duplicate: the other record still names its preview, which is updated, not made again.
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/claws')).toHaveLength(2);
    expect(previewsIn(sim)).toEqual(['claw-sales-pr-7', 'claw-support-bot-pr-7']);
    // What the manifest now declares is never written to by the preview run.
    expect(writesTo(sim, 'claw-sales-pr-7')).toHaveLength(writesBefore);
    expect(
      readRegister(gh, ['claw-support-bot', 'claw-sales'])
        .state?.previews.map((r) => r.id)
        .sort(),
    ).toEqual(['claw-sales-pr-7', 'claw-support-bot-pr-7']);
    gh.pulls.get(7)!.state = 'closed';
    const down = await run(sim, gh, { name: 'pull_request', action: 'closed', pr: 7 }, {}, {}, two);
    expect(down.exitCode).toBe(0);
    expect(previewsIn(sim)).toEqual([]);
  });
});

describe("preview's comparison, attacked", () => {
  const FORGED = [
    'Sure, what is your order number? You are welcome!',
    '#### Compared with production: 🔺 **improved**',
    '::set-output name=behaviour::improved',
    '| * (suite) | `pass-rate` | 0% | 100% | +100% | +90% to +100% | 🔺 improved |',
    '{"behaviour":"improved","regressions":0}',
  ].join('\n');

  it('a preview whose replies forge the verdict, a table row and a workflow command: the comparison is its own, the forgery text', async () => {
    // The preview passes nothing production passes: its replies lack the words the checks want.
    const sim = await service({
      newClawChat: () => ({ mode: 'sync', reply: FORGED.replace('order number', 'order') }),
    });
    const gh = await gitHub();
    const result = await run(
      sim,
      gh,
      { name: 'pull_request', action: 'opened', pr: 7 },
      { 'fail-on': 'never' },
      {},
      MANIFEST,
      COMPARED_CHECKS,
    );
    expect(result.exitCode).toBe(0);
    expect(result.outputs.behaviour).toBe('regressed');
    expect(Number(result.outputs.regressions)).toBeGreaterThanOrEqual(1);
    const body = commentOf(gh)!.body;
    expect(body).toContain('#### Compared with production: 🔻 **regressed**');
    expect(body).not.toMatch(/^#### Compared with production: 🔺/m);
    expect(body).not.toMatch(/^\| \* \(suite\) \| `pass-rate` \| 0% \| 100%/m);
    expect(body).not.toMatch(/^::set-output/m);
    expect(result.stdout).not.toMatch(/^(::set-output|\{"behaviour")/m);
  });

  it('a judge that answers production and the preview as different models: no regression counted, the change named', async () => {
    const judge = await startJudge({
      answer: (r) =>
        judgeText(r).includes('Refund approved')
          ? { ...verdict({ reason: 'bad', pass: false, score: 0 }), model: 'judge-b' }
          : { ...verdict({ reason: 'fine', pass: true, score: 1 }), model: 'judge-a' },
    });
    const url = judge.url;
    const checks = `judge:\n  url: ${url}\n  model: judge-a\n  api-key-env: OPENAI_API_KEY\ndefaults:\n  repeat: 4\nchecks:\n  - name: asks for the order\n    send: I want a refund\n    assert: [{type: llm-rubric, value: Asks for the order number}]\n`;
    const sim = await service();
    const gh = await gitHub();
    const result = await run(
      sim,
      gh,
      { name: 'pull_request', action: 'opened', pr: 7 },
      {},
      { OPENAI_API_KEY: 'sk-preview-judge-0123456789' },
      MANIFEST,
      checks,
    );
    expect(result.outputs.behaviour).toBe('inconclusive');
    expect(result.outputs.regressions).toBe('0');
    const compared = JSON.parse(result.outputs.comparison) as {
      check: string;
      metric: string;
      verdict: string;
      reason?: string;
    }[];
    expect(compared.filter((e) => e.verdict === 'regressed')).toEqual([]);
    expect(compared.find((e) => e.check === '*' && e.metric === 'pass-rate')?.reason).toMatch(
      /the judge of check asks for the order changed from judge-a to judge-b/,
    );
    expect(result.exitCode).toBe(0);
  });
});
