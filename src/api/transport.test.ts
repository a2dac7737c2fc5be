// The transport against the simulator over real sockets: advice for each error, the key kept
// out of everything, one /v1, no redirects.
import { afterEach, describe, expect, it } from 'vitest';
import { Simulator } from '../../test/sim/server.ts';
import { type Harness, setup } from '../../test/support/setup.ts';
import { ApiError } from './errors.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('Transport', () => {
  it('sends the key with the scheme, JSON, and exactly one /v1', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    await h.client.getClaw('c1');
    expect(h.sim.requests[0]).toMatchObject({
      method: 'GET',
      path: '/v1/claws/c1',
      authorization: `Bearer ${'sim-demo-key-0123456789'}`,
    });
  });

  it('sends the bare key when the scheme is empty', async () => {
    h = await setup({ authScheme: '' }, { authScheme: '' });
    h.sim.addClaw('c1');
    await h.client.getClaw('c1');
    expect(h.sim.requests[0].authorization).toBe('sim-demo-key-0123456789');
  });

  it('percent-encodes identifiers in paths', async () => {
    h = await setup();
    h.sim.addClaw('claw:eu@1');
    const claw = await h.client.getClaw('claw:eu@1');
    expect(claw.id).toBe('claw:eu@1');
    expect(h.sim.requests[0].path).toBe('/v1/claws/claw%3Aeu%401');
  });

  it('explains 401 as the key', async () => {
    h = await setup({}, { apiKey: 'wrong-key-000' });
    const err = await failure(h.client.getDeployment('d1'));
    expect(err.kind).toBe('unauthorized');
    expect(err.message).toMatch(/API key was refused \(401 unauthorized\).*'api-key'/);
  });

  it('explains 403 with the scope the endpoint needs', async () => {
    h = await setup({ keys: { 'read-only-key': ['deployments:read', 'claws:read'] } }, { apiKey: 'read-only-key' });
    h.sim.addClaw('c1');
    const err = await failure(h.client.triggerDeployment({ clawId: 'c1' }));
    expect(err.kind).toBe('forbidden');
    expect(err.message).toContain("lacks the 'deployments:write' scope needed for POST /v1/deployments");
  });

  it('explains 404 by naming what was not found', async () => {
    h = await setup();
    const err = await failure(h.client.getDeployment('dep_missing'));
    expect(err.kind).toBe('not_found');
    expect(err.message).toContain('Deployment "dep_missing" was not found (404 on GET /v1/deployments/:id)');
    expect(err.message).toContain('no deployment dep_missing');
  });

  it('never lets the key out of what the service echoes back', async () => {
    h = await setup({ echoKey: true, keys: { 'echoed-secret-key': ['claws:read'] } }, { apiKey: 'echoed-secret-key' });
    h.sim.addClaw('c1');
    const claw = await h.client.getClaw('c1');
    expect(JSON.stringify(claw.raw)).not.toContain('echoed-secret-key');
    expect(JSON.stringify(claw.raw)).toContain('"authorization":"***"');
    const err = await failure(h.client.getDeployment('d1')); // 403: its message echoes nothing secret either
    expect(err.message).not.toContain('echoed-secret-key');
  });

  it('does not follow a redirect, so the key never reaches another origin', async () => {
    const elsewhere = new Simulator();
    const elsewhereUrl = await elsewhere.start();
    h = await setup({ redirectTo: elsewhereUrl });
    const err = await failure(h.client.getDeployment('d1'));
    expect(err.kind).toBe('redirect');
    expect(err.message).toContain('not followed');
    expect(elsewhere.requests).toHaveLength(0);
    await elsewhere.stop();
  });

  it.each(['..', '.', 'a/b'])('never puts %j into a path, whoever supplied it', async (id) => {
    h = await setup();
    expect(() => h?.transport.url({ route: '/deployments/:id/rollback', params: { id } })).toThrow(
      /not a usable identifier/,
    );
    await expect(h.client.getDeployment(id)).rejects.toThrow(/not a usable identifier/);
    expect(h.sim.requests).toHaveLength(0);
  });

  it('refuses a next-page link to another origin', async () => {
    h = await setup();
    expect(() => h?.transport.url({ route: '/claws', url: 'https://evil.example/v1/claws?page=2' })).toThrow(
      /not followed/,
    );
    expect(h.transport.url({ route: '/claws', url: '/v1/claws?cursor=2' })).toBe(`${h.sim.url}/v1/claws?cursor=2`);
  });
});

describe('the deadline', () => {
  it('an exchange cut short by the deadline is the deadline, not the service failing', async () => {
    h = await setup({}, { requestTimeoutMs: 30_000 });
    h.sim.addClaw('c1');
    h.sim.fault({ kind: 'hang', method: 'GET', path: '/claws/', times: 1 });
    const err = await failure(
      h.transport.request({
        method: 'GET',
        route: '/claws/:id',
        params: { id: 'c1' },
        scope: 'claws:read',
        what: 'Claw "c1"',
        deadline: h.clock.now() + 50,
      }),
    );
    expect(err.kind).toBe('deadline');
    expect(err.message).toBe('GET /v1/claws/:id: no response before the deadline.');
    expect(err.failing).toBeUndefined();
  });
});
