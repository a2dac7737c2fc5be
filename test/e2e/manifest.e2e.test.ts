// Claws as code through dist/index.js: plan with its sticky comment (against a fake GitHub API),
// apply with the reviewed plan-id, drift, and a bad manifest refused before any request.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../sim/server.ts';
import { runAction } from './harness.ts';
import { gitHubPerTest, inputsFor, simulatorPerTest } from './service.ts';

const simulator = simulatorPerTest({ writeOnly: ['connections.zendesk.token'] });
const startGitHub = gitHubPerTest();

const MANIFEST = `claws:
  claw-support-bot:
    config:
      name: Support Bot
      personality:
        tone: friendly
      connections:
        zendesk:
          token: { env: ZENDESK_TOKEN }
    skills: [web-search, zendesk-tickets]
team:
  members:
    alice@example.com: admin
    bob@example.com: member
prune: [skills]
`;

async function start(): Promise<Simulator> {
  const sim = await simulator();
  sim.addClaw('claw-support-bot', {
    plan: [['pending', 2000], ['live']],
    config: { personality: { tone: 'formal' } },
    skills: [{ skillId: 'web-search' }, { skillId: 'legacy-faq' }],
  });
  sim.addMember('alice@example.com', 'admin');
  return sim;
}

/** A workspace with claws.yml, and a pull_request event for PR #7. */
function workspace(text = MANIFEST): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'claw-manifest-'));
  writeFileSync(join(dir, 'claws.yml'), text);
  const event = join(dir, 'event.json');
  writeFileSync(
    event,
    JSON.stringify({ number: 7, repository: { id: 1 }, pull_request: { number: 7, head: { repo: { id: 1 } } } }),
  );
  return { dir, env: { GITHUB_WORKSPACE: dir, GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event } };
}

/** A manifest command's inputs (the Claw id the helper sets is not read by these commands). */
const inputs = (s: Simulator, extra: Record<string, string>) => inputsFor(s, { manifest: 'claws.yml', ...extra });

describe('Claws as code, end to end', () => {
  it('plan-file and plan-json: the whole plan under RUNNER_TEMP, masked, named in outputs', async () => {
    const s = await start();
    const prompt = Array.from({ length: 30 }, (_, i) => `Rule ${i + 1}: answer in full sentences.`).join('\n');
    const text = MANIFEST.replace(
      '        tone: friendly',
      `        tone: friendly\n        prompt: |\n${prompt.replace(/^/gm, '          ')}`,
    );
    const { dir, env } = workspace(text);
    const temp = mkdtempSync(join(tmpdir(), 'claw-runner-temp-'));
    const run = await runAction(inputs(s, { command: 'plan' }), {
      env: { ...env, RUNNER_TEMP: temp, ZENDESK_TOKEN: 'zd-secret-token-123' },
    });
    expect(run.exitCode).toBe(0);
    const file = run.outputs['plan-file'];
    const json = run.outputs['plan-json'];
    expect(file).toBe(join(temp, `claw-plan-claws.yml-${run.outputs['plan-id']}.md`));
    expect(json).toBe(join(temp, `claw-plan-claws.yml-${run.outputs['plan-id']}.json`));
    const markdown = readFileSync(file, 'utf8');
    expect(markdown).toContain('+ personality.prompt: text, 31 line(s)');
    expect(markdown).toContain('+   Rule 30: answer in full sentences.');
    const plan = JSON.parse(readFileSync(json, 'utf8')) as {
      planId: string;
      operations: { changes?: { after?: unknown }[] }[];
    };
    expect(plan.planId).toBe(run.outputs['plan-id']);
    expect(JSON.stringify(plan)).toContain(JSON.stringify(`${prompt}\n`).slice(1, -1));
    for (const text of [markdown, readFileSync(json, 'utf8'), run.summary])
      expect(text).not.toContain('zd-secret-token-123');
    expect(run.summary).toContain('+   Rule 17: answer in full sentences.');
    void dir;
  });

  it('prune: [members] without a team section is refused before any request', async () => {
    const s = await start();
    const { env } = workspace('claws:\n  claw-support-bot:\n    skills: [web-search]\nprune: [members]\n');
    const run = await runAction(inputs(s, { command: 'plan' }), { env });
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe('error');
    expect(run.errors).toEqual([
      "claws.yml, line 4: 'prune' names members, but the manifest declares no 'team.members' to keep: expected 'team.members', or 'members' out of 'prune'.",
    ]);
    expect(s.requests).toHaveLength(0);
  });

  it('plan on a pull request: outputs, summary, and one sticky comment, created once then updated', async () => {
    const s = await start();
    const github = await startGitHub();
    // 120 comments from others first: the marker is looked for on every page.
    github.seedComments(
      7,
      Array.from({ length: 120 }, (_, i) => `comment ${i}`),
    );
    const { env } = workspace();
    const planInputs = inputs(s, { command: 'plan', comment: 'true' });
    const first = await runAction(planInputs, { env: { ...env, GITHUB_API_URL: github.url } });
    expect(first.exitCode).toBe(0);
    // Update the Claw, install one skill, prune one, invite Bob.
    expect(first.outputs.changes).toBe('4');
    expect(first.outputs['plan-id']).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.parse(first.outputs.plan)).toMatchObject({
      changes: 4,
      writeOnly: [{ path: 'connections.zendesk.token' }],
    });
    expect(first.summary).toContain('### 📋 Plan for `claws.yml`: 4 change(s)');
    expect(first.summary).toContain('+ skill zendesk-tickets\n- skill legacy-faq');
    expect(s.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    const comments = () => github.comments.get(7) ?? [];
    expect(comments()).toHaveLength(121);
    expect(comments()[120].body).toMatch(/^<!-- claw-deploy plan: claws\.yml -->\n### 📋 Plan/);

    // The dashboard changes; the next plan updates the same comment.
    s.claws.get('claw-support-bot')!.skills.push({ skillId: 'zendesk-tickets' });
    const second = await runAction(planInputs, { env: { ...env, GITHUB_API_URL: github.url } });
    expect(second.stdout).toContain('The plan is on pull request #7 (comment updated).');
    expect(comments()).toHaveLength(121);
    expect(comments()[120].body).toContain('3 change(s)');
    expect(second.outputs['plan-id']).not.toBe(first.outputs['plan-id']);
  });

  it("never edits another author's comment that carries the plan marker: keeps its own, and says which it ignored", async () => {
    const s = await start();
    const github = await startGitHub();
    // Input controlled by: any commenter on the pull request.
    github.seedComments(7, ['<!-- claw-deploy plan: claws.yml -->\nI am not the bot'], 'mallory');
    const { env } = workspace();
    const planInputs = inputs(s, { command: 'plan', comment: 'true' });
    for (let i = 0; i < 2; i++) await runAction(planInputs, { env: { ...env, GITHUB_API_URL: github.url } });
    const comments = github.comments.get(7) ?? [];
    expect(comments.map((c) => c.user.login)).toEqual(['mallory', 'github-actions[bot]']);
    expect(comments[0].body).toBe('<!-- claw-deploy plan: claws.yml -->\nI am not the bot');
    const patched = github.requests.filter((r) => r.method === 'PATCH').map((r) => r.path);
    expect(patched).toEqual([`/repos/octo/claws/issues/comments/${comments[1].id}`]);
  });

  it('apply without a reviewed plan-id is refused before any request, unless auto-approve says so', async () => {
    const s = await start();
    const { env } = workspace();
    const refused = await runAction(inputs(s, { command: 'apply', 'plan-id': '' }), { env });
    expect(refused.exitCode).toBe(1);
    expect(refused.errors).toEqual([
      "Input 'plan-id' is \"\": expected the 'plan-id' output of the reviewed plan (apply refuses to write an unreviewed plan), or 'auto-approve: true' to apply without review.",
    ]);
    expect(s.requests).toEqual([]);
  });

  it('warns once when the token may not comment, and the plan still succeeds', async () => {
    const s = await start();
    const github = await startGitHub({ commentStatus: 403 });
    const { env } = workspace();
    const run = await runAction(inputs(s, { command: 'plan', comment: 'true' }), {
      env: { ...env, GITHUB_API_URL: github.url },
    });
    expect(run.exitCode).toBe(0);
    expect(run.warnings).toEqual([
      "Commenting the plan on pull request #7: 403 forbidden. Give the workflow 'permissions: pull-requests: write' (a pull request from a fork gets a read-only token: see the job summary for the plan).",
    ]);
  });

  it('apply with the reviewed plan-id writes, then deploys the changed Claw; a stale one writes nothing', async () => {
    const s = await start();
    const { env } = workspace();
    const plan = await runAction(inputs(s, { command: 'plan' }), { env });
    const secrets = { ...env, ZENDESK_TOKEN: 'zd-secret-4242' };
    // The reviewed plan was made without the secret, as on a fork: same id.
    const stale = await runAction(inputs(s, { command: 'apply', 'plan-id': 'ffffffffffffffff' }), { env: secrets });
    expect(stale.exitCode).toBe(1);
    expect(stale.outputs.outcome).toBe('failed');
    expect(stale.errors[0]).toMatch(/^The plan is not the reviewed one \(reviewed ffffffffffffffff, now /);
    expect(s.requests.filter((r) => r.method !== 'GET')).toEqual([]);

    const apply = await runAction(inputs(s, { command: 'apply', 'plan-id': plan.outputs['plan-id'] }), {
      env: secrets,
    });
    expect(apply.exitCode).toBe(0);
    expect(apply.outputs.outcome).toBe('succeeded');
    expect(JSON.parse(apply.outputs.report)).toMatchObject([{ clawId: 'claw-support-bot', outcome: 'succeeded' }]);
    const patch = s.requests.find((r) => r.method === 'PATCH');
    expect(patch?.body).toEqual({
      name: 'Support Bot',
      personality: { tone: 'friendly' },
      connections: { zendesk: { token: 'zd-secret-4242' } },
    });
    // The secret went to the service and nowhere else; the runner is told to mask it too.
    expect(apply.stdout).toContain('::add-mask::zd-secret-4242');
    const shown = apply.stdout.replace('::add-mask::zd-secret-4242', '');
    for (const text of [shown, apply.summary, JSON.stringify(apply.outputs)])
      expect(text).not.toContain('zd-secret-4242');
    expect(s.claws.get('claw-support-bot')?.skills.map((k) => k.skillId)).toEqual(['web-search', 'zendesk-tickets']);
  });

  it('apply refuses an unset secret, naming the file and the line, before any request', async () => {
    const s = await start();
    const { env } = workspace();
    const run = await runAction(inputs(s, { command: 'apply', 'auto-approve': 'true' }), { env });
    expect(run.errors).toEqual([
      "claws.yml, line 9: the environment variable ZENDESK_TOKEN is not set: expected it in the step's environment (env: on the step, from a secret) when applying.",
    ]);
    expect(run.outputs.outcome).toBe('error');
    expect(s.requests).toEqual([]);
  });

  it('drift fails on changes, and lists them Claw by Claw; passes once applied', async () => {
    const s = await start();
    const { env } = workspace('claws:\n  claw-support-bot:\n    config: {personality: {tone: friendly}}\n');
    const drift = await runAction(inputs(s, { command: 'drift' }), { env });
    expect(drift.exitCode).toBe(1);
    expect(drift.outputs).toMatchObject({ outcome: 'failed', changes: '1' });
    expect(drift.summary).toContain('### 📋 Drift for `claws.yml`: 1 change(s)');
    expect(drift.summary).toContain(
      '#### Claw `claw-support-bot`\n\n```diff\n! personality.tone: "formal" → "friendly"\n```',
    );
    await runAction(inputs(s, { command: 'apply', 'auto-approve': 'true', 'deploy-changed': 'false' }), { env });
    const clean = await runAction(inputs(s, { command: 'drift' }), { env });
    expect(clean.exitCode).toBe(0);
    expect(clean.summary).toContain('### ✅ Drift for `claws.yml`: no changes');
  });

  it('refuses a bad manifest before any request, with one error naming the line', async () => {
    const s = await start();
    const { env } = workspace('claws:\n  claw-support-bot:\n    skills: [web-search]\nprune: [everything]\n');
    const run = await runAction(inputs(s, { command: 'plan' }), { env });
    expect(run.errors).toEqual([`claws.yml, line 4: 'prune' holds "everything": expected one of skills, members.`]);
    expect(run.outputs.outcome).toBe('error');
    expect(s.requests).toEqual([]);
  });
});
