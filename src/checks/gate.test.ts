// The behaviour gate against the simulator, on one fake clock: conversations in order, repeat and
// min-pass, errors apart from failures, and the gate's rollback for one Claw, a fleet wave and health.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, policy, setup } from '../../test/support/setup.ts';
import { deployClaw } from '../deploy/deploy.js';
import { rolloutFleet } from '../deploy/fleet.js';
import { checkHealth } from '../health/health.js';
import { statusClassifier } from '../shared/status.js';
import { CancelledError } from '../shared/errors.js';
import { runChecks } from './gate.js';
import { Judge } from './judge.js';
import { parseChecks } from './load.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const classify = statusClassifier();

/** A harness whose runs gate on `checksYaml`. */
async function gated(checksYaml: string, options: Parameters<typeof setup>[0] = {}): Promise<Harness> {
  h = await setup({ rollbackForm: 'new-deployment', ...options });
  const suite = parseChecks('checks.yml', checksYaml);
  const harness = h;
  harness.deps.checks = (ids) => runChecks(harness.deps, suite, ids, { pollIntervalMs: 1000, classify });
  return harness;
}

const chats = (harness: Harness) =>
  harness.sim.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/'));

describe('runChecks', () => {
  it('sends turns in order, each after the previous reply, and stops an attempt at the first failing turn', async () => {
    const harness = await gated(`checks:
  - name: refund flow
    turns:
      - send: I want a refund
        assert: [{type: regex, value: '(?i)order number'}]
      - send: It is order 12345
        assert: [{type: contains, value: '12345'}, {type: not-icontains, value: sorry}]
  - name: stops early
    turns:
      - send: first
        assert: [{type: equals, value: nope}]
      - send: never sent
`);
    harness.sim.addClaw('c1', {
      chat: {
        mode: 'sync',
        respond: (m) => (m.includes('refund') ? 'What is your Order Number?' : `Refund for ${m.slice(-5)} started`),
      },
    });
    const result = await harness.deps.checks!(['c1']);
    expect(chats(harness).map((r) => (r.body as { message: string }).message)).toEqual([
      'I want a refund',
      'It is order 12345',
      'first',
    ]);
    expect(result.entries.map((e) => [e.check, e.passed])).toEqual([
      ['refund flow', true],
      ['stops early', false],
    ]);
    expect(result.entries[1].failure).toBe('turn 1: equals "nope" did not hold; reply: "Refund for first started"');
    expect(result.passed).toBe(false);
  });

  it('passes a flaky check on min-pass of repeat, and stops as soon as the verdict is certain', async () => {
    const harness = await gated(`checks:
  - {name: flaky, send: hi, repeat: 3, min-pass: 2, assert: [{type: icontains, value: hello}]}
  - {name: hopeless, send: ho, repeat: 5, min-pass: 4, assert: [{type: icontains, value: hello}]}
`);
    // hi: fails, passes, passes (3 attempts); ho: fails twice, then 4 of 5 can no longer pass.
    harness.sim.addClaw('c1', { chat: { mode: 'sync', respond: (m, n) => (m === 'hi' && n > 1 ? 'Hello' : 'Hm?') } });
    const result = await harness.deps.checks!(['c1']);
    expect(result.entries.map((e) => [e.check, e.passed, e.passes, e.attempts, e.failures])).toEqual([
      ['flaky', true, 2, 3, 1],
      ['hopeless', false, 0, 2, 2],
    ]);
    expect(chats(harness)).toHaveLength(5);
  });

  it('counts an attempt that cannot be judged as an error, apart from a failure', async () => {
    const harness = await gated(`defaults: {timeout: 10s}
checks:
  - {name: failing task, send: a}
  - {name: endless task, send: b}
  - {name: service down, send: c}
`);
    harness.sim.addClaw('c1', { chat: { mode: 'task', taskMs: 2000, taskFails: true } });
    harness.sim.addClaw('c2', { chat: { mode: 'never' } });
    harness.sim.addClaw('c3');
    harness.sim.fault({ kind: 'error', status: 500, method: 'POST', path: '/chat/c3', times: 1000 });
    const suite = parseChecks(
      'checks.yml',
      `defaults: {timeout: 10s}
checks:
  - {name: failing task, send: a, claws: [c1]}
  - {name: endless task, send: b, claws: [c2]}
  - {name: service down, send: c, claws: [c3]}
`,
    );
    const result = await runChecks(harness.deps, suite, ['c1', 'c2', 'c3'], { pollIntervalMs: 1000, classify });
    for (const entry of result.entries) expect(entry).toMatchObject({ passed: false, errors: 1, failures: 0 });
    const failures = result.entries.map((e) => e.failure);
    expect(failures[0]).toMatch(/^error: task task_\d+ ended failed$/);
    expect(failures[1]).toMatch(/^error: task task_\d+ still running at the deadline$/);
    // A chat that keeps failing until the timeout is the chat failing, not a slow reply.
    expect(failures[2]).toMatch(
      /^error: POST \/v1\/chat\/:clawId\/messages failed: 500 from the service \(no time left before the deadline to retry\)/,
    );
  });

  it("a Claw whose chat keeps failing costs one attempt's timeout: its other checks are errors at once", async () => {
    const checks = ['a', 'b', 'c', 'd'].map((n) => `  - {name: ${n}, send: ${n}, repeat: 2}`).join('\n');
    const harness = await gated(`defaults: {timeout: 10s}\nchecks:\n${checks}\n`);
    harness.sim.addClaw('c1');
    harness.sim.fault({ kind: '503', method: 'POST', path: '/chat/c1', times: 100_000 });
    const began = harness.clock.now();
    const result = await harness.deps.checks!(['c1']);
    // One attempt's timeout in all, not eight.
    expect(harness.clock.now() - began).toBeLessThanOrEqual(10_000);
    expect(result.entries.map((e) => [e.errors, e.failures, e.passed])).toEqual([
      [1, 0, false],
      [1, 0, false],
      [1, 0, false],
      [1, 0, false],
    ]);
    for (const entry of result.entries.slice(1)) {
      expect(entry.failure).toMatch(
        /^error: the Claw's chat is failing: POST \/v1\/chat\/:clawId\/messages failed: 503/,
      );
    }
    const sentAfterFirst = chats(harness).filter((r) => (r.body as { message?: string } | undefined)?.message !== 'a');
    expect(sentAfterFirst).toHaveLength(0);
  });

  it('reads the reply beside an echo of the message sent', async () => {
    const harness = await gated(`checks: [{name: a, send: Hello, assert: [{type: equals, value: Hi there}]}]`);
    harness.sim.addClaw('c1', { chat: { mode: 'sync', echo: 'object', reply: 'Hi there' } });
    const result = await harness.deps.checks!(['c1']);
    expect(result.passed).toBe(true);
  });

  it('a latency assertion measures from sending to having the reply, task polls included', async () => {
    const harness = await gated(`checks:
  - {name: slow, send: a, assert: [{type: latency, threshold: 3s}]}
  - {name: fast enough, send: b, assert: [{type: latency, threshold: 5s}]}
`);
    harness.sim.addClaw('c1', { chat: { mode: 'task', taskMs: 4000, reply: 'done' } });
    const result = await harness.deps.checks!(['c1']);
    expect(result.entries.map((e) => e.passed)).toEqual([false, true]);
    expect(result.entries[0].failure).toMatch(
      /^latency ≤ 3000ms did not hold \(took 4\d\d\dms, between \d+ and 4\d\d\dms: polled every \d+ms\)/,
    );
  });

  it("a threshold inside the polls' bound is decided against its low end, never failed by the schedule", async () => {
    // The 1.5 s reply is seen by a poll after 1.5 s; the one before it went out before 1.5 s.
    const harness = await gated(`checks:
  - {name: just in time, send: a, assert: [{type: latency, threshold: 1500ms}]}
  - {name: too slow, send: b, assert: [{type: latency, threshold: 1s}]}
`);
    harness.sim.addClaw('c1', { chat: { mode: 'task', taskMs: 1500, reply: 'done' } });
    const result = await harness.deps.checks!(['c1']);
    expect(result.entries[0]).toMatchObject({ passed: true });
    // The figure is the middle of the polls' bound (the reply came somewhere inside it): near 1.5 s.
    expect(Math.abs(result.entries[0].latencyMs! - 1500)).toBeLessThanOrEqual(150);
    expect(result.entries[1].failure).toMatch(
      /^latency ≤ 1000ms did not hold \(took 1\d\d\dms, between 1\d\d\d and 1\d\d\dms: polled every \d+ms\)/,
    );
  });

  it("latency is the Claw's: the waits for a spent rate-limit window are not counted, a slow Claw still fails", async () => {
    const harness = await gated(
      `checks:
  - {name: quick, send: a, assert: [{type: latency, threshold: 5s}], timeout: 2m}
  - {name: task, send: b, assert: [{type: latency, threshold: 5s}], timeout: 2m}
`,
      { rateLimit: { limit: 20, windowMs: 20_000, resetForm: 'delta-s' } },
    );
    harness.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'done' } });
    harness.sim.addClaw('c2', { chat: { mode: 'task', taskMs: 3000, reply: 'done' } });
    harness.sim.addClaw('slow', { chat: { mode: 'task', taskMs: 6000, reply: 'done' } });
    // One Claw at a time: the fake clock is shared, so a concurrent sleep would move it mid-request.
    const entries = [];
    for (const claw of ['c1', 'c2', 'slow']) {
      // Others spent the window: each check waits for its reset first.
      harness.sim.rateLimit.spend(harness.clock.now(), 20);
      const began = harness.clock.now();
      entries.push(...(await harness.deps.checks!([claw])).entries);
      expect(harness.clock.now() - began).toBeGreaterThan(20_000); // the pacer did wait
    }
    const byClaw = Object.fromEntries(entries.map((e) => [`${e.clawId} ${e.check}`, e]));
    expect(byClaw['c1 quick'].failure).toBeUndefined();
    expect(byClaw['c1 quick'].latencyMs).toBeLessThan(1000);
    expect(byClaw['c2 task']).toMatchObject({ passed: true });
    // Inside the polls' bound of the 3 s task (spread by the spent window), never the reset's 20 s wait.
    expect(byClaw['c2 task'].latencyMs).toBeGreaterThan(2000);
    expect(byClaw['c2 task'].latencyMs).toBeLessThan(5000);
    expect(byClaw['slow task'].passed).toBe(false);
    expect(byClaw['slow task'].failure).toMatch(/^latency ≤ 5000ms did not hold \(took [67]\d\d\dms, between /);
  });

  it("compares the Claws' replies once all have answered: a select-best decided, or cancelled, for the whole run", async () => {
    h = await setup({});
    const harness = h;
    const suite = parseChecks(
      'promptfooconfig.yaml',
      `prompts: ['Hi']\ntests:\n  - assert: [{type: select-best, value: the kindest}]\n`,
      { OPENAI_API_KEY: 'sk-gate-test-0123456789' },
    );
    harness.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'Go away.' } });
    harness.sim.addClaw('c2', { chat: { mode: 'sync', reply: 'Hello, friend!' } });
    const asked: number[] = [];
    const judgeOf = (answer: () => Promise<{ text: string }>) => () =>
      new Judge({ identity: 'fake', ask: () => (asked.push(chats(harness).length), answer()) });
    const decided = await runChecks(harness.deps, suite, ['c1', 'c2'], {
      pollIntervalMs: 1000,
      classify,
      judgeFor: judgeOf(async () => ({ text: '1' })),
    });
    // Asked once, after both Claws had answered.
    expect(asked).toEqual([2]);
    expect(decided.entries.map((e) => [e.clawId, e.passed])).toEqual([
      ['c1', false],
      ['c2', true],
    ]);
    const cancelled = await runChecks(harness.deps, suite, ['c1', 'c2'], {
      pollIntervalMs: 1000,
      classify,
      judgeFor: judgeOf(async () => {
        throw new CancelledError();
      }),
    });
    expect(cancelled.cancelled).toBe(true);
    expect(cancelled.entries.map((e) => [e.passed, e.failure])).toEqual([
      [false, 'error: cancelled: the run was cancelled while the Claws were compared'],
      [false, 'error: cancelled: the run was cancelled while the Claws were compared'],
    ]);
  });
});

describe('runChecks in rounds', () => {
  it('a cancel between two rounds ends the run as cancelled: no later round asked, nothing to compare', async () => {
    h = await setup({});
    const harness = h;
    const suite = parseChecks(
      'checks.yml',
      `defaults:\n  repeat: 3\nchecks:\n  - {name: q1, send: q1, assert: [{type: equals, value: 'yes'}]}\n`,
    );
    // The answers vary (yes, no, yes), so every round would be asked without the cancel.
    harness.sim.addClaw('c1', { chat: { mode: 'sync', respond: (_m, n) => (n % 2 === 1 ? 'yes' : 'no') } });
    const cancel = new AbortController();
    const result = await runChecks({ ...harness.deps, signal: cancel.signal }, suite, ['c1'], {
      pollIntervalMs: 1000,
      classify,
      comparing: true,
      rounds: {
        look: (round) => {
          if (round === 1) cancel.abort();
          return false;
        },
      },
    });
    expect(chats(harness)).toHaveLength(1);
    expect(result.cancelled).toBe(true);
  });
});

describe('the gate', () => {
  const GREETS = `checks:
  - name: greets
    send: Hello
    assert: [{type: icontains, value: hello}]
`;

  it('deploy: a deployment that succeeds but fails its checks is failed, and rolled back', async () => {
    const harness = await gated(GREETS);
    harness.sim.addClaw('c1', { plan: [['pending', 5000], ['live']], chat: { mode: 'sync', reply: 'I cannot help.' } });
    const result = await deployClaw(
      harness.deps,
      { clawId: 'c1', strategy: '', payload: {}, wait: true },
      policy({ autoRollback: true }),
    );
    expect(result).toMatchObject({ ok: false, outcome: 'failed', status: 'live' });
    expect(result.message).toMatch(
      /^Deployment dep_0001 of Claw c1 succeeded with status "live" after 5s, but its checks did not pass: "greets" on c1 \(0 of 1 passed; icontains "hello" did not hold; reply: "I cannot help\."\)\. It was rolled back/,
    );
    expect(result.rollback?.succeeded).toBe(true);
    expect(result.checks?.passed).toBe(false);
  });

  it('deploy: checks that pass leave the outcome succeeded', async () => {
    const harness = await gated(GREETS);
    harness.sim.addClaw('c1', { plan: [['live']], chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const result = await deployClaw(harness.deps, { clawId: 'c1', strategy: '', payload: {}, wait: true }, policy());
    expect(result).toMatchObject({ ok: true, outcome: 'succeeded' });
    expect(result.message).toContain('and its 1 check(s) passed');
  });

  it('fleet: a Claw failing its checks in a wave is rolled back at once, counts against max-failures', async () => {
    const harness = await gated(GREETS);
    for (const id of ['c1', 'c2', 'c3', 'c4']) {
      harness.sim.addClaw(id, { plan: [['live']], chat: { mode: 'sync', reply: id === 'c2' ? 'Go away.' : 'Hello!' } });
    }
    const result = await rolloutFleet(
      harness.deps,
      {
        targets: { all: false, ids: ['c1', 'c2', 'c3', 'c4'] },
        strategy: '',
        payload: {},
        waves: [{ count: 2 }],
        bakeMs: 0,
        maxFailures: { count: 1 },
        probeMessage: '',
      },
      policy({ autoRollback: true }),
    );
    // Within max-failures the rollout goes on, but the misbehaving Claw was rolled back at once.
    expect(result.outcome).toBe('succeeded');
    expect(result.entries.map((e) => [e.clawId, e.outcome, e.rolledBack])).toEqual([
      ['c1', 'succeeded', false],
      ['c2', 'failed', true],
      ['c3', 'succeeded', false],
      ['c4', 'succeeded', false],
    ]);
    expect(result.entries[1].detail).toContain('its checks did not pass: "greets" on c2');
    // c2 was rolled back before wave 2 was triggered.
    const rollbackOfC2 = harness.sim.requests.find((r) => r.path.endsWith('/rollback'))!;
    const wave2 = harness.sim.triggered('c3')[0];
    expect(rollbackOfC2.at).toBeLessThanOrEqual(wave2.createdAt);
    expect(result.checks?.entries).toHaveLength(4);
  });

  it('health: a Claw that does not pass its checks is unhealthy', async () => {
    const harness = await gated(GREETS);
    harness.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello!' } });
    harness.sim.addClaw('c2', { chat: { mode: 'sync', reply: 'Error 500' } });
    const result = await checkHealth(harness.deps, {
      targets: { all: false, ids: ['c1', 'c2'] },
      probeMessage: '',
      pollIntervalMs: 1000,
      classify,
      checks: harness.deps.checks,
    });
    expect(result.healthy).toBe(false);
    expect(result.entries.map((e) => [e.clawId, e.healthy])).toEqual([
      ['c1', true],
      ['c2', false],
    ]);
    expect(result.entries[1].detail).toContain('checks did not pass: "greets" on c2');
  });
});
