// Runs the simulator on its own: `npm run sim -- [--port N] [--shape NAME] [--speed N] [--week DIR]`.
// Prints its URL and demo key, then serves until stopped; with --week, first writes a week of
// health history and the status page into DIR (see week.ts). Used by the CI job that runs the
// action with `uses: ./`. Behaviour mode (comparing deployments): `claw-behaviour` answers each
// question `PASS` or `FAIL` by chance — `--pass-rate P` overall (80% of questions near-certain,
// 20% flaky), replies of `--latency MS` median — and its next deployment brings
// `--after-pass-rate` and `--after-latency` (default: unchanged).
import { parseArgs } from 'node:util';
import { behavingClaw, referenceBehaviour } from './behaviour.ts';
import { DEMO_KEY, Simulator } from './server.ts';
import { SHAPES } from './shapes.ts';
import { seedWeek } from './week.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    shape: { type: 'string', default: 'plain' },
    speed: { type: 'string', default: '1' },
    'pass-rate': { type: 'string', default: '0.9' },
    latency: { type: 'string', default: '800' },
    'after-pass-rate': { type: 'string' },
    'after-latency': { type: 'string' },
    week: { type: 'string' },
  },
});
if (!(values.shape in SHAPES)) throw new Error(`--shape must be one of ${Object.keys(SHAPES).join(', ')}`);
const sim = new Simulator({
  shape: values.shape,
  speed: Number(values.speed),
  urls: true,
  rateLimit: { limit: 60, windowMs: 60_000 },
});
sim.addClaw('claw-demo', { plan: [['queued', 1000], ['building', 2000], ['rolling_out', 2000], ['live']] });
sim.addClaw('claw-broken', { plan: [['queued', 1000], ['building', 1000], ['crashed']] });
sim.addClaw('claw-health', { chat: { mode: 'task', taskMs: 1500, reply: 'pong' } });
sim.addDeployment('claw-health', [['live']]);
const share = (name: string, text: string): number => {
  const x = Number(text);
  if (!(x >= 0 && x <= 1)) throw new Error(`--${name} must be a share between 0 and 1, not ${text}`);
  return x;
};
/** The reference profile scaled so its questions average the pass rate asked for. */
const profile = (passRate: number, latencyMs: number, seed: number) => ({
  ...referenceBehaviour(1 - passRate / 0.9, latencyMs),
  seed,
});
const [rate, latency] = [share('pass-rate', values['pass-rate']), Number(values.latency)];
sim.addClaw(
  'claw-behaviour',
  behavingClaw(
    profile(rate, latency, 1),
    [
      profile(
        values['after-pass-rate'] ? share('after-pass-rate', values['after-pass-rate']) : rate,
        values['after-latency'] ? Number(values['after-latency']) : latency,
        2,
      ),
    ],
    'task',
  ),
);
sim.addDeployment('claw-behaviour', [['live']]);
const url = await sim.start(Number(values.port));
if (values.week) {
  await seedWeek(sim, values.week, (line) => console.log(line));
  console.log(
    `a week of history is in ${values.week}; add this run and open ${values.week}/index.html:\n  CLAW_DEPLOY_API_KEY=${DEMO_KEY} node bin/claw-deploy.cjs health --claw-id claw-demo,claw-health --probe-message ping --base-url ${url}/v1 --history-dir ${values.week} --status-page`,
  );
}
console.log(`simulator listening on ${url}/v1 (key: ${DEMO_KEY})`);
const stop = (): void => void sim.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
