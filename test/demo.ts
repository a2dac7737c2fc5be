// `npm run demo`: the bundled action against the embedded simulator, a full deploy of a Claw:
// the log as the runner shows it, then the outputs and the job summary.
import { runAction } from './e2e/harness.ts';
import { DEMO_KEY, Simulator } from './sim/server.ts';

const sim = new Simulator({ urls: true, rateLimit: { limit: 60, windowMs: 60_000 } });
sim.addClaw('claw-demo', { plan: [['queued', 800], ['building', 1500], ['rolling_out', 1500], ['live']] });
const url = await sim.start();

const inputs = {
  'api-key': DEMO_KEY,
  'base-url': `${url}/v1`,
  'claw-id': 'claw-demo',
  strategy: 'blue-green',
  'poll-interval': '1s',
  timeout: '2m',
};
console.log(`Simulator on ${url}/v1. Running dist/index.js with:`);
for (const [name, value] of Object.entries(inputs)) console.log(`  ${name}: ${name === 'api-key' ? '***' : value}`);
console.log('\n── log ──────────────────────────────────────────────');
const run = await runAction(inputs, { onLine: (line) => console.log(`  ${line}`) });
await sim.stop();

console.log('\n── outputs ──────────────────────────────────────────');
for (const [name, value] of Object.entries(run.outputs)) console.log(`  ${name} = ${value}`);
console.log('\n── job summary ──────────────────────────────────────');
console.log(run.summary.replace(/^/gm, '  '));
console.log(`exit code ${run.exitCode}; ${sim.requests.length} requests to the simulator.`);
process.exitCode = run.exitCode ?? 1;
