// A week of health history for the status page's preview (`npm run sim -- --week DIR`): the packed
// command line's own `health --history-dir DIR --status-page`, run against this simulator at each
// of 21 moments of the last 7 days (a hook moves its clock, as the e2e tests do), with a Claw that
// slows over the week and one down for a day. Then one more run, by hand, shows the page as of now.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, clockHook } from '../e2e/harness.ts';
import { DEMO_KEY, type Simulator } from './server.ts';

const HOUR = 3600_000;
/** A run every 8 hours for 7 days. */
const RUNS = 21;

export async function seedWeek(sim: Simulator, folder: string, say: (line: string) => void): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < RUNS; i++) {
    const at = now - (RUNS - i) * 8 * HOUR;
    const day = Math.floor(i / 3);
    // claw-health answers a little slower each day; claw-demo is offline on the third day.
    sim.claws.get('claw-health')!.chat.taskMs = 900 + 80 * day + 40 * (i % 3);
    sim.claws.get('claw-demo')!.status = day === 2 ? 'offline' : 'online';
    say(`week of history: run ${i + 1} of ${RUNS}, as of ${new Date(at).toISOString().slice(0, 16)}Z`);
    await healthAt(sim, folder, at);
  }
  sim.claws.get('claw-health')!.chat.taskMs = 1500;
  sim.claws.get('claw-demo')!.status = 'online';
}

function healthAt(sim: Simulator, folder: string, at: number): Promise<void> {
  const args = [
    join(ROOT, 'bin', 'claw-deploy.cjs'),
    'health',
    ...['--claw-id', 'claw-demo,claw-health', '--probe-message', 'ping', '--poll-interval', '250ms'],
    ...['--base-url', `${sim.url}/v1`, '--history-dir', folder, '--status-page', '--no-progress'],
  ];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, CLAW_DEPLOY_API_KEY: DEMO_KEY, NODE_OPTIONS: clockHook(at) },
    stdio: 'ignore',
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}
