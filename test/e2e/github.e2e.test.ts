// GitHub Deployments, opt-in with `environment`: dist/index.js against the simulator and a fake
// of GitHub's REST API reached through GITHUB_API_URL.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../sim/github.ts';
import type { Plan, Simulator } from '../sim/server.ts';
import { WORKFLOW_TOKEN, runAction } from './harness.ts';
import { gitHubPerTest, inputsFor, simulatorPerTest } from './service.ts';

const startSimulator = simulatorPerTest({ urls: true, rollbackForm: 'new-deployment' });
const startGitHub = gitHubPerTest();

async function start(plan: Plan, options: { createStatus?: number } = {}) {
  const sim = await startSimulator();
  sim.addClaw('c1', { plan });
  return { s: sim, gh: await startGitHub(options) };
}

const inputs = (s: Simulator, extra: Record<string, string> = {}) =>
  inputsFor(s, { environment: 'production', ...extra });

const env = (gh: FakeGitHub) => ({ GITHUB_API_URL: gh.url });

describe('GitHub Deployments through dist/index.js', () => {
  it('success: one deployment for the commit, in_progress at the trigger, then success with the URL', async () => {
    const { s, gh } = await start([['pending', 2000], ['live']]);
    const run = await runAction(inputs(s), { env: env(gh) });
    expect(run.exitCode).toBe(0);
    expect(gh.creates()).toEqual([
      expect.objectContaining({
        ref: 'a1b2c3d4e5f6a7b8c9d0',
        environment: 'production',
        auto_merge: false,
        required_contexts: [],
        payload: { claws: ['c1'], deploymentIds: ['dep_0001'] },
      }),
    ]);
    expect(String(gh.creates()[0].description).length).toBeLessThan(140);
    expect(gh.requests[0].path).toBe('/repos/octo/claws/deployments');
    expect(gh.requests[0].authorization).toContain(WORKFLOW_TOKEN);
    expect(gh.statuses()).toEqual([
      expect.objectContaining({ state: 'in_progress', log_url: 'https://github.com/octo/claws/actions/runs/4242' }),
      expect.objectContaining({
        state: 'success',
        environment_url: 'https://dashboard.example.com/deployments/dep_0001',
      }),
    ]);
    expect(run.outputs['github-deployment-id']).toBe('1001');
    expect(run.stdout.replace(`::add-mask::${WORKFLOW_TOKEN}`, '')).not.toContain(WORKFLOW_TOKEN);
  });

  it('failure: a failed deployment is a failure, and a successful rollback says so', async () => {
    const { s, gh } = await start([['pending', 2000], ['crashed']]);
    const run = await runAction(inputs(s, { 'auto-rollback': 'true' }), { env: env(gh) });
    expect(run.exitCode).toBe(1);
    const statuses = gh.statuses();
    expect(statuses.map((st) => st.state)).toEqual(['in_progress', 'failure']);
    expect(String(statuses[1].description)).toMatch(/failed \(deployment dep_0001\), rolled back \(dep_0002\)/);
    expect(String(statuses[1].description).length).toBeLessThan(140);
  });

  it('time-out: the deployment ends as an error', async () => {
    const { s, gh } = await start([['in_progress']]);
    const run = await runAction(inputs(s, { timeout: '2s' }), { env: env(gh) });
    expect(run.outputs.outcome).toBe('timed-out');
    expect(gh.statuses().map((st) => st.state)).toEqual(['in_progress', 'error']);
  });

  it('a 403 on create is one warning naming the permission, and the outcome stands', async () => {
    const { s, gh } = await start([['pending', 2000], ['live']], { createStatus: 403 });
    const run = await runAction(inputs(s), { env: env(gh) });
    expect(run.exitCode).toBe(0);
    expect(run.outputs.outcome).toBe('succeeded');
    expect(run.warnings.filter((w) => w.includes('GitHub Deployments'))).toEqual([
      expect.stringContaining("403 forbidden. Give the workflow 'permissions: deployments: write'"),
    ]);
    expect(gh.requests).toHaveLength(1);
    expect(run.outputs['github-deployment-id']).toBe('');
  });

  it('makes no call without environment', async () => {
    const { s, gh } = await start([['live']]);
    const run = await runAction(inputs(s, { environment: '' }), { env: env(gh) });
    expect(run.exitCode).toBe(0);
    expect(gh.requests).toHaveLength(0);
  });

  it('the post step writes error for a main step that was killed', async () => {
    const { s, gh } = await start([['in_progress']]);
    const main = await runAction(inputs(s, { timeout: '10m' }), {
      env: env(gh),
      onLine: (line: string, child: ChildProcess) => {
        // Killed once GitHub has the in_progress status, however slow the machine.
        if (!/deployment dep_0001: in_progress/.test(line)) return;
        const killWhenMarked = (): void => {
          if (gh.statuses().some((st) => st.state === 'in_progress')) child.kill('SIGKILL');
          else setTimeout(killWhenMarked, 20);
        };
        killWhenMarked();
      },
    });
    expect(main.signal).toBe('SIGKILL');
    expect(main.state['github-deployment-id']).toBe('1001');
    const post = await runAction(inputs(s), { entry: 'post', state: main.state, env: env(gh) });
    expect(post.exitCode).toBe(0);
    expect(gh.statuses().map((st) => st.state)).toEqual(['in_progress', 'error']);
  });

  it('a fleet rollout makes one GitHub deployment for the step', async () => {
    const { s, gh } = await start([['pending', 2000], ['live']]);
    s.addClaw('c2', { plan: [['pending', 2000], ['live']] });
    const run = await runAction(inputs(s, { 'claw-id': 'c1, c2' }), { env: env(gh) });
    expect(run.exitCode).toBe(0);
    expect(gh.creates()).toEqual([expect.objectContaining({ payload: { claws: ['c1', 'c2'], deploymentIds: [] } })]);
    expect(gh.statuses().map((st) => st.state)).toEqual(['in_progress', 'success']);
    expect(String(gh.statuses()[1].description)).toMatch(/^Rollout of 2 Claw\(s\): succeeded; 2 deployed/);
  });
});
