// `npm run bench`: the figures the action is judged by, printed as a table and written to
// test/bench/RESULTS.md with the date and Node version. It measures; it never passes or fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, runAction } from '../e2e/harness.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { fixedIntervalDeploy } from './baseline.ts';

// Time scaled 20×: a 60 s window lasts 3 s; a 3-minute deployment 9 s; a 5 s poll 250 ms.
const SPEED = 20;
const WINDOW_MS = 60_000 / SPEED;
const LIMIT = 60;
const DEPLOY_SIM_MS = 3 * 60_000;
const POLL_MS = 5000 / SPEED;
const PLAN: [string, number?][] = [
  ['queued', 20_000],
  ['building', 70_000],
  ['rolling_out', DEPLOY_SIM_MS - 90_000],
  ['live'],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const max = (xs: number[]) => Math.max(...xs);
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

interface LoadFigures {
  who: string;
  n: number;
  failures: number;
  requests: number;
  rateLimited: number;
  perDeployment: number;
  totalMs: number;
  idealMs: number;
  lagMedianMs: number;
  lagMaxMs: number;
  duplicates: number;
  /** The most requests the limit let through in any one window (goal: ≤ limit − reserve). */
  busiestWindow: number;
  peakRssMb?: number;
}

async function newSim(): Promise<Simulator> {
  const sim = new Simulator({ speed: SPEED, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, resetForm: 'epoch-ms' } });
  await sim.start();
  return sim;
}

/** The ideal: every run gets a trigger and one poll as its deployment ends, at the team's rate. */
function idealMs(n: number): number {
  const deployMs = DEPLOY_SIM_MS / SPEED;
  return Math.max(deployMs, ((2 * n) / LIMIT) * WINDOW_MS);
}

/** One run's result, however it was run. */
interface RunResult {
  ok: boolean;
  exitAt: number;
  rssKb?: number;
}

/** Requests answered (not 429) per window of the simulator's limit, at its busiest. */
function busiestWindow(sim: Simulator): number {
  const perWindow = new Map<number, number>();
  for (const r of sim.requests) {
    if (r.status === 429) continue;
    const window = r.at - (r.at % WINDOW_MS);
    perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
  }
  return Math.max(0, ...perWindow.values());
}

/** N runs of `runOne` at once against one simulator, and the figures they leave. */
async function measureLoad(
  who: string,
  n: number,
  runOne: (sim: Simulator, clawId: string) => Promise<RunResult>,
): Promise<LoadFigures> {
  const sim = await newSim();
  const claws = Array.from({ length: n }, (_, i) => `claw-${i + 1}`);
  for (const id of claws) sim.addClaw(id, { plan: PLAN });
  const started = Date.now();
  const runs = await Promise.all(claws.map((id) => runOne(sim, id)));
  const totalMs = Date.now() - started;
  const lags = runs
    .map((r, i) => {
      const dep = sim.triggered(claws[i])[0];
      return dep && r.ok ? r.exitAt - sim.finalAt(dep) : NaN;
    })
    .filter(Number.isFinite);
  const rss = runs.map((r) => r.rssKb).filter((kb): kb is number => kb !== undefined);
  await sim.stop();
  return figures(who, sim, claws, {
    failures: runs.filter((r) => !r.ok).length,
    totalMs,
    lags,
    peakRssMb: rss.length ? max(rss) / 1024 : undefined,
  });
}

/** The figures a load leaves on the simulator, with what only the runs could tell. */
function figures(
  who: string,
  sim: Simulator,
  claws: string[],
  runs: { failures: number; totalMs: number; lags: number[]; peakRssMb?: number },
): LoadFigures {
  const n = claws.length;
  return {
    who,
    n,
    failures: runs.failures,
    requests: sim.requests.length,
    rateLimited: sim.requests.filter((r) => r.status === 429).length,
    perDeployment: sim.requests.length / n,
    totalMs: runs.totalMs,
    idealMs: idealMs(n),
    lagMedianMs: median(runs.lags),
    lagMaxMs: runs.lags.length ? max(runs.lags) : NaN,
    duplicates: claws.filter((id) => sim.triggered(id).length > 1).length,
    busiestWindow: busiestWindow(sim),
    peakRssMb: runs.peakRssMb,
  };
}

/** The bundled action, as the runner runs it, reporting its peak memory on exit. */
async function runBundledAction(sim: Simulator, clawId: string): Promise<RunResult> {
  const run = await runAction(
    { 'api-key': DEMO_KEY, 'base-url': sim.url, 'claw-id': clawId, 'poll-interval': `${POLL_MS}ms`, timeout: '90s' },
    { measureRss: true, killAfterMs: 120_000 },
  );
  return { ok: run.exitCode === 0, exitAt: Date.now(), rssKb: run.peakRssKb };
}

/** One step rolling out `n` Claws at once (a fleet), against the same limit as `n` matrix runs. */
async function measureFleet(n: number): Promise<LoadFigures> {
  const sim = await newSim();
  const claws = Array.from({ length: n }, (_, i) => `claw-${i + 1}`);
  for (const id of claws) sim.addClaw(id, { plan: PLAN });
  const started = Date.now();
  const run = await runAction(
    {
      'api-key': DEMO_KEY,
      'base-url': sim.url,
      'claw-id': claws.join(','),
      'poll-interval': `${POLL_MS}ms`,
      timeout: '90s',
    },
    { measureRss: true, killAfterMs: 120_000 },
  );
  const totalMs = Date.now() - started;
  const report = JSON.parse(run.outputs.report || '[]') as { outcome: string; durationMs: number | null }[];
  // Each Claw's lag: how long after its deployment went final the rollout saw it.
  const lags = report
    .filter((e) => e.outcome === 'succeeded' && e.durationMs !== null)
    .map((e) => (e.durationMs ?? 0) - DEPLOY_SIM_MS / SPEED);
  await sim.stop();
  return figures('claw-deploy fleet (one step)', sim, claws, {
    failures: n - report.filter((e) => e.outcome === 'succeeded').length,
    totalMs,
    lags,
    peakRssMb: run.peakRssKb ? run.peakRssKb / 1024 : undefined,
  });
}

async function runFixedIntervalPoller(sim: Simulator, clawId: string): Promise<RunResult> {
  return fixedIntervalDeploy(sim.url, DEMO_KEY, clawId, POLL_MS, 90_000);
}

/** Spawn to first request at the simulator, median of `times`. */
async function startUp(times: number): Promise<{ actionMs: number; bareMs: number }> {
  const sim = await newSim();
  sim.addClaw('c1', { plan: [['live']] });
  const measure = async (args: string[], env: NodeJS.ProcessEnv): Promise<number> => {
    const before = sim.requests.length;
    const t0 = Date.now();
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    while (sim.requests.length === before) await new Promise((r) => setTimeout(r, 1));
    const first = sim.requests[before].at - t0;
    await new Promise((r) => child.on('close', r));
    return first;
  };
  const action: number[] = [];
  const bare: number[] = [];
  const outputDir = mkdtempSync(join(tmpdir(), 'claw-bench-start-'));
  for (let i = 0; i < times; i++) {
    const env = {
      PATH: process.env.PATH,
      'INPUT_API-KEY': DEMO_KEY,
      'INPUT_BASE-URL': sim.url,
      'INPUT_CLAW-ID': 'c1',
      INPUT_COMMAND: 'deploy',
      INPUT_WAIT: 'false',
      INPUT_TIMEOUT: '30s',
      'INPUT_POLL-INTERVAL': '1s',
      'INPUT_AUTO-ROLLBACK': 'false',
      'INPUT_ROLLBACK-ON': 'failed',
      'INPUT_REQUEST-TIMEOUT': '5s',
      'INPUT_AUTH-SCHEME': 'Bearer',
      'INPUT_FAIL-ON-UNHEALTHY': 'true',
      GITHUB_OUTPUT: join(outputDir, 'out'),
      GITHUB_STATE: join(outputDir, 'state'),
    };
    writeFileSync(env.GITHUB_OUTPUT, '');
    writeFileSync(env.GITHUB_STATE, '');
    action.push(await measure([join(ROOT, 'dist/index.js')], env));
    bare.push(
      await measure(['-e', `fetch(${JSON.stringify(`${sim.url}/v1/claws`)}).catch(() => {})`], {
        PATH: process.env.PATH,
      }),
    );
  }
  await sim.stop();
  return { actionMs: median(action), bareMs: median(bare) };
}

function dirSize(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? dirSize(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );
}

// --- run ------------------------------------------------------------------------------------

// `--runs K` repeats the N = 20 measurement K times (the busy case varies most from run to run).
const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const RUNS = Math.max(1, Number(args.runs));

const load: LoadFigures[] = [];
for (const n of [1, 5, 20]) {
  for (let run = 1; run <= (n === 20 ? RUNS : 1); run++) {
    process.stderr.write(`load: ${n} concurrent run(s) of dist/index.js${n === 20 ? ` (${run} of ${RUNS})` : ''}…\n`);
    load.push(await measureLoad('claw-deploy', n, runBundledAction));
  }
}
for (let run = 1; run <= RUNS; run++) {
  process.stderr.write(`fleet: one step rolling out 20 Claws (${run} of ${RUNS})…\n`);
  load.push(await measureFleet(20));
}
for (const n of [1, 20]) {
  process.stderr.write(`load: ${n} concurrent fixed-interval poller(s)…\n`);
  load.push(await measureLoad('fixed-interval poller', n, runFixedIntervalPoller));
}
process.stderr.write('start-up…\n');
const start = await startUp(9);
const kb = (file: string) => statSync(join(ROOT, file)).size / 1024;

const loadTable = [
  `| runner | N | failures | 429 share | busiest window (of ${LIMIT}) | requests / deployment | total time | ideal | total ÷ ideal | detection lag median / max | duplicate deployments | peak RSS |`,
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...load.map(
    (f) =>
      `| ${f.who} | ${f.n} | ${f.failures} | ${fmt((100 * f.rateLimited) / f.requests, 1)}% (${f.rateLimited}/${f.requests}) | ${f.busiestWindow} | ${fmt(f.perDeployment, 1)} | ${fmt(f.totalMs / 1000, 1)} s | ${fmt(f.idealMs / 1000, 1)} s | ${fmt(f.totalMs / f.idealMs, 2)}× | ${fmt(f.lagMedianMs)} / ${fmt(f.lagMaxMs)} ms (${fmt(f.lagMedianMs / POLL_MS, 2)} / ${fmt(f.lagMaxMs / POLL_MS, 2)} poll) | ${f.duplicates} | ${f.peakRssMb ? `${fmt(f.peakRssMb, 0)} MB` : '—'} |`,
  ),
];
const otherTable = [
  '| figure | value |',
  '|---|---|',
  `| start-up: spawn → first request, dist/index.js (median of 9) | ${fmt(start.actionMs)} ms |`,
  `| start-up: spawn → first request, bare node with fetch (median of 9) | ${fmt(start.bareMs)} ms |`,
  `| dist/index.js | ${fmt(kb('dist/index.js'))} KiB |`,
  `| dist/ in all | ${fmt(dirSize(join(ROOT, 'dist')) / 1024)} KiB |`,
];
const report = [
  '# Benchmark results',
  '',
  `Run ${new Date().toISOString()} on Node ${process.version}, ${process.platform}/${process.arch}. Written by \`npm run bench\`; figures, not a pass/fail test.`,
  '',
  `Setup: a team limit of ${LIMIT} requests per window; time scaled ${SPEED}× (the 60 s window lasts ${WINDOW_MS / 1000} s, a ${DEPLOY_SIM_MS / 60_000}-minute deployment ${DEPLOY_SIM_MS / SPEED / 1000} s, the 5 s poll interval ${POLL_MS} ms). All runs start together. The ideal time is the longer of the deployment itself and one trigger plus one final poll per run at the team's rate. Detection lag is from the simulator's final status to the process's exit. Goals: 0 failures, 0 429s, no window above ${LIMIT - Math.ceil(LIMIT / 10)} of ${LIMIT} (the reserve kept), ≤ 1.3× ideal, lag ≤ one poll interval. N = 20 runs ${RUNS} times.`,
  '',
  ...loadTable,
  '',
  ...otherTable,
  '',
];
writeFileSync(join(ROOT, 'test/bench/RESULTS.md'), report.join('\n'));
console.log(report.join('\n'));
