// What most end-to-end tests start with: a simulator of their own, stopped after each test, and
// the inputs of a one-Claw run against it.
import { afterEach } from 'vitest';
import { DEMO_KEY, type SimOptions, Simulator } from '../sim/server.ts';

/** Starts a simulator 20× faster than real time (with `defaults`); each is stopped after its test. */
export function simulatorPerTest(defaults: SimOptions = {}): (options?: SimOptions) => Promise<Simulator> {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });
  return async (options = {}) => {
    sim = new Simulator({ speed: 20, ...defaults, ...options });
    await sim.start();
    return sim;
  };
}

/** A run against `sim` for Claw c1: quick polls, a 20 s deadline, and any other inputs. */
export function inputsFor(sim: Simulator, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'api-key': DEMO_KEY,
    'base-url': `${sim.url}/v1`,
    'claw-id': 'c1',
    'poll-interval': '100ms',
    timeout: '20s',
    ...extra,
  };
}
