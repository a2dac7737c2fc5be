// The simulator's behaviour mode over real HTTP: a Claw answers each question PASS or FAIL by its
// chance, through a task lasting the drawn reply time, and a deployment brings the next profile.
import { afterEach, describe, expect, it } from 'vitest';
import { drawCheck, referenceBehaviour } from './behaviour.ts';
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
      chat: { mode: 'task', behaviour: { passRates: [1], latencyMs: 500, latencySigma: 0.01 } },
      nextBehaviour: { passRates: [0], latencyMs: 2000, latencySigma: 0.01 },
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
});
