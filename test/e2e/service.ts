// What most end-to-end tests start with: a simulator of their own (and a fake judge, a fake GitHub
// or a hostile service), each stopped after its test, and the inputs of a one-Claw run against it.
import { afterEach } from 'vitest';
import { FakeGitHub } from '../sim/github.ts';
import { type HostileAnswer, type HostileRequest, HostileServer } from '../sim/hostile.ts';
import { FakeJudge, type FakeJudgeOptions } from '../sim/judge.ts';
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

/** Anything a test starts and must stop: the fake judge, the fake GitHub API, a hostile service. */
interface Service {
  start(): Promise<unknown>;
  stop(): Promise<void>;
}

/** Starts what `make` builds; every one started is stopped after its test. */
export function perTest<A extends unknown[], T extends Service>(make: (...args: A) => T): (...args: A) => Promise<T> {
  const started: T[] = [];
  afterEach(async () => {
    for (const service of started.splice(0)) await service.stop();
  });
  return async (...args) => {
    const service = make(...args);
    started.push(service);
    await service.start();
    return service;
  };
}

/** A hostile service answering as `answer` scripts, per test. */
export const hostilePerTest = (): ((answer: (request: HostileRequest) => HostileAnswer) => Promise<HostileServer>) =>
  perTest((answer: (request: HostileRequest) => HostileAnswer) => new HostileServer(answer));

/** The fake judge (an OpenAI-compatible endpoint), per test. */
export const judgePerTest = (): ((options?: FakeJudgeOptions) => Promise<FakeJudge>) =>
  perTest((options?: FakeJudgeOptions) => new FakeJudge(options));

type FakeGitHubOptions = ConstructorParameters<typeof FakeGitHub>[0];

/** The fake GitHub API, per test. */
export const gitHubPerTest = (): ((options?: FakeGitHubOptions) => Promise<FakeGitHub>) =>
  perTest((options?: FakeGitHubOptions) => new FakeGitHub(options));

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
