// The simulator's behaviour mode over real HTTP: a Claw answers each question PASS or FAIL by its
// chance, through a task lasting the drawn reply time, and a deployment brings the next profile.
import { afterEach, describe, expect, it } from 'vitest';
import { behavingClaw, drawCheck, referenceBehaviour } from './behaviour.ts';
import { DEMO_KEY, Simulator } from './server.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

describe('behaviour mode', () => {
  it('answers by the profile, each reply through a task of the drawn time, and a deployment changes it', async () => {
    let clock = 0;
    sim = new Simulator({ now: () => clock });
    sim.addClaw('claw-b', {
      // A deployment that is done at once: its behaviour is the Claw's from the trigger on.
      plan: [['succeeded']],
      ...behavingClaw(
        { passRates: [1], latencyMs: 500, latencySigma: 0.01 },
        [{ passRates: [0], latencyMs: 2000 }],
        'task',
      ),
    });
    const url = `${await sim.start()}/v1`;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const ask = async (message: string, waitMs: number) => {
      const { taskId } = (await call('POST', '/chat/claw-b/messages', { message })) as { taskId: string };
      const before = JSON.stringify(await call('GET', `/tasks/${taskId}`));
      clock += waitMs;
      return { before, after: JSON.stringify(await call('GET', `/tasks/${taskId}`)) };
    };
    const first = await ask('What is 2 + 2?', 600);
    expect(first.before).toMatch(/running/);
    expect(first.after).toMatch(/PASS: What is 2 \+ 2\?/);
    await call('POST', '/deployments', { clawId: 'claw-b' });
    const slow = await ask('What is 2 + 2?', 600);
    expect(slow.after).toMatch(/running/);
    clock += 1500;
    const second = await ask('What is 2 + 2?', 2100);
    expect(second.after).toMatch(/FAIL: What is 2 \+ 2\?/);
  });

  it('draws the same attempts from the same seed, and the reference profile averages 0.90', () => {
    const a = drawCheck('c', referenceBehaviour(), 50, 3, 7);
    expect(drawCheck('c', referenceBehaviour(), 50, 3, 7)).toEqual(a);
    const rates = referenceBehaviour().passRates;
    expect(rates.reduce((x, y) => x + y, 0) / rates.length).toBeCloseTo(0.9, 10);
    expect(referenceBehaviour(0.1).passRates.reduce((x, y) => x + y, 0) / rates.length).toBeCloseTo(0.81, 10);
  });

  /** A Claw's replies over HTTP: POST a message, the sync answer's reply or its status. */
  async function asker(simulator: Simulator) {
    const url = `${await simulator.start()}/v1`;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const ask = async (claw: string, message: string) => {
      const answer = await call('POST', `/chat/${claw}/messages`, { message });
      return answer.status === 200 ? String(answer.body.reply) : `status ${answer.status}`;
    };
    return { call, ask };
  }

  it("a deployment's change holds once it has finished, until it is rolled back; each deployment brings the next change", async () => {
    let clock = 0;
    sim = new Simulator({ now: () => clock, rollbackForm: 'in-place' });
    sim.addClaw('c1', { plan: [['in_progress', 1000], ['succeeded']], ...behavingClaw({ passRates: [1] }) });
    sim.deployBrings('c1', { passRates: [0] });
    sim.deployBrings('c1', { passRates: (q) => (q === 'q2' ? 1 : 0) });
    const { call, ask } = await asker(sim);
    expect(await ask('c1', 'q1')).toBe('PASS: q1');
    const first = (await call('POST', '/deployments', { clawId: 'c1' })).body.id as string;
    // Still deploying: the release before it answers.
    expect(await ask('c1', 'q1')).toBe('PASS: q1');
    clock += 1000;
    expect(await ask('c1', 'q1')).toBe('FAIL: q1');
    expect(sim.liveBehaviour('c1')?.key).toBe(first);
    await call('POST', `/deployments/${first}/rollback`);
    expect(await ask('c1', 'q1')).toBe('PASS: q1');
    await call('POST', '/deployments', { clawId: 'c1' });
    clock += 1000;
    expect([await ask('c1', 'q1'), await ask('c1', 'q2')]).toEqual(['FAIL: q1', 'PASS: q2']);
    // Nothing queued: a deployment keeps the behaviour it found.
    await call('POST', '/deployments', { clawId: 'c1' });
    clock += 1000;
    expect([await ask('c1', 'q1'), await ask('c1', 'q2')]).toEqual(['FAIL: q1', 'PASS: q2']);
  });

  it('a rollback made as a new deployment brings back the release before the one rolled back, once it has finished', async () => {
    let clock = 0;
    sim = new Simulator({ now: () => clock, rollbackForm: 'new-deployment' });
    sim.addClaw('c1', {
      plan: [['succeeded']],
      rollbackPlan: [['in_progress', 500], ['succeeded']],
      ...behavingClaw({ passRates: [1] }, [{ passRates: [0] }]),
    });
    const { call, ask } = await asker(sim);
    const deployed = (await call('POST', '/deployments', { clawId: 'c1' })).body.id as string;
    expect(await ask('c1', 'q1')).toBe('FAIL: q1');
    await call('POST', `/deployments/${deployed}/rollback`);
    expect(await ask('c1', 'q1')).toBe('FAIL: q1');
    clock += 500;
    expect(await ask('c1', 'q1')).toBe('PASS: q1');
  });

  it('a failed deployment changes nothing; an unjudged attempt in sync mode is a 500', async () => {
    sim = new Simulator();
    sim.addClaw('c1', { plan: [['failed']], ...behavingClaw({ passRates: [1] }, [{ passRates: [0] }]) });
    sim.addClaw('c2', behavingClaw({ passRates: [1], unjudgedRate: 1 }));
    const { call, ask } = await asker(sim);
    await call('POST', '/deployments', { clawId: 'c1' });
    expect(await ask('c1', 'q1')).toBe('PASS: q1');
    expect(await ask('c2', 'q1')).toBe('status 500');
  });

  it('answers each question the same whatever the order of the questions, per Claw and release', async () => {
    const answers = async (order: string[]) => {
      const s = new Simulator();
      s.addClaw('c1', behavingClaw({ passRates: [0.5], seed: 9 }));
      const { ask } = await asker(s);
      const replies: Record<string, string[]> = {};
      for (const q of order) (replies[q] ??= []).push(await ask('c1', q));
      await s.stop();
      return replies;
    };
    const questions = Array.from({ length: 12 }, (_, i) => `q${i % 6}`);
    const forward = await answers(questions);
    expect(await answers([...questions].reverse())).toEqual(forward);
    // Chance, not a constant: both answers occur.
    const all = Object.values(forward).flat();
    expect(all.some((r) => r.startsWith('PASS')) && all.some((r) => r.startsWith('FAIL'))).toBe(true);
  });
});
