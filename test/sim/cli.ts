// Runs the simulator on its own: `npm run sim -- [--port N] [--shape NAME] [--speed N]`.
// Prints its URL and demo key, then serves until stopped. Used by the CI job that runs the
// action with `uses: ./`.
import { parseArgs } from 'node:util';
import { DEMO_KEY, Simulator } from './server.ts';
import { SHAPES } from './shapes.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    shape: { type: 'string', default: 'plain' },
    speed: { type: 'string', default: '1' },
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
const url = await sim.start(Number(values.port));
console.log(`simulator listening on ${url}/v1 (key: ${DEMO_KEY})`);
const stop = (): void => void sim.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
