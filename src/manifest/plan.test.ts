// Plan, apply and drift against the simulator, on one fake clock.
import { afterEach, describe, expect, it } from 'vitest';
import type { SimOptions } from '../../test/sim/server.ts';
import { type Harness, policy, setup } from '../../test/support/setup.ts';
import { applyCommand, driftCommand, planCommand } from '../commands/manifest.js';
import { parseManifest } from './manifest.js';
import { PlanRefusal, makePlan } from './plan.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

async function service(options: SimOptions = {}): Promise<Harness> {
  h = await setup({ rollbackForm: 'new-deployment', ...options });
  h.sim.addClaw('claw-support-bot', {
    plan: [['live']],
    config: { personality: { tone: 'formal', language: 'en' }, region: 'eu' },
    skills: [{ skillId: 'web-search' }, { skillId: 'old-skill' }],
  });
  h.sim.addClaw('claw-other', { plan: [['live']], config: { personality: { tone: 'dry' } } });
  h.sim.addMember('alice@example.com', 'admin');
  h.sim.addMember('bob@example.com', 'member');
  h.sim.addMember('carol@example.com', 'member', 'pending');
  return h;
}

const manifest = (text: string, env: NodeJS.ProcessEnv = {}) => parseManifest('claws.yml', text, env);
const writes = (harness: Harness) => harness.sim.requests.filter((r) => r.method !== 'GET');

const SUPPORT = `claws:
  claw-support-bot:
    config:
      name: Support Bot
      personality:
        tone: friendly
    skills: [web-search, zendesk-tickets]
`;

describe('plan', () => {
  it('computes the writes, in apply order, and writes nothing', async () => {
    const harness = await service();
    const plan = await makePlan(
      harness.deps,
      manifest(
        `${SUPPORT}team:\n  members:\n    alice@example.com: admin\n    dave@example.com: member\n    bob@example.com: admin\n`,
      ),
    );
    expect(plan.operations.map((o) => [o.kind, o.target, o.skill ?? o.after ?? ''])).toEqual([
      ['update-claw', 'claw-support-bot', ''],
      ['install-skill', 'claw-support-bot', 'zendesk-tickets'],
      ['invite-member', 'dave@example.com', 'member'],
      ['change-role', 'bob@example.com', 'admin'],
    ]);
    expect(plan.operations[0].changes).toEqual([
      { path: ['name'], action: 'change', before: 'claw-support-bot', after: 'Support Bot' },
      { path: ['personality', 'tone'], action: 'change', before: 'formal', after: 'friendly' },
    ]);
    expect(plan.changes).toBe(4);
    expect(plan.id).toMatch(/^[0-9a-f]{16}$/);
    expect(writes(harness)).toEqual([]);
  });

  it('is additive by default: nothing installed or on the team is removed; a pending invitation counts as present', async () => {
    const harness = await service();
    const plan = await makePlan(harness.deps, manifest(`${SUPPORT}team:\n  members:\n    carol@example.com: member\n`));
    expect(plan.operations.map((o) => o.kind)).toEqual(['update-claw', 'install-skill']);
  });

  it('prunes only what prune names', async () => {
    const harness = await service();
    const skills = await makePlan(
      harness.deps,
      manifest(`${SUPPORT}team:\n  members:\n    alice@example.com: admin\nprune: [skills]\n`),
    );
    expect(skills.operations.filter((o) => o.kind.startsWith('remove'))).toEqual([
      { kind: 'remove-skill', target: 'claw-support-bot', skill: 'old-skill' },
    ]);
    const members = await makePlan(
      harness.deps,
      manifest(`team:\n  members:\n    alice@example.com: admin\nprune: [members]\n`),
    );
    expect(members.operations.map((o) => [o.kind, o.target])).toEqual([
      ['remove-member', 'bob@example.com'],
      ['remove-member', 'carol@example.com'],
    ]);
  });

  it('has the same id with and without the secrets (a plan on a fork), and lists them write-only', async () => {
    const harness = await service({ writeOnly: ['connections.zendesk.token'] });
    const text = `claws:\n  claw-support-bot:\n    config:\n      connections:\n        zendesk:\n          token: { env: ZENDESK_TOKEN }\n`;
    const without = await makePlan(harness.deps, manifest(text, {}));
    const withSecret = await makePlan(harness.deps, manifest(text, { ZENDESK_TOKEN: 'zd-secret' }));
    expect(without.id).toBe(withSecret.id);
    expect(withSecret.changes).toBe(0);
    expect(withSecret.writeOnly.map((w) => w.path.join('.'))).toEqual(['connections.zendesk.token']);
    expect(JSON.stringify(withSecret.operations)).not.toContain('zd-secret');
  });

  it.each<[string, string, RegExp]>([
    [
      'an unknown Claw without create',
      'claws:\n  claw-missing: {config: {name: X}}\n',
      /^claws\.yml, line 2: Claw claw-missing does not exist \(404 on GET \/v1\/claws\/:id\): expected an existing Claw, or 'create: true'/,
    ],
    [
      'members in prune with no members',
      'team:\n  members:\nprune: [members]\n',
      /^claws\.yml, line 2: 'team\.members' is empty and 'prune' names members: that would remove everyone\./,
    ],
    [
      'skills in prune with no skills',
      'claws:\n  claw-support-bot: {skills: []}\nprune: [skills]\n',
      /^claws\.yml, line 2: Claw claw-support-bot declares no skills and 'prune' names skills: that would remove every skill it has\./,
    ],
    [
      'removing the last admin',
      'team:\n  members:\n    bob@example.com: member\n    carol@example.com: member\nprune: [members]\n',
      /^claws\.yml, line 2: the plan would remove or demote the last member with an owner or admin role \(alice@example\.com\)/,
    ],
    [
      'demoting the last admin',
      'team:\n  members:\n    alice@example.com: member\n',
      /the plan would remove or demote the last member with an owner or admin role \(alice@example\.com\)/,
    ],
  ])('refuses %s, naming it', async (_, text, message) => {
    const harness = await service();
    const refused = makePlan(harness.deps, manifest(text));
    await expect(refused).rejects.toBeInstanceOf(PlanRefusal);
    await expect(refused).rejects.toThrow(message);
    expect(writes(harness)).toEqual([]);
  });

  it('lists a write whose id from the service is unusable as "cannot be applied"; the ordinary prune goes ahead', async () => {
    const harness = await service();
    harness.sim.addClaw('claw-hostile', {
      plan: [['live']],
      skills: [{ skillId: 'kept' }, { skillId: '..' }, { skillId: 'stale' }],
    });
    harness.sim.addMember('eve@example.com', 'member', 'active', '../admin');
    const text = `claws:
  claw-hostile:
    skills: [kept]
team:
  members:
    alice@example.com: admin
prune: [skills, members]
`;
    const plan = await makePlan(harness.deps, manifest(text));
    expect(plan.blocked.map((b) => [b.operation.kind, b.operation.target, b.operation.skill])).toEqual([
      ['remove-skill', 'claw-hostile', '..'],
      ['remove-member', 'eve@example.com', undefined],
    ]);
    expect(plan.blocked[0].reason).toMatch(/^the skill id "\.\." is not usable in a path/);
    expect(plan.blocked[1].reason).toMatch(/^the member id "\.\.\/admin" is not usable in a path/);
    expect(plan.operations.map((o) => [o.kind, o.skill ?? o.target])).toEqual([
      ['remove-skill', 'stale'],
      ['remove-member', 'bob@example.com'],
      ['remove-member', 'carol@example.com'],
    ]);
    // The id covers the list: a plan without the blocked writes is another plan.
    const { makePlan: again } = await import('./plan.js');
    harness.sim.addMember('frank@example.com', 'member', 'active', 'a/b');
    expect((await again(harness.deps, manifest(text))).id).not.toBe(plan.id);
    // Apply writes the rest, and never a path built from a blocked id.
    const result = await applyCommand(
      harness.deps,
      manifest(text),
      {
        planId: '',
        rewriteSecrets: false,
        deployChanged: false,
        fleet: { strategy: '', payload: {}, waves: [], bakeMs: 0, maxFailures: { count: 0 }, probeMessage: '' },
      },
      policy(),
    );
    expect(result.ok).toBe(true);
    const deletes = writes(harness).map((r) => `${r.method} ${r.path}`);
    expect(deletes).toContain('DELETE /v1/claws/claw-hostile/skills/stale');
    expect(deletes.some((d) => d.includes('..') || /%2e%2e|%2f/i.test(d))).toBe(false);
    expect(harness.log.text('warning')).toMatch(
      /^3 operation\(s\) cannot be applied and are left out of the plan: remove skill \.\. from claw-hostile/,
    );
  });

  it('refuses to prune members from a list it could not read completely', async () => {
    const harness = await service();
    harness.sim.fault({ kind: 'error', status: 422, method: 'GET', path: '/team/members', times: 1 });
    await expect(
      makePlan(harness.deps, manifest('team:\n  members:\n    alice@example.com: admin\nprune: [members]\n')),
    ).rejects.toThrow(
      /^The team's members could not be read completely, so none is pruned: GET \/v1\/team\/members failed with 422/,
    );
  });
});

describe('apply', () => {
  const options = (planId = '') => ({
    planId,
    rewriteSecrets: false,
    deployChanged: true,
    fleet: { strategy: '', payload: {}, waves: [], bakeMs: 0, maxFailures: { count: 0 }, probeMessage: '' },
  });

  it('writes in order, then deploys only the Claws that changed', async () => {
    const harness = await service();
    const text = `${SUPPORT}  claw-sales-bot:\n    create: true\n    config: { name: Sales Bot }\n  claw-other:\n    config: { personality: { tone: dry } }\nteam:\n  members:\n    dave@example.com: member\n`;
    const result = await applyCommand(harness.deps, manifest(text), options(), policy());
    expect(result).toMatchObject({ ok: true, outcome: 'succeeded' });
    expect(writes(harness).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/claws',
      'PATCH /v1/claws/claw-support-bot',
      'POST /v1/claws/claw-support-bot/skills',
      'POST /v1/team/members',
      'POST /v1/deployments',
      'POST /v1/deployments',
    ]);
    // Writes carry an Idempotency-Key; the merge patch holds only what changed.
    expect(writes(harness).every((r) => r.idempotencyKey)).toBe(true);
    expect(writes(harness)[1].body).toEqual({ name: 'Support Bot', personality: { tone: 'friendly' } });
    expect(harness.sim.claws.get('claw-support-bot')?.config).toEqual({
      personality: { tone: 'friendly', language: 'en' },
      region: 'eu',
    });
    // claw-other matched already: it is not deployed.
    expect(result.rollout?.entries.map((e) => e.clawId)).toEqual(['claw-sales-bot', 'claw-support-bot']);
    expect(harness.sim.triggered('claw-other')).toEqual([]);
  });

  it('refuses a plan that is not the reviewed one, writing nothing', async () => {
    const harness = await service();
    const reviewed = (await planCommand(harness.deps, manifest(SUPPORT))).plan.id;
    // Someone changes the dashboard after the review.
    harness.sim.claws.get('claw-support-bot')!.config.personality = { tone: 'friendly', language: 'en' };
    const result = await applyCommand(harness.deps, manifest(SUPPORT), options(reviewed), policy());
    expect(result).toMatchObject({ ok: false, outcome: 'failed' });
    expect(result.message).toMatch(
      new RegExp(`^The plan is not the reviewed one \\(reviewed ${reviewed}, now [0-9a-f]{16}\\)`),
    );
    expect(writes(harness)).toEqual([]);
  });

  it('stops at the first write that fails, says what was and was not applied, and deploys nothing', async () => {
    const harness = await service();
    harness.sim.fault({
      kind: 'error',
      status: 403,
      method: 'POST',
      path: '/claws/claw-support-bot/skills',
      times: 1,
      body: { error: { code: 'forbidden', message: 'no', status: 403 } },
    });
    const result = await applyCommand(
      harness.deps,
      manifest(`${SUPPORT}team:\n  members:\n    dave@example.com: member\n`),
      options(),
      policy(),
    );
    expect(result).toMatchObject({ ok: false, outcome: 'failed' });
    expect(result.apply?.applied.map((o) => o.kind)).toEqual(['update-claw']);
    expect(result.apply?.failed?.message).toContain("lacks the 'skills:write' scope");
    expect(result.apply?.notApplied.map((o) => o.kind)).toEqual(['invite-member']);
    expect(result.message).toMatch(
      /^Apply stopped at the first write that failed \(install skill zendesk-tickets on claw-support-bot: .*\)\. 1 of 3 change\(s\) applied; not applied: invite dave@example\.com as member\. Nothing was deployed\.$/,
    );
    expect(harness.sim.triggered()).toEqual([]);
  });

  it('takes a DELETE that answers 404 as done', async () => {
    const harness = await service();
    harness.sim.fault({
      kind: 'error',
      status: 404,
      method: 'DELETE',
      path: '/claws/claw-support-bot/skills/old-skill',
      times: 1,
      body: { error: { code: 'not_found', message: 'gone', status: 404 } },
    });
    const result = await applyCommand(
      harness.deps,
      manifest(`${SUPPORT}prune: [skills]\n`),
      { ...options(), deployChanged: false },
      policy(),
    );
    expect(result).toMatchObject({ ok: true, outcome: 'succeeded' });
    expect(result.apply?.applied.map((o) => o.kind)).toEqual(['update-claw', 'install-skill', 'remove-skill']);
  });

  it('sends write-only secrets with a patch of their Claw, or alone only with rewrite-secrets', async () => {
    const harness = await service({ writeOnly: ['connections.zendesk.token'] });
    const text = `claws:\n  claw-support-bot:\n    config:\n      connections:\n        zendesk:\n          token: { env: ZENDESK_TOKEN }\n`;
    const env = { ZENDESK_TOKEN: 'zd-secret' };
    const quiet = await applyCommand(
      harness.deps,
      manifest(text, env),
      { ...options(), deployChanged: false },
      policy(),
    );
    expect(quiet.apply?.applied).toEqual([]);
    expect(writes(harness)).toEqual([]);
    const rotated = await applyCommand(
      harness.deps,
      manifest(text, env),
      { ...options(), rewriteSecrets: true, deployChanged: false },
      policy(),
    );
    expect(rotated.apply?.secretsRewritten).toEqual(['claw-support-bot']);
    expect(writes(harness).map((r) => r.body)).toEqual([{ connections: { zendesk: { token: 'zd-secret' } } }]);
  });
});

describe('drift', () => {
  it('fails on changes, unless told not to; passes when the service matches', async () => {
    const harness = await service();
    const drifted = await driftCommand(harness.deps, manifest(SUPPORT), true);
    expect(drifted).toMatchObject({ ok: false, outcome: 'failed' });
    expect(drifted.message).toMatch(
      /^Drift: the service differs from claws\.yml in 2 place\(s\): update Claw claw-support-bot \(name, personality\.tone\); install skill zendesk-tickets on claw-support-bot\.$/,
    );
    expect((await driftCommand(harness.deps, manifest(SUPPORT), false)).ok).toBe(true);
    const matching = await driftCommand(
      harness.deps,
      manifest('claws:\n  claw-other:\n    config: {personality: {tone: dry}}\n'),
      true,
    );
    expect(matching).toMatchObject({
      ok: true,
      outcome: 'succeeded',
      message: 'No drift: the service matches claws.yml.',
    });
  });
});
