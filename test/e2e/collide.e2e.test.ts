// Pipelines that collide, and steps that could not do what they were asked, through dist/index.js.
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, type SimOptions } from '../sim/server.ts';
import { runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

describe('a Claw already deploying, end to end', () => {
  it('waits for the other deployment, then deploys; the summary shows the wait', async () => {
    const s = await start({ conflicts: 'named' });
    s.addClaw('c1', { plan: [['pending', 2000], ['live']] });
    // Theirs is in progress until the run says it waits for it (however slow the machine), then ends.
    const theirs = s.addDeployment('c1', [['deploying', 3_600_000], ['live']], 'dep_theirs');
    const run = await runAction(inputsFor(s), {
      onLine: (line) => {
        if (!line.includes('is in the way')) return;
        theirs.plan = [['deploying', 1000], ['live']];
        theirs.planStart = s.now();
      },
    });
    expect(run.exitCode).toBe(0);
    expect(run.outputs.outcome).toBe('succeeded');
    expect(run.outputs['deployment-id']).not.toBe('dep_theirs');
    expect(run.stdout).toContain('deployment dep_theirs is in the way');
    expect(run.summary).toMatch(
      /\| `dep_theirs` \| `in progress` \| in the way&#58; waited for it &#40;409 on the trigger&#41; \|/,
    );
    expect(run.summary).toMatch(/\| `dep_theirs` \| `live` \| success \|/);
  });

  it("'on-conflict: fail' fails at once with outcome error and one ::error:: naming it", async () => {
    const s = await start({ conflicts: 'named' });
    s.addClaw('c1');
    // Theirs is in progress for an hour of the simulator's time, however slow the machine starts the run.
    s.addDeployment('c1', [['deploying', 3_600_000], ['live']], 'dep_theirs');
    const run = await runAction(inputsFor(s, { 'on-conflict': 'fail' }));
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe('error');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain('deployment dep_theirs is in progress');
    expect(run.summary).toContain('⛔ Deployment of Claw `c1`: error');
  });

  it('refuses an unknown on-conflict value before any request', async () => {
    const s = await start();
    const run = await runAction(inputsFor(s, { 'on-conflict': 'queue' }));
    expect(run.errors).toEqual([`Input 'on-conflict' is "queue": expected one of wait, fail.`]);
    expect(run.outputs.outcome).toBe('error');
    expect(s.requests).toHaveLength(0);
  });
});

describe('outcome error: the step could not do what it was asked', () => {
  it.each<[string, Record<string, string>, SimOptions, string]>([
    ['a refused key', { 'api-key': 'not-the-key' }, {}, 'The API key was refused (401 unauthorized)'],
    [
      'a missing scope',
      {},
      { keys: { [DEMO_KEY]: ['deployments:read'] } },
      "lacks the 'deployments:write' scope needed for POST /v1/deployments",
    ],
    ['an unknown Claw', { 'claw-id': 'c404' }, {}, 'Claw "c404" was not found (404 on POST /v1/deployments)'],
  ])('%s', async (_, inputs, options, message) => {
    const s = await start(options);
    s.addClaw('c1');
    const run = await runAction(inputsFor(s, inputs));
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe('error');
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toContain(message);
    expect(run.summary).toContain('### ❌ Deploy: error');
  });

  it('an answer it could not use', async () => {
    const s = await start();
    s.addClaw('c1');
    s.fault({ kind: 'error', method: 'POST', path: '/deployments', status: 201, body: { accepted: true }, times: 5 });
    const run = await runAction(inputsFor(s));
    expect(run.outputs.outcome).toBe('error');
    expect(run.errors[0]).toMatch(
      /POST \/v1\/deployments answered 201 with \{"accepted":true\}; expected a deployment/,
    );
  });

  it.each([
    ['wait', { command: 'wait', 'deployment-id': 'dep_404' }],
    ['rollback', { command: 'rollback', 'deployment-id': 'dep_404' }],
    ['health', { command: 'health', 'api-key': 'not-the-key' }],
  ])('every command sets it: %s', async (_, inputs) => {
    const s = await start();
    s.addClaw('c1');
    const run = await runAction(inputsFor(s, inputs));
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe('error');
    expect(run.errors).toHaveLength(1);
  });

  it('never carries a bare runtime text: an id with a lone surrogate is refused, not "URI malformed"', async () => {
    const s = await start();
    s.addClaw('c1');
    s.fault({ kind: 'error', method: 'POST', path: '/deployments', status: 201, body: { id: 'dep-\ud800' }, times: 1 });
    const run = await runAction(inputsFor(s));
    expect(run.outputs.outcome).toBe('error');
    expect(run.errors[0]).toMatch(
      /^The service returned a deployment id "dep-.*", which is not used: expected an identifier/,
    );
    expect(run.stdout).not.toContain('URI malformed');
    expect(s.requests).toHaveLength(1);
  });
});
