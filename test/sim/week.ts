// A week of health history for the status page's preview (`npm run sim -- --week DIR`): the packed
// command line's own `health --history-dir DIR --status-page`, run against this simulator at each
// of 21 moments of the last 7 days (a hook moves its clock, as the e2e tests do), with a Claw that
// slows over the week and one down for a day. Its deployments, made by the command line's own
// `deploy` and `rollback` with the same folder: a harmless one, and one that breaks half of
// claw-support's answers until it is rolled back two days later; so the page shows the deployments
// table, the watch's verdict and DORA's figures on day one. Then one more run, by hand, shows the
// page as of now.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, clockHook } from '../e2e/harness.ts';
import { behavingClaw, questionsFile } from './behaviour.ts';
import { DEMO_KEY, type Plan, type Simulator } from './server.ts';

const HOUR = 3600_000;
/** A run every 8 hours for 7 days. */
const RUNS = 21;

/** The Claws of `npm run sim` that the week checks: claw-demo deploys in 5 s, claw-health answers through a task. */
export function addDemoClaws(sim: Simulator): void {
  sim.addClaw('claw-demo', { plan: [['queued', 1000], ['building', 2000], ['rolling_out', 2000], ['live']] });
  sim.addClaw('claw-health', { chat: { mode: 'task', taskMs: 1500, reply: 'pong' } });
  sim.addDeployment('claw-health', [['live']]);
}

/** The Claw whose answers the week's checks grade, and the moments (run numbers) of its changes. */
const SUPPORT = 'claw-support';
/** Before these runs: claw-support's harmful deployment, its rollback, claw-demo's harmless deployment (after its day offline). */
const DEPLOY_HARM = 5;
const ROLL_BACK = 11;
const DEPLOY_DEMO = 12;

/** The week up to `now` (default: the real time), into `folder`; the simulator has the demo Claws. */
export async function seedWeek(
  sim: Simulator,
  folder: string,
  say: (line: string) => void,
  now = Date.now(),
): Promise<void> {
  const files = mkdtempSync(join(tmpdir(), 'claw-week-'));
  const checks = join(files, 'support-checks.yml');
  writeFileSync(checks, questionsFile(8, 2));
  // Every answer passes 995 times in 1,000; the harmful deployment brings 1 in 2 until rolled back.
  sim.addClaw(SUPPORT, { ...behavingClaw({ passRates: [0.995], seed: 7 }, [{ passRates: [0.5] }]), plan: FAST_PLAN });
  sim.addDeployment(SUPPORT, [['live']]);
  // The week is in the past: its requests do not spend the team's limit of the simulator's users.
  const limit = sim.rateLimit.options.limit;
  sim.rateLimit.options.limit = 1_000_000;
  try {
    for (let i = 0; i < RUNS; i++) {
      const at = now - (RUNS - i) * 8 * HOUR;
      const day = Math.floor(i / 3);
      // claw-health answers a little slower each day; claw-demo is offline on the third day.
      sim.claws.get('claw-health')!.chat.taskMs = 900 + 80 * day + 40 * (i % 3);
      sim.claws.get('claw-demo')!.status = day === 2 ? 'offline' : 'online';
      if (i === DEPLOY_DEMO) await cli(sim, at - HOUR, ['deploy', '--claw-id', 'claw-demo'], folder, say);
      if (i === DEPLOY_HARM) await cli(sim, at - HOUR, ['deploy', '--claw-id', SUPPORT], folder, say);
      if (i === ROLL_BACK) await cli(sim, at - HOUR, ['rollback', '--claw-id', SUPPORT], folder, say);
      say(`week of history: run ${i + 1} of ${RUNS}, as of ${new Date(at).toISOString().slice(0, 16)}Z`);
      await healthAt(sim, folder, at, checks);
    }
  } finally {
    sim.rateLimit.options.limit = limit;
    sim.claws.get('claw-health')!.chat.taskMs = 1500;
    sim.claws.get('claw-demo')!.status = 'online';
    rmSync(files, { recursive: true, force: true });
  }
}

/** A deployment of the week: claw-support's plan is short, so the week does not wait on it. */
const FAST_PLAN: Plan = [['deploying', 500], ['live']];

async function healthAt(sim: Simulator, folder: string, at: number, checks: string): Promise<void> {
  const probe = ['--claw-id', 'claw-demo,claw-health', '--probe-message', 'ping'];
  await cli(sim, at, ['health', ...probe, '--status-page'], folder);
  await cli(sim, at, ['health', '--claw-id', SUPPORT, '--checks', checks, '--status-page'], folder);
}

/** One run of the packed command line at `at`, keeping its history in `folder`. */
function cli(sim: Simulator, at: number, args: string[], folder: string, say?: (line: string) => void): Promise<void> {
  say?.(`week of history: ${args.join(' ')}, as of ${new Date(at).toISOString().slice(0, 16)}Z`);
  const argv = [
    join(ROOT, 'bin', 'claw-deploy.cjs'),
    ...args,
    ...['--poll-interval', '250ms', '--base-url', `${sim.url}/v1`, '--history-dir', folder, '--no-progress'],
  ];
  const child = spawn(process.execPath, argv, {
    env: { ...process.env, CLAW_DEPLOY_API_KEY: DEMO_KEY, NODE_OPTIONS: clockHook(at) },
    stdio: 'ignore',
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}
