// A wrong address fails fast and says so, over real sockets on a fake clock: a port where nothing
// listens, a name that never resolves (the .invalid TLD), a path where something other than the
// service answers. After the first answer, a refused connection is a moment's trouble again.
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_KEY, Simulator } from '../../test/sim/server.ts';
import { FakeClock } from '../../test/support/fake-clock.ts';
import { RecordingLogger } from '../../test/support/setup.ts';
import { AmsClient } from './client.js';
import { ApiError } from './errors.js';
import { Transport } from './transport.js';
import { deadPort } from '../../test/support/dead-port.ts';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

function clientAt(baseUrl: string, clock = new FakeClock()): { client: AmsClient; clock: FakeClock } {
  const transport = new Transport({
    baseUrl,
    apiKey: DEMO_KEY,
    authScheme: 'Bearer',
    requestTimeoutMs: 2000,
    clock,
    log: new RecordingLogger(),
    random: () => 0.5,
  });
  return { client: new AmsClient(transport), clock };
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('an address where nothing answers', () => {
  it('a refused connection on the first request ends it within a second, naming base-url and its value', async () => {
    const port = await deadPort();
    const { client, clock } = clientAt(`http://127.0.0.1:${port}/v1`);
    const began = clock.now();
    const err = await failure(client.getClaw('c1'));
    expect(err.kind).toBe('unreachable');
    expect(err.message).toBe(`Nothing answered at http://127.0.0.1:${port}/v1 (connection refused): check 'base-url'.`);
    expect(clock.now() - began).toBeLessThan(1000);
    // Every later request is told at once, without another try.
    const later = clock.now();
    expect((await failure(client.listClaws())).message).toBe(err.message);
    expect(clock.now()).toBe(later);
  });

  it('a name that does not resolve says so', async () => {
    const { client, clock } = clientAt('https://claws.invalid/v1');
    const began = clock.now();
    const err = await failure(client.getClaw('c1'));
    expect(err.kind).toBe('unreachable');
    expect(err.message).toMatch(
      /^Nothing answered at https:\/\/claws\.invalid\/v1 \(the name does not resolve: (ENOTFOUND|EAI_AGAIN)\): check 'base-url'\.$/,
    );
    expect(clock.now() - began).toBeLessThan(1000);
  });

  it('TLS that fails (https to a plain HTTP port) says so', async () => {
    sim = new Simulator({});
    const url = await sim.start();
    const { client } = clientAt(url.replace('http:', 'https:'));
    const err = await failure(client.getClaw('c1'));
    expect(err.kind).toBe('unreachable');
    expect(err.message).toMatch(
      /^Nothing answered at https:\/\/127\.0\.0\.1:\d+ \(TLS failed: [A-Z_]+\): check 'base-url'\.$/,
    );
  });

  it('the address holds no user or password in the message', async () => {
    const port = await deadPort();
    const { client } = clientAt(`http://someone:hunter2@127.0.0.1:${port}/v1?token=abc`);
    const err = await failure(client.getClaw('c1'));
    expect(err.message).not.toMatch(/hunter2|someone|token/);
  });

  it('after the first answer, a refused connection keeps the usual retries', async () => {
    sim = new Simulator({});
    const url = await sim.start();
    sim.addClaw('c1');
    const clock = new FakeClock();
    const { client } = clientAt(url, clock);
    await client.getClaw('c1');
    await sim.stop();
    sim = undefined;
    const began = clock.now();
    const err = await failure(client.getClaw('c1'));
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/gave up after \d+ failures in a row/);
    expect(clock.now() - began).toBeGreaterThanOrEqual(120_000);
  });
});

describe('a path where the service does not answer', () => {
  it("a 404 without the service's error body, before the service has answered, says the address looks wrong", async () => {
    sim = new Simulator({});
    const url = await sim.start();
    sim.addClaw('c1');
    const { client } = clientAt(`${url}/api/v2`);
    const err = await failure(client.getClaw('c1'));
    expect(err.kind).toBe('address');
    expect(err.message).toBe(
      `'base-url' ${url}/api/v2 looks wrong: GET /v1/claws/:id answered 404 without the service's error body.`,
    );
  });

  it('a 404 for the list of Claws says the address looks wrong', async () => {
    sim = new Simulator({});
    const url = await sim.start();
    const { client } = clientAt(`${url}/api/v2`);
    const err = await failure(client.listClaws());
    expect(err.kind).toBe('address');
    expect(err.message).toMatch(/looks wrong: GET \/v1\/claws answered 404 for the list of Claws\.$/);
  });

  it("an unknown Claw at the right address is the service's 404, as ever", async () => {
    sim = new Simulator({});
    const url = await sim.start();
    const { client } = clientAt(url);
    const err = await failure(client.getClaw('nobody'));
    expect(err.kind).toBe('not_found');
  });
});
