// Fleet rollouts through dist/index.js: several Claws in one step, as the runner runs it.
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Plan, Simulator } from '../sim/server.ts';
import { runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const startSimulator = simulatorPerTest({ rollbackForm: 'new-deployment' });

const OK: Plan = [['pending', 2000], ['rolling_out', 4000], ['live']];
const CRASH: Plan = [['pending', 2000], ['crashed']];

async function start(plans: Plan[]): Promise<Simulator> {
  const sim = await startSimulator();
  plans.forEach((plan, i) => sim.addClaw(`c${i + 1}`, { plan }));
  return sim;
}

/** Every Claw of the simulator in one step. */
const inputs = (s: Simulator, extra: Record<string, string> = {}) =>
  inputsFor(s, { 'claw-id': [...s.claws.keys()].join(', '), timeout: '30s', ...extra });

interface ReportEntry {
  clawId: string;
  wave: number;
  deploymentId: string | null;
  status: string | null;
  outcome: string;
  rolledBack: boolean;
  rollbackId: string | null;
  durationMs: number | null;
}

describe('fleet rollout through dist/index.js', () => {
  it('canary then the rest: report, outcome, a log group per wave, a summary row per Claw', async () => {
    const s = await start([OK, OK, OK]);
    const run = await runAction(inputs(s, { waves: '1, 100%' }));
    expect(run.exitCode).toBe(0);
    expect(run.outputs.outcome).toBe('succeeded');
    expect(run.outputs['deployment-id'] ?? '').toBe('');
    const report = JSON.parse(run.outputs.report) as ReportEntry[];
    expect(report.map((e) => [e.clawId, e.wave, e.outcome, e.status])).toEqual([
      ['c1', 1, 'succeeded', 'live'],
      ['c2', 2, 'succeeded', 'live'],
      ['c3', 2, 'succeeded', 'live'],
    ]);
    expect(report.every((e) => e.deploymentId && e.durationMs && !e.rolledBack)).toBe(true);
    expect(run.commands.filter((c) => c.startsWith('::group::'))).toEqual([
      '::group::Wave 1 of 2: c1',
      '::group::Wave 2 of 2: c2, c3',
    ]);
    expect(run.summary).toContain('### ✅ Fleet rollout: succeeded');
    expect(run.summary).toContain('**3** deployed · **0** failed · **0** rolled back · **0** skipped');
    expect(run.summary.split('\n').filter((l) => /^\| \d \| `c\d` \|/.test(l))).toHaveLength(3);
  });

  it('a failing canary halts the rollout, rolls it back, and fails the step', async () => {
    const s = await start([CRASH, OK, OK]);
    const run = await runAction(inputs(s, { waves: '1', 'auto-rollback': 'true' }));
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe('failed');
    const report = JSON.parse(run.outputs.report) as ReportEntry[];
    expect(report.map((e) => [e.clawId, e.outcome, e.rolledBack])).toEqual([
      ['c1', 'failed', true],
      ['c2', 'skipped', false],
      ['c3', 'skipped', false],
    ]);
    expect(run.errors).toEqual([expect.stringMatching(/^The rollout halted \(failed\): 1 Claw\(s\) failed/)]);
    expect(s.triggered()).toHaveLength(1);
    expect(run.summary).toContain('**0** deployed · **1** failed · **1** rolled back · **2** skipped');
  });

  it('on SIGINT during a wave: cancelled, rollbacks requested, exits within the grace period', async () => {
    const s = await start([[['rolling_out']], [['rolling_out']]]);
    let signalledAt = 0;
    const run = await runAction(
      inputs(s, { 'auto-rollback': 'true', 'rollback-on': 'failed,cancelled', timeout: '10m' }),
      {
        onLine: (line: string, child: ChildProcess) => {
          if (signalledAt || !/Triggered deployment dep_\d+ of Claw c2/.test(line)) return;
          signalledAt = performance.now();
          child.kill('SIGINT');
        },
      },
    );
    expect(signalledAt).toBeGreaterThan(0);
    expect(performance.now() - signalledAt).toBeLessThan(7500);
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe('cancelled');
    const report = JSON.parse(run.outputs.report) as ReportEntry[];
    expect(report.map((e) => e.outcome)).toEqual(['cancelled', 'cancelled']);
    expect(s.requests.filter((r) => r.path.endsWith('/rollback'))).toHaveLength(2);
  });

  it('the post step rolls back what a killed rollout left in flight', async () => {
    const s = await start([[['rolling_out']], [['rolling_out']]]);
    const rolloutInputs = inputs(s, { 'auto-rollback': 'true', 'rollback-on': 'failed,cancelled', timeout: '10m' });
    const main = await runAction(rolloutInputs, {
      onLine: (line: string, child: ChildProcess) => {
        if (/Triggered deployment dep_\d+ of Claw c2/.test(line)) setTimeout(() => child.kill('SIGKILL'), 200);
      },
    });
    expect(main.signal).toBe('SIGKILL');
    expect(JSON.parse(main.state['fleet-in-flight'])).toEqual(['dep_0001', 'dep_0002']);
    const post = await runAction(rolloutInputs, { entry: 'post', state: main.state });
    expect(post.exitCode).toBe(0);
    expect(post.errors).toEqual([]);
    const rollbacks = s.requests.filter((r) => r.path.endsWith('/rollback')).map((r) => r.path);
    expect(rollbacks.sort()).toEqual(['/v1/deployments/dep_0001/rollback', '/v1/deployments/dep_0002/rollback']);
  });
});
