// Rollback and cancellation through dist/index.js, with real signals, and the post step.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { encodedForms } from '../support/encoded-forms.ts';
import { HostileServer } from '../sim/hostile.ts';
import { ALL_SCOPES, type Simulator } from '../sim/server.ts';
import { type ActionRun, runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

const rollbacks = (s: Simulator) => s.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/rollback'));

/**
 * Runs the action and sends `signal` once its log shows `when` (and `delayMs` more have passed);
 * returns the run and the ms from signal to exit.
 */
async function runAndSignal(
  inputs: Record<string, string>,
  when: RegExp,
  signal: NodeJS.Signals,
  delayMs = 0,
): Promise<{ run: ActionRun; exitMs: number }> {
  let seen = false;
  let signalledAt = 0;
  const run = await runAction(inputs, {
    onLine: (line: string, child: ChildProcess) => {
      if (seen || !when.test(line)) return;
      seen = true;
      setTimeout(() => {
        signalledAt = performance.now();
        child.kill(signal);
      }, delayMs);
    },
  });
  expect(signalledAt, `the log showed ${when}`).toBeGreaterThan(0);
  return { run, exitMs: performance.now() - signalledAt };
}

describe('automatic rollback through dist/index.js', () => {
  it.each(['in-place', 'new-deployment'] as const)(
    'rolls a failed deployment back (%s), outputs say so, the step fails',
    async (rollbackForm) => {
      const s = await start({ rollbackForm });
      s.addClaw('c1', { plan: [['pending', 2000], ['crashed']] });
      const run = await runAction(inputsFor(s, { 'auto-rollback': 'true' }));
      expect(run.exitCode).toBe(1);
      expect(run.outputs).toMatchObject({ outcome: 'failed', status: 'crashed', 'rolled-back': 'true' });
      expect(run.outputs['rollback-id']).toBe(rollbackForm === 'in-place' ? 'dep_0001' : 'dep_0002');
      expect(run.outputs['rollback-status']).toBe(rollbackForm === 'in-place' ? 'rolled_back' : 'succeeded');
      expect(run.errors).toHaveLength(1);
      expect(run.errors[0]).toMatch(/failed with status "crashed".*It was rolled back/);
      expect(run.summary).toMatch(/\| Rollback \| ✅ `dep_000\d`/);
      expect(rollbacks(s)).toHaveLength(1);
    },
  );

  it('rolls back on timeout', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['in_progress']] });
    const run = await runAction(inputsFor(s, { 'auto-rollback': 'true', timeout: '1s' }));
    expect(run.exitCode).toBe(1);
    expect(run.outputs).toMatchObject({
      outcome: 'timed-out',
      'rolled-back': 'true',
      'rollback-status': 'rolled_back',
    });
  });

  it('rolls back a paused deployment when asked to', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 2000], ['paused']] });
    const run = await runAction(inputsFor(s, { 'auto-rollback': 'true', 'rollback-on': 'paused' }));
    expect(run.exitCode).toBe(1);
    expect(run.outputs).toMatchObject({ outcome: 'paused', 'rolled-back': 'true' });
  });

  it('reports a rollback that fails, with both statuses', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 2000], ['crashed']], rollbackPlan: [['rolling_back', 2000], ['errored']] });
    const run = await runAction(inputsFor(s, { 'auto-rollback': 'true' }));
    expect(run.outputs).toMatchObject({ 'rolled-back': 'false', 'rollback-status': 'errored' });
    expect(run.errors[0]).toMatch(/"crashed".*Rolling it back failed too.*errored/);
  });
});

describe('the rollback command through dist/index.js', () => {
  it('rolls back a deployment by id', async () => {
    const s = await start();
    s.addClaw('c1');
    s.addDeployment('c1', [['live']], 'dep_live');
    const run = await runAction(inputsFor(s, { command: 'rollback', 'claw-id': '', 'deployment-id': 'dep_live' }));
    expect(run.exitCode).toBe(0);
    expect(run.outputs).toMatchObject({
      'deployment-id': 'dep_live',
      'rolled-back': 'true',
      'rollback-id': 'dep_live',
      'rollback-status': 'rolled_back',
      outcome: 'succeeded',
    });
    expect(run.summary).toContain('### ✅ Rollback finished');
  });

  it("rolls back the Claw's current deployment", async () => {
    const s = await start({ rollbackForm: 'new-deployment' });
    s.addClaw('c1');
    s.addDeployment('c1', [['live']], 'dep_current');
    const run = await runAction(inputsFor(s, { command: 'rollback' }));
    expect(run.exitCode).toBe(0);
    expect(run.outputs).toMatchObject({
      'deployment-id': 'dep_current',
      'rolled-back': 'true',
      'rollback-status': 'succeeded',
    });
    expect(run.outputs['rollback-id']).not.toBe('dep_current');
  });

  it('fails when the rollback does not complete', async () => {
    const s = await start();
    s.addClaw('c1', { rollbackPlan: [['rolling_back']] });
    s.addDeployment('c1', [['live']], 'dep_live');
    const run = await runAction(inputsFor(s, { command: 'rollback', timeout: '1s' }));
    expect(run.exitCode).toBe(1);
    expect(run.outputs).toMatchObject({ 'rolled-back': 'false', outcome: 'timed-out' });
  });
});

describe('cancellation with real signals', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'on %s: stops, reports cancelled, rolls back when rollback-on has cancelled, exits within 7.5 s',
    async (signal) => {
      const s = await start();
      s.addClaw('c1', { plan: [['in_progress']] });
      const { run, exitMs } = await runAndSignal(
        inputsFor(s, { 'auto-rollback': 'true', 'rollback-on': 'failed,cancelled', timeout: '10m' }),
        /deployment dep_0001: in_progress/,
        signal,
      );
      expect(exitMs).toBeLessThan(7500);
      expect(run.exitCode).toBe(1);
      expect(run.outputs).toMatchObject({
        outcome: 'cancelled',
        'deployment-id': 'dep_0001',
        'rollback-id': 'dep_0001',
        'rolled-back': 'false',
      });
      expect(run.summary).toContain('cancelled');
      expect(rollbacks(s)).toHaveLength(1);
      expect(run.state).toMatchObject({ 'deployment-id': 'dep_0001', final: 'false', finished: 'true' });
    },
  );

  it('without cancelled in rollback-on: reports and exits, no rollback', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['in_progress']] });
    const { run, exitMs } = await runAndSignal(
      inputsFor(s, { 'auto-rollback': 'true', timeout: '10m' }),
      /deployment dep_0001: in_progress/,
      'SIGINT',
    );
    expect(exitMs).toBeLessThan(7500);
    expect(run.outputs).toMatchObject({ outcome: 'cancelled', 'rolled-back': 'false', 'rollback-id': '' });
    expect(run.errors[0]).toContain('cancelled while waiting for deployment dep_0001');
    expect(rollbacks(s)).toHaveLength(0);
  });

  it('exits within the grace period even while a request hangs', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['in_progress']] });
    s.fault({ kind: 'hang', method: 'GET', path: '/deployments/', times: 1000 });
    const inputs = inputsFor(s, {
      'auto-rollback': 'true',
      'rollback-on': 'cancelled',
      timeout: '10m',
      'request-timeout': '60s',
    });
    // Half a second after the trigger, the first poll (sent after 100 ms) is hanging.
    const { run, exitMs } = await runAndSignal(inputs, /Triggered deployment dep_0001/, 'SIGINT', 500);
    expect(s.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/deployments/'))).toHaveLength(1);
    expect(exitMs).toBeLessThan(7500);
    expect(run.outputs.outcome).toBe('cancelled');
    expect(rollbacks(s)).toHaveLength(1);
  });
});

/** The key in every form the redactor knows, and two it reads through: full-width and hex. */
function keyForms(key: string): string[] {
  const fullwidth = [...key].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join('');
  return [...encodedForms(key), fullwidth, Buffer.from(key).toString('hex')];
}

const isMask = (line: string): boolean => line.startsWith('::add-mask::');
/** The runner's mask commands in a step's stdout. */
const masksIn = (stdout: string): string[] => stdout.split('\n').filter(isMask);
/** What a reader of the log sees: stdout without the mask commands. */
const withoutMasks = (stdout: string): string =>
  stdout
    .split('\n')
    .filter((line) => !isMask(line))
    .join('\n');

describe('the post step', () => {
  it('rolls back for a main step killed with SIGKILL, and only warns', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['in_progress']] });
    const inputs = inputsFor(s, { 'auto-rollback': 'true', 'rollback-on': 'failed,cancelled', timeout: '10m' });
    const { run: main } = await runAndSignal(inputs, /deployment dep_0001: in_progress/, 'SIGKILL');
    expect(main.signal).toBe('SIGKILL');
    expect(main.state).toMatchObject({ 'deployment-id': 'dep_0001', final: 'false' });
    expect(main.state.finished).toBeUndefined();

    const post = await runAction(inputs, { entry: 'post', state: main.state });
    expect(post.exitCode).toBe(0);
    expect(post.errors).toEqual([]);
    expect(post.warnings.join('\n')).toMatch(/main step ended before it finished with deployment dep_0001/);
    expect(post.warnings.join('\n')).toMatch(/Requested a rollback of deployment dep_0001/);
    expect(rollbacks(s)).toHaveLength(1);
  });

  it('does nothing after a main step that finished', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 2000], ['crashed']] });
    const inputs = inputsFor(s, { 'auto-rollback': 'true', 'rollback-on': 'cancelled' });
    const main = await runAction(inputs);
    const before = s.requests.length;
    const post = await runAction(inputs, { entry: 'post', state: main.state });
    expect(post.exitCode).toBe(0);
    expect(post.stdout).toBe('');
    expect(s.requests).toHaveLength(before);
  });

  // Input controlled by: the service (its error body). The post step has a redactor of its own,
  // built from the same secret inputs as the main step's, not the main step's module state (empty
  // in the post step, where only the runner's exact-string masking was left).
  it('redacts the key in every form the main step does, and masks state-secret, after a killed main step', async () => {
    const key = 'ams/Post+Key7Zr9Wv2Lp4';
    const stateSecret = 'st8-Secret/Hq3Tn8Vc5Mb1';
    const forms = keyForms(key);
    const body = JSON.stringify({
      error: { code: 'bad_request', type: 'invalid_request_error', message: `refused ${forms.join(' ')} here` },
    });
    const hostile = new HostileServer(() => ({ status: 400, body }));
    await hostile.start();
    try {
      const inputs = {
        ...inputsFor({ url: hostile.url }, { 'auto-rollback': 'true', 'rollback-on': 'cancelled' }),
        'api-key': key,
        'state-secret': stateSecret,
      };
      const post = await runAction(inputs, { entry: 'post', state: { 'deployment-id': 'dep_0001', final: 'false' } });
      expect(post.exitCode).toBe(0);
      expect(hostile.requests.some((r) => r.method === 'POST' && r.path.endsWith('/rollback'))).toBe(true);
      const shown = withoutMasks(post.stdout);
      expect(shown).toMatch(/Post step: .*refused \*\*\*/);
      for (const form of forms) expect(shown).not.toContain(form);
      expect(post.stdout).toContain(`::add-mask::${stateSecret}`);
    } finally {
      await hostile.stop();
    }
  });

  // Input controlled by: the service (its error body). The same as above, but the post step is
  // reached as the runner reaches it: after the main step was killed mid-wait, with the state it
  // saved, and the same inputs. What the main step masked, the post step masks too.
  it('after a main step killed with SIGKILL, redacts the key in every form and masks what the main step masked', async () => {
    const key = 'ams/Kill+Key3Qx8Rt5Nb6';
    const stateSecret = 'st8-Killed/Wd4Ys7Fp2Gc9';
    const forms = keyForms(key);
    const s = await start({ keys: { [key]: ALL_SCOPES } });
    s.addClaw('c1', { plan: [['in_progress']] });
    s.fault({
      kind: 'error',
      method: 'POST',
      path: /\/rollback$/,
      status: 400,
      body: {
        error: { code: 'bad_request', type: 'invalid_request_error', message: `refused ${forms.join(' ')} here` },
      },
      times: 1,
    });
    const inputs = inputsFor(s, {
      'api-key': key,
      'state-secret': stateSecret,
      'auto-rollback': 'true',
      'rollback-on': 'cancelled',
      timeout: '10m',
    });
    const { run: main } = await runAndSignal(inputs, /deployment dep_0001: in_progress/, 'SIGKILL');
    expect(main.signal).toBe('SIGKILL');
    expect(main.state).toMatchObject({ 'deployment-id': 'dep_0001', final: 'false' });

    const post = await runAction(inputs, { entry: 'post', state: main.state });
    expect(post.exitCode).toBe(0);
    expect(rollbacks(s)).toHaveLength(1);
    expect(masksIn(main.stdout)).toEqual(expect.arrayContaining([`::add-mask::${key}`, `::add-mask::${stateSecret}`]));
    expect(masksIn(post.stdout)).toEqual(expect.arrayContaining(masksIn(main.stdout)));
    const shown = withoutMasks(post.stdout);
    expect(shown).toMatch(/Post step: .*refused \*\*\*/);
    for (const form of forms) expect(shown).not.toContain(form);
  });

  it('never fails the job, even when the service is gone', async () => {
    const s = await start();
    const inputs = inputsFor(s, { 'auto-rollback': 'true', 'rollback-on': 'cancelled' });
    await s.stop();
    const post = await runAction(inputs, { entry: 'post', state: { 'deployment-id': 'dep_0001', final: 'false' } });
    expect(post.exitCode).toBe(0);
    expect(post.errors).toEqual([]);
    expect(post.warnings.join('\n')).toMatch(/Post step: /);
  });
});
