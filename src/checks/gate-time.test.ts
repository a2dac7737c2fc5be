// The gate within the step: its deadline bounds every check (the ones it leaves are errors saying
// so), its log has a line per check as each ends, a cancel returns what is known, and a Claw the
// filters leave without a check is an error naming the filter. Simulator and fake clock.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, setup } from '../../test/support/setup.ts';
import { deployClaw } from '../deploy/deploy.js';
import { policy } from '../../test/support/setup.ts';
import { statusClassifier } from '../shared/status.js';
import { runChecks } from './gate.js';
import { parseChecks } from './load.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.sim.stop();
  h = undefined;
});

const options = { pollIntervalMs: 1000, classify: statusClassifier() };

async function gateOn(
  checks: string,
): Promise<{ harness: Harness; run: (ids: string[]) => ReturnType<typeof runChecks> }> {
  h = await setup({ rollbackForm: 'new-deployment' });
  const suite = parseChecks('checks.yml', checks);
  const harness = h;
  return { harness, run: (ids) => runChecks(harness.deps, suite, ids, options) };
}

describe("the step's deadline", () => {
  it('checks it leaves are errors that say so; an attempt cut by it says the step ran out, not the check', async () => {
    const { harness, run } = await gateOn(`defaults: {timeout: 10m}
checks:
  - {name: slow, send: slow, assert: [{type: contains, value: x}]}
  - {name: later, send: later, assert: [{type: contains, value: x}]}
`);
    harness.sim.addClaw('c1', { chat: { mode: 'never' } });
    harness.deps.deadline = harness.clock.now() + 30_000;
    const result = await run(['c1']);
    expect(harness.clock.now()).toBeLessThanOrEqual(harness.deps.deadline + 1000);
    expect(result.entries.map((e) => [e.check, e.passed, e.errors])).toEqual([
      ['slow', false, 1],
      ['later', false, 1],
    ]);
    expect(result.entries[0].failure).toMatch(/the step's timeout \(30s\) ran out/);
    expect(result.entries[1].failure).toBe("error: not run: the step's timeout (30s) came first");
  });
});

describe('the log', () => {
  it('has a line per check as it ends, before the next check begins', async () => {
    const { harness, run } = await gateOn(`checks:
  - {name: first, send: one, assert: [{type: contains, value: one}]}
  - {name: second, send: two, assert: [{type: contains, value: two}]}
`);
    let seenWhenSecondSent = '';
    harness.sim.addClaw('c1', {
      chat: {
        mode: 'sync',
        respond: (m) => {
          if (m === 'two') seenWhenSecondSent = harness.log.text('info');
          return `you said ${m}`;
        },
      },
    });
    await run(['c1']);
    expect(seenWhenSecondSent).toMatch(/✅ c1 · first: passed \(1 of 1 attempt passed, 1 of 1 needed/);
    expect(harness.log.text('info')).toMatch(/✅ c1 · second: passed/);
  });
});

describe('a long check', () => {
  it('says where it is at least every 10 s: the attempt under way and the passes so far', async () => {
    const { harness, run } = await gateOn(`checks:
  - {name: slow, send: hi, repeat: 5, timeout: 1m, assert: [{type: contains, value: hi}]}
  - {name: quick, send: hi, assert: [{type: contains, value: hi}]}
`);
    // Every reply is a task of 8 s: the check takes 40 s of the fake clock.
    harness.sim.addClaw('c1', { chat: { mode: 'task', reply: 'hi there', taskMs: 8000 } });
    const clock = harness.clock;
    const ticks: number[] = [];
    // The fake clock's ticks fire as its sleeps carry it past them.
    harness.deps.clock = Object.assign(Object.create(clock) as typeof clock, {
      every: (ms: number, tick: () => void) => {
        let stopped = false;
        const next = (at: number): void =>
          clock.at(at, () => {
            if (stopped) return;
            ticks.push(clock.now());
            tick();
            next(at + ms);
          });
        next(clock.now() + ms);
        return () => void (stopped = true);
      },
    });
    const started = clock.now();
    const result = await run(['c1']);
    expect(result.entries.map((e) => e.failure)).toEqual([undefined, undefined]);
    const lines = harness.log.lines.filter((l) => l.level === 'info' && l.message.includes('⏳')).map((l) => l.message);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[0]).toMatch(/^⏳ c1 · slow: attempt [12] of 5 under way, [01] passed so far \(10s\)$/);
    expect(lines.at(-1)).toMatch(/attempt [45] of 5 under way, [34] passed so far/);
    // No gap of more than 10 s while it ran, and none after it ended (the quick check is silent).
    expect(ticks[0] - started).toBe(10_000);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i] - ticks[i - 1]).toBe(10_000);
    expect(lines.filter((l) => l.includes('quick'))).toEqual([]);
  });
});

describe('a cancel', () => {
  it('returns what is known: the checks done, the one cut and the ones not run, each saying so', async () => {
    const { harness, run } = await gateOn(`checks:
  - {name: done, send: done, assert: [{type: contains, value: done}]}
  - {name: cut, send: cut, timeout: 1m, assert: [{type: contains, value: x}]}
  - {name: never, send: never, assert: [{type: contains, value: x}]}
`);
    const cancel = new AbortController();
    harness.deps.signal = cancel.signal;
    // The cancel comes while the second check's message is on its way.
    harness.sim.addClaw('c1', {
      chat: {
        mode: 'sync',
        respond: (m) => {
          if (m === 'cut') cancel.abort();
          return `you said ${m}`;
        },
      },
    });
    const result = await run(['c1']);
    expect(result.cancelled).toBe(true);
    expect(result.entries.map((e) => [e.check, e.passed, e.failure ?? ''])).toEqual([
      ['done', true, ''],
      ['cut', false, 'error: cancelled: the run was cancelled during this check'],
      ['never', false, 'error: not run: the run was cancelled'],
    ]);
  });

  it('during the gate of a deploy: outcome cancelled, the checks kept, and the rollback rules apply', async () => {
    const { harness, run } = await gateOn(`checks:
  - {name: cut, send: cut, timeout: 1m, assert: [{type: contains, value: x}]}
`);
    const cancel = new AbortController();
    harness.deps.signal = cancel.signal;
    harness.deps.checks = run;
    harness.sim.addClaw('c1', {
      plan: [['live']],
      chat: {
        mode: 'sync',
        respond: (m) => {
          cancel.abort();
          return m;
        },
      },
    });
    const result = await deployClaw(
      harness.deps,
      { clawId: 'c1', strategy: '', payload: {}, wait: true },
      policy({ autoRollback: true, rollbackOn: ['failed', 'cancelled'], pollIntervalMs: 1000 }),
    );
    expect(result.outcome).toBe('cancelled');
    expect(result.checks?.entries).toHaveLength(1);
    expect(result.message).toMatch(/cancelled during the checks of deployment .* of Claw c1/);
    expect(result.rollback?.outcome).toBe('requested');
  });
});

describe('filters that leave a Claw no check', () => {
  it('are an error naming the filter, never a pass', async () => {
    const { harness, run } = await gateOn(`checks:
  - {name: billing only, claws: [billing], send: hi}
  - {name: support only, claws: [support, sales], send: hi}
`);
    harness.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'hello' } });
    const result = await run(['c1']);
    expect(result.passed).toBe(false);
    expect(result.entries).toEqual([
      expect.objectContaining({
        clawId: 'c1',
        passed: false,
        errors: 1,
        failure:
          'error: no check of checks.yml applies to Claw c1: \'claws\' of "billing only" names billing only; \'claws\' of "support only" names support, sales only',
      }),
    ]);
    expect(harness.sim.requests).toHaveLength(0);
  });
});
