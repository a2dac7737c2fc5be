// What most end-to-end tests start with: a simulator (or a hostile service) of their own, stopped
// after each test, and the inputs of a one-Claw run against it.
import { afterEach } from 'vitest';
import { type HostileAnswer, type HostileRequest, HostileServer } from '../sim/hostile.ts';
import { DEMO_KEY, type SimOptions, Simulator } from '../sim/server.ts';

/**
 * Starts a simulator 20× faster than real time (with `defaults`), on the IPv4 loopback unless
 * `host` says another; each is stopped after its test.
 */
export function simulatorPerTest(
  defaults: SimOptions = {},
): (options?: SimOptions, host?: string) => Promise<Simulator> {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });
  return async (options = {}, host) => {
    sim = new Simulator({ speed: 20, ...defaults, ...options });
    await sim.start(0, host);
    return sim;
  };
}

/** Starts a hostile service answering as `answer` scripts; each is stopped after its test. */
export function hostilePerTest(): (answer: (request: HostileRequest) => HostileAnswer) => Promise<HostileServer> {
  let hostile: HostileServer | undefined;
  afterEach(async () => {
    await hostile?.stop();
    hostile = undefined;
  });
  return async (answer) => {
    hostile = new HostileServer(answer);
    await hostile.start();
    return hostile;
  };
}

/** A run against `sim` (or any service at a `url`) for Claw c1: quick polls, a 20 s deadline, and any other inputs. */
export function inputsFor(sim: { url: string }, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'api-key': DEMO_KEY,
    'base-url': `${sim.url}/v1`,
    'claw-id': 'c1',
    'poll-interval': '100ms',
    timeout: '20s',
    ...extra,
  };
}
