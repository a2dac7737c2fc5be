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
import { addDemoClaws, seedWeek } from './week.ts';

const USAGE = `Usage: npm run sim -- [options]

Runs the service simulator on 127.0.0.1 until stopped (Ctrl-C), with a team limit of 60 requests a
minute, and prints its URL and demo key. Claws: claw-demo (deploys in 5 s), claw-broken (crashes),
claw-health (answers through a task), claw-behaviour (answers PASS or FAIL by chance).

Options:
  --port N              the port (default: any free one)
  --shape NAME          the response shape, one of: ${Object.keys(SHAPES).join(', ')} (default: plain)
  --speed N             how much faster than real time deployments move (default: 1)
  --pass-rate P         claw-behaviour: the share of answers that pass, 0 to 1 (default: 0.9)
  --latency MS          claw-behaviour: the median reply time (default: 800)
  --after-pass-rate P   claw-behaviour after its next deployment (default: unchanged)
  --after-latency MS    claw-behaviour after its next deployment (default: unchanged)
  --week DIR            first write a week of health history, deployments and the status page into DIR
                        (adding claw-support, the Claw its checks grade)
  -h, --help            this help
`;

/** The options, or the usage and exit code 2 on a mistake (one line, no stack trace). */
function options() {
  try {
    return parseArgs({
      options: {
        port: { type: 'string', default: '0' },
        shape: { type: 'string', default: 'plain' },
        speed: { type: 'string', default: '1' },
        'pass-rate': { type: 'string', default: '0.9' },
        latency: { type: 'string', default: '800' },
        'after-pass-rate': { type: 'string' },
        'after-latency': { type: 'string' },
        week: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

/** A mistake in an option: one line and the usage, exit code 2. */
function refuse(message: string): never {
  process.stderr.write(`error: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const values = options();
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (!(values.shape in SHAPES)) refuse(`--shape must be one of ${Object.keys(SHAPES).join(', ')}`);
const sim = new Simulator({
  shape: values.shape,
  speed: Number(values.speed),
  urls: true,
  rateLimit: { limit: 60, windowMs: 60_000 },
});
addDemoClaws(sim);
sim.addClaw('claw-broken', { plan: [['queued', 1000], ['building', 1000], ['crashed']] });
const share = (name: string, text: string): number => {
  const x = Number(text);
  if (!(x >= 0 && x <= 1)) refuse(`--${name} must be a share between 0 and 1, not ${text}`);
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
