// The health command against the simulator: verdicts, `*` over paged lists, and the chat probe.
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../test/sim/server.ts';
import { type Harness, setup, timeout } from '../../test/support/setup.ts';
import type { CheckEntry, ChecksResult } from '../checks/result.js';
import { statusClassifier } from '../shared/status.js';
import { type HealthRequest, checkHealth } from './health.js';
import { clawVerdict } from './verdict.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const request = (overrides: Partial<HealthRequest> = {}): HealthRequest => ({
  targets: { all: false, ids: ['c1'] },
  probeMessage: '',
  pollIntervalMs: 2000,
  classify: statusClassifier(),
  ...overrides,
});

describe('clawVerdict', () => {
  const classify = statusClassifier();
  it.each([
    [['online', 'live'], 'healthy'],
    [['running', undefined], 'healthy'],
    [[undefined, 'ready'], 'healthy'],
    [['offline', 'live'], 'unhealthy'],
    [['online', 'crashed'], 'unhealthy'],
    [['degraded', undefined], 'unhealthy'],
    [['online', 'paused'], 'unhealthy'],
    [['online', 'deploying'], 'unknown'],
    [[undefined, undefined], 'unknown'],
    [['mysterious', undefined], 'unknown'],
    // Rolled back: it serves the previous release; its own status decides.
    [['online', 'rolled_back'], 'healthy'],
    [[undefined, 'rolled_back'], 'healthy'],
    [['offline', 'rolled_back'], 'unhealthy'],
  ] as const)('%j → %s', (words, verdict) => expect(clawVerdict([...words], classify).verdict).toBe(verdict));
});

describe('checkHealth', () => {
  it('reads healthy, unhealthy and unknown Claws', async () => {
    h = await setup();
    h.sim.addClaw('ok');
    h.sim.addDeployment('ok', [['live']]);
    h.sim.addClaw('down', { status: 'offline' });
    h.sim.addClaw('crashed');
    h.sim.addDeployment('crashed', [['crashed']]);
    h.sim.addClaw('blank', { status: undefined });
    const result = await checkHealth(
      h.deps,
      request({ targets: { all: false, ids: ['ok', 'down', 'crashed', 'blank', 'ghost'] } }),
    );
    expect(result.healthy).toBe(false);
    expect(result.entries.map((e) => [e.clawId, e.verdict])).toEqual([
      ['ok', 'healthy'],
      ['down', 'unhealthy'],
      ['crashed', 'unhealthy'],
      ['blank', 'unknown'],
      ['ghost', 'unhealthy'],
    ]);
    expect(result.entries[0].status).toBe('online / live');
    expect(result.entries[3].detail).toBe('no status could be read from the Claw');
    expect(result.entries[4].detail).toContain('Claw "ghost" was not found');
    expect(result.message).toBe(
      '4 of 5 Claws are not healthy: down (unhealthy), crashed (unhealthy), blank (unknown), ghost (unhealthy).',
    );
  });

  it('checks every Claw for *, following paged lists', async () => {
    h = await setup({ pageSize: 2, shape: 'data-envelope' });
    for (let i = 1; i <= 5; i++) h.sim.addClaw(`c${i}`);
    const result = await checkHealth(h.deps, request({ targets: { all: true, ids: [] } }));
    expect(result.healthy).toBe(true);
    expect(result.entries.map((e) => e.clawId)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(result.message).toBe('All 5 Claws are healthy.');
  });

  it('probes by chat: a synchronous reply that matches', async () => {
    h = await setup();
    h.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'PONG from c1' } });
    const result = await checkHealth(h.deps, request({ probeMessage: 'ping', probeExpect: /pong/i }));
    expect(result.entries[0]).toMatchObject({
      healthy: true,
      reply: 'PONG from c1',
      detail: 'probe: reply matches /pong/',
    });
  });

  it('probes by chat: a reply through a task', async () => {
    h = await setup();
    h.sim.addClaw('c1', { chat: { mode: 'task', taskMs: 7000, reply: 'pong' } });
    const result = await checkHealth(h.deps, request({ probeMessage: 'ping', probeExpect: /^pong$/ }));
    expect(result.entries[0]).toMatchObject({ healthy: true, reply: 'pong' });
    expect(result.entries[0].latencyMs).toBeGreaterThanOrEqual(7000);
    expect(h.sim.requests.filter((r) => r.path.startsWith('/v1/tasks/')).length).toBeGreaterThanOrEqual(2);
  });

  it('a reply that does not match is unhealthy, and shows the reply', async () => {
    h = await setup();
    h.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'I am confused' } });
    const result = await checkHealth(h.deps, request({ probeMessage: 'ping', probeExpect: /pong/ }));
    expect(result.entries[0]).toMatchObject({
      healthy: false,
      verdict: 'unhealthy',
      reply: 'I am confused',
      detail: 'probe: reply does not match /pong/',
    });
  });

  it("a task that never ends before the deadline is unknown (the run's timeout, not the Claw's fault), and the check ends at the deadline", async () => {
    h = await setup();
    h.sim.addClaw('c1', { chat: { mode: 'never' } });
    timeout(h, 20_000);
    const result = await checkHealth(h.deps, request({ probeMessage: 'ping' }));
    expect(result.entries[0]).toMatchObject({ healthy: false, verdict: 'unknown', cause: 'deadline' });
    expect(result.entries[0].detail).toMatch(/task task_\d+ still running at the deadline/);
    expect(h.clock.now() - h.deps.startedAt).toBe(20_000);
  });

  it('tries a failed probe once more a short while later: a blip passes, a second failure counts', async () => {
    h = await setup();
    h.sim.addClaw('blip', { chat: { mode: 'sync', respond: (_m, n) => (n === 1 ? 'busy' : 'pong') } });
    h.sim.addClaw('broken', { chat: { mode: 'sync', reply: 'I am confused' } });
    const result = await checkHealth(
      h.deps,
      request({
        targets: { all: false, ids: ['blip', 'broken'] },
        probeMessage: 'ping',
        probeExpect: /pong/,
        probeRetryMs: 5000,
      }),
    );
    expect(result.entries.map((e) => [e.clawId, e.verdict, e.failure?.kind])).toEqual([
      ['blip', 'healthy', undefined],
      ['broken', 'unhealthy', 'probe'],
    ]);
    const chats = (id: string) =>
      h!.sim.requests.filter((r) => r.method === 'POST' && r.path === `/v1/chat/${id}/messages`);
    expect(chats('blip')).toHaveLength(2);
    expect(chats('broken')).toHaveLength(2);
    expect(h.clock.sleeps.filter((ms) => ms === 5000)).toHaveLength(2);
    expect(h.log.text('info')).toContain(
      'blip: the probe failed (reply does not match /pong/); trying once more in 5s.',
    );
  });

  it('a Claw the service cannot answer for (5xx past its retries) is unknown, caused by the service; a missing one is down', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    h.sim.fault({ kind: '503', path: '/claws/c1', times: 1000 });
    timeout(h, 10_000);
    const result = await checkHealth(h.deps, request({ targets: { all: false, ids: ['c1', 'ghost'] } }));
    expect(result.entries.map((e) => [e.verdict, e.cause, e.failure?.kind])).toEqual([
      ['unknown', 'service', undefined],
      ['unhealthy', undefined, 'down'],
    ]);
  });

  it('every Claw asked for missing: the list asked once; listed, they are down, each its own verdict', async () => {
    h = await setup();
    h.sim.addClaw('other');
    const result = await checkHealth(h.deps, request({ targets: { all: false, ids: ['ghost', 'gone'] } }));
    expect(result.entries.map((e) => [e.clawId, e.verdict, e.failure?.kind])).toEqual([
      ['ghost', 'unhealthy', 'down'],
      ['gone', 'unhealthy', 'down'],
    ]);
    expect(h.sim.requests.filter((r) => r.method === 'GET' && r.path === '/v1/claws')).toHaveLength(1);
  });

  it('one Claw missing beside one found: the list is not asked for', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    await checkHealth(h.deps, request({ targets: { all: false, ids: ['c1', 'ghost'] } }));
    expect(h.sim.requests.filter((r) => r.method === 'GET' && r.path === '/v1/claws')).toHaveLength(0);
  });

  it('a failed check makes a Claw unhealthy; a check that could not be judged makes it unknown', async () => {
    h = await setup();
    h.sim.addClaw('rude');
    h.sim.addClaw('unjudged');
    const entry = (clawId: string, check: string, failures: number, errors: number): CheckEntry => ({
      check,
      clawId,
      passed: false,
      passes: 0,
      attempts: 1,
      repeat: 1,
      minPass: 1,
      failures,
      errors,
      replies: [],
    });
    const checks = async (): Promise<ChecksResult> => ({
      passed: false,
      entries: [entry('rude', 'polite', 1, 0), entry('rude', 'greets', 1, 0), entry('unjudged', 'polite', 0, 1)],
    });
    const result = await checkHealth(h.deps, request({ targets: { all: false, ids: ['rude', 'unjudged'] }, checks }));
    expect(result.entries.map((e) => [e.verdict, e.failure, e.cause])).toEqual([
      ['unhealthy', { kind: 'checks', checks: ['greets', 'polite'] }, undefined],
      ['unknown', undefined, 'judge'],
    ]);
  });

  it('a cancel during the checks ends the run as cancelled: no Claw is judged on half a run', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    const checks = async (): Promise<ChecksResult> => ({ passed: false, entries: [], cancelled: true });
    await expect(checkHealth(h.deps, request({ checks }))).rejects.toThrow(/cancel/i);
  });

  it('keeps the current deployment of each Claw', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    const dep = h.sim.addDeployment('c1', [['live']]);
    const result = await checkHealth(h.deps, request());
    expect(result.entries[0]).toMatchObject({ healthy: true, deploymentId: dep.id });
  });

  it('says plainly when the key may not read tasks', async () => {
    h = await setup(
      { keys: { 'no-task-key': ALL_SCOPES.filter((s) => s !== 'chat:read') } },
      { apiKey: 'no-task-key' },
    );
    h.sim.addClaw('c1', { chat: { mode: 'task' } });
    const result = await checkHealth(h.deps, request({ probeMessage: 'ping' }));
    expect(result.entries[0]).toMatchObject({ healthy: false, verdict: 'unknown' });
    expect(result.entries[0].detail).toContain('the key may not read tasks (403 on GET /v1/tasks/:taskId)');
    expect(result.entries[0].detail).toContain('The spec names no scope for it');
  });

  it('says what arrived when no reply text can be found', async () => {
    h = await setup();
    h.sim.addClaw('c1');
    h.sim.fault({ kind: 'error', status: 200, body: { ok: true, tokens: 3 }, method: 'POST', times: 1 });
    const result = await checkHealth(h.deps, request({ probeMessage: 'ping' }));
    expect(result.entries[0].detail).toBe('probe: no reply text found in {"ok":true,"tokens":3}');
  });

  it('checks Claws concurrently, within the pacing: four in flight at most, no 429', async () => {
    h = await setup({ rateLimit: { limit: 6, windowMs: 60_000 }, holdMs: 5 });
    for (let i = 1; i <= 12; i++) h.sim.addClaw(`c${i}`);
    const result = await checkHealth(h.deps, request({ targets: { all: true, ids: [] } }));
    expect(result.healthy).toBe(true);
    expect(result.entries).toHaveLength(12);
    expect(h.sim.maxInFlight).toBe(4);
    expect(h.sim.rateLimit.rejected).toBe(0);
    expect(h.log.text('warning')).not.toMatch(/429/);
  });

  it('follows an RFC 8288 Link header to every page of *, and finds the offline Claw on page two', async () => {
    h = await setup({ pageSize: 2, paging: 'link-header' });
    for (let i = 1; i <= 3; i++) h.sim.addClaw(`c${i}`, { status: i === 3 ? 'offline' : 'online' });
    const result = await checkHealth(h.deps, request({ targets: { all: true, ids: [] } }));
    expect(result.entries.map((e) => e.clawId)).toEqual(['c1', 'c2', 'c3']);
    expect(result.healthy).toBe(false);
    expect(h.sim.requests.filter((r) => r.path.startsWith('/v1/claws?offset='))).toHaveLength(1);
  });

  it('never takes an echo of the probe for the reply: a dead Claw fails and the detail says what arrived', async () => {
    h = await setup();
    h.sim.addClaw('c1', { chat: { mode: 'sync', reply: '', echo: true } });
    const probe = 'Health check: reply with the word pong.';
    const result = await checkHealth(h.deps, request({ probeMessage: probe, probeExpect: /pong/i }));
    expect(result.entries[0]).toMatchObject({ healthy: false, verdict: 'unhealthy' });
    expect(result.entries[0].detail).toMatch(
      /^probe: the answer only echoes the message sent \(no 'role': 'assistant' or other speaker field marks it as the Claw's reply\) in \{"message":/,
    );
  });

  it('reads the reply beside an echo', async () => {
    h = await setup();
    h.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'pong', echo: true } });
    const result = await checkHealth(h.deps, request({ probeMessage: 'say pong', probeExpect: /^pong$/i }));
    expect(result.entries[0]).toMatchObject({ healthy: true, reply: 'pong' });
  });

  it('a Claw whose deployment was rolled back in place is healthy when its own status allows, and is probed', async () => {
    h = await setup({ rollbackForm: 'in-place' });
    h.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'pong' } });
    const dep = h.sim.addDeployment('c1', [['crashed']]);
    await h.client.rollbackDeployment(dep.id);
    h.clock.advance(60_000); // the rollback has finished: rolled_back
    const result = await checkHealth(h.deps, request({ probeMessage: 'ping', probeExpect: /pong/i }));
    expect(result.entries[0]).toMatchObject({ healthy: true, status: 'online / rolled_back', reply: 'pong' });
    expect(result.entries[0].detail).toMatch(/rolled back: it serves the previous release\); probe: reply matches/);
    expect(h.sim.requests.some((r) => r.method === 'POST' && r.path === '/v1/chat/c1/messages')).toBe(true);
  });
});
