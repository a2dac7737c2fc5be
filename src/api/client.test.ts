// Every endpoint of the spec through the typed client, against the simulator.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, setup } from '../../test/support/setup.ts';
import { ApiError } from './errors.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

describe('AmsClient', () => {
  it('Claws: create, get, list, update, delete', async () => {
    h = await setup({ shape: 'data-envelope' });
    const created = await h.client.createClaw({ id: 'c9', name: 'Nine' });
    expect(created).toMatchObject({ id: 'c9', name: 'Nine' });
    expect(await h.client.getClaw('c9')).toMatchObject({ id: 'c9', name: 'Nine', status: 'online' });
    expect((await h.client.updateClaw('c9', { name: 'Renamed' })).name).toBe('Renamed');
    expect((await h.client.listClaws()).map((c) => c.id)).toEqual(['c9']);
    await h.client.deleteClaw('c9');
    await expect(h.client.getClaw('c9')).rejects.toThrow('Claw "c9" was not found');
    expect(h.sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/claws',
      'GET /v1/claws/c9',
      'PATCH /v1/claws/c9',
      'GET /v1/claws',
      'DELETE /v1/claws/c9',
      'GET /v1/claws/c9',
    ]);
  });

  it('deployments: trigger, get, list (filtered by Claw), roll back', async () => {
    h = await setup({ shape: 'named-envelope', rollbackForm: 'new-deployment' });
    h.sim.addClaw('c1');
    h.sim.addClaw('c2');
    const d = await h.client.triggerDeployment({ clawId: 'c1', strategy: 'batched' });
    await h.client.triggerDeployment({ clawId: 'c2' });
    expect(d).toMatchObject({ id: 'dep_0001', clawId: 'c1', status: 'pending' });
    expect((await h.client.getDeployment(d.id)).raw.strategy).toBe('batched');
    expect((await h.client.listDeployments()).map((x) => x.id).sort()).toEqual(['dep_0001', 'dep_0002']);
    expect((await h.client.listDeployments({ clawId: 'c1' })).map((x) => x.id)).toEqual(['dep_0001']);
    const rollback = await h.client.rollbackDeployment(d.id);
    expect(rollback?.id).toBe('dep_0003');
    expect(rollback?.raw.rollbackOf).toBe('dep_0001');
  });

  it('skills: install, list, remove', async () => {
    h = await setup({ shape: 'items-list' });
    h.sim.addClaw('c1');
    expect(await h.client.installSkill('c1', 'web-search')).toMatchObject({ skillId: 'web-search' });
    await h.client.installSkill('c1', 'calendar', { config: { tz: 'UTC' } });
    expect((await h.client.listSkills('c1')).map((s) => s.skillId)).toEqual(['web-search', 'calendar']);
    await h.client.removeSkill('c1', 'web-search');
    expect((await h.client.listSkills('c1')).map((s) => s.skillId)).toEqual(['calendar']);
    await expect(h.client.removeSkill('c1', 'web-search')).rejects.toThrow(
      'Skill "web-search" on Claw "c1" was not found',
    );
    expect(h.sim.requests.find((r) => r.method === 'POST' && (r.body as { config?: unknown }).config)).toBeDefined();
  });

  it('team: invite, list, update role, remove', async () => {
    h = await setup();
    const member = await h.client.inviteMember({ email: 'ada@example.com', role: 'viewer' });
    expect(member).toMatchObject({ id: 'mem_0001', email: 'ada@example.com', role: 'viewer' });
    expect((await h.client.updateMemberRole('mem_0001', 'admin')).role).toBe('admin');
    expect((await h.client.listMembers()).map((m) => m.role)).toEqual(['admin']);
    await h.client.removeMember('mem_0001');
    expect(await h.client.listMembers()).toEqual([]);
    await expect(h.client.removeMember('mem_0001')).rejects.toThrow('Team member "mem_0001" was not found');
  });

  it('sends every write with an Idempotency-Key, the same on its retries', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    h.sim.fault({ kind: '502-html', method: 'POST', path: '/claws/c1/skills', times: 2 });
    await h.client.installSkill('c1', 'web-search');
    await h.client.updateClaw('c1', { name: 'x' });
    await h.client.removeSkill('c1', 'web-search');
    const writes = h.sim.requests.filter((r) => r.method !== 'GET');
    expect(writes.map((r) => r.method)).toEqual(['POST', 'POST', 'POST', 'PATCH', 'DELETE']);
    const keys = writes.map((r) => r.idempotencyKey);
    expect(keys.every((k) => typeof k === 'string' && k.length > 0)).toBe(true);
    expect(new Set(keys.slice(0, 3)).size).toBe(1); // one install, three tries, one key
    expect(new Set(keys).size).toBe(3);
    expect(h.sim.claws.get('c1')?.skills).toHaveLength(0);
  });

  it('chat and tasks: send, history, poll', async () => {
    h = await setup();
    h.sim.addClaw('sync', { chat: { mode: 'sync', reply: 'hello there' } });
    h.sim.addClaw('slow', { chat: { mode: 'task', taskMs: 3000, reply: 'done thinking' } });
    expect(await h.client.sendMessage('sync', 'hi')).toMatchObject({ reply: 'hello there' });
    const answer = await h.client.sendMessage('slow', 'think');
    expect(typeof answer.taskId).toBe('string');
    expect((await h.client.getTask(String(answer.taskId))).status).toBe('running');
    h.clock.advance(3000);
    const task = await h.client.getTask(String(answer.taskId));
    expect(task).toMatchObject({ status: 'completed', raw: { result: { reply: 'done thinking' } } });
    expect(await h.client.getHistory('sync')).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'claw', content: 'hello there' },
    ]);
    expect(h.sim.requests.find((r) => r.method === 'POST')?.body).toEqual({ message: 'hi' });
  });

  it.each(['cursor', 'link'] as const)('follows a next %s through every page', async (paging) => {
    h = await setup({ pageSize: 2, paging, shape: 'data-envelope' });
    for (let i = 1; i <= 5; i++) h.sim.addClaw(`c${i}`);
    expect((await h.client.listClaws()).map((c) => c.id)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(h.sim.requests.map((r) => r.path)).toEqual(
      paging === 'cursor'
        ? ['/v1/claws', '/v1/claws?cursor=2', '/v1/claws?cursor=4']
        : ['/v1/claws', '/v1/claws?offset=2', '/v1/claws?offset=4'],
    );
  });

  it('says what arrived when a list or an object cannot be read', async () => {
    h = await setup();
    h.sim.fault({ kind: 'error', status: 200, body: { message: 'maintenance window' }, method: 'GET', times: 1 });
    const err = (await h.client.listClaws().catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe(
      'GET /v1/claws answered 200 with {"message":"maintenance window"}; expected a list of claws.',
    );
    h.sim.fault({ kind: 'error', status: 201, body: { accepted: true }, method: 'POST', times: 1 });
    h.sim.addClaw('c1');
    await expect(h.client.triggerDeployment({ clawId: 'c1' })).rejects.toThrow(
      'POST /v1/deployments answered 201 with {"accepted":true}; expected a deployment id.',
    );
  });
});
