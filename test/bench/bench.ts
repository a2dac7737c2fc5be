// `npm run bench`: the figures the action is judged by, printed as a table and written, with the
// date and Node version, to a temporary folder, or to the tracked test/bench/RESULTS.md with
// --write (or BENCH_WRITE=1). It measures; it never passes or fails. About 9 minutes on 2 cores.
// The figures the docs cite come from `--only docs --write` (test/bench/figures.json).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, runAction } from '../e2e/harness.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { fixedIntervalDeploy } from './baseline.ts';
import { gateTable, measureChecksGate } from './checks-gate.ts';
import { baselineTable, measureBaselineGate } from './baseline-gate.ts';
import { latencyTable, measureGateLatency } from './gate-latency.ts';
import { measureTaskLatency, measureTaskMedian, taskLatencyTable, taskMedianFigures } from './task-latency.ts';
import { costFigures, costTable, measureCosts, sequentialFigures, simulateSequential } from './comparison-cost.ts';
import { measureHealthOverTime, measureIncidentsAtScale } from './health-history.ts';
import { measureComparisons } from './compare.ts';
import { realisticFigures } from './compare-realistic.ts';
import { measureSavedRun } from './compare-saved-run.ts';
import { measureQuiet, watchFigures } from './watch.ts';
import { type Figure, type Measured, amount, recordFigures } from './figures.ts';
import { measureSuspects } from './suspects.ts';

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

// --- polling from history ---------------------------------------------------------------------

/** A usual deployment (the 3 minutes of PLAN), an early crash at a sixth of it, and a slow one (1.6×). */
const SCENARIOS: { name: string; plan: [string, number?][]; endsSimMs: number }[] = [
  { name: 'usual', plan: PLAN, endsSimMs: DEPLOY_SIM_MS },
  { name: 'early crash', plan: [['building', DEPLOY_SIM_MS / 6], ['crashed']], endsSimMs: DEPLOY_SIM_MS / 6 },
  { name: 'slow (1.6×)', plan: [['building', DEPLOY_SIM_MS * 1.6], ['live']], endsSimMs: DEPLOY_SIM_MS * 1.6 },
];
/** The Claw's last 12 successful deployments: 3 minutes to 3 minutes 20. */
const HISTORY_SIM_MS = Array.from({ length: 12 }, (_, i) => DEPLOY_SIM_MS + (i * 20_000) / 11);

interface HistoryFigures {
  who: string;
  scenario: string;
  history: boolean;
  perDeployment: number;
  lags: number[];
}

/** One run (N = 1) or one fleet step of 20, with or without timestamps in the deployments list. */
async function measureHistory(fleet: boolean, scenario: (typeof SCENARIOS)[number], history: boolean) {
  const sim = new Simulator({
    speed: SPEED,
    timestamps: history,
    rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, resetForm: 'epoch-ms' },
  });
  await sim.start();
  const claws = Array.from({ length: fleet ? 20 : 1 }, (_, i) => `claw-${i + 1}`);
  for (const id of claws) {
    sim.addClaw(id, { plan: scenario.plan });
    for (const ms of HISTORY_SIM_MS) sim.addPastDeployment(id, ms);
  }
  const run = await runAction(
    {
      'api-key': DEMO_KEY,
      'base-url': sim.url,
      'claw-id': claws.join(','),
      'poll-interval': `${POLL_MS}ms`,
      'max-failures': '100%',
      timeout: '90s',
    },
    { killAfterMs: 120_000 },
  );
  const exitAt = Date.now();
  // Lag: from each deployment's final status to when the run saw it (a fleet's report says when; one run's exit).
  const report = JSON.parse(run.outputs.report || '[]') as { clawId: string; durationMs: number | null }[];
  const lags = fleet
    ? report.filter((e) => e.durationMs !== null).map((e) => (e.durationMs ?? 0) - scenario.endsSimMs / SPEED)
    : sim.triggered().map((d) => exitAt - sim.finalAt(d));
  await sim.stop();
  return {
    who: fleet ? 'fleet of 20 (one step)' : 'N = 1',
    scenario: scenario.name,
    history,
    perDeployment: sim.requests.length / claws.length,
    lags,
  } satisfies HistoryFigures;
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

/** The command line's start-up: spawn → exit of `claw-deploy --version` (the bin, the bundle, the CLI's chunk). */
async function cliStartUp(times: number): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = Date.now();
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'claw-deploy.cjs'), '--version'], { stdio: 'ignore' });
    await new Promise((r) => child.on('close', r));
    runs.push(Date.now() - t0);
  }
  return median(runs);
}

/** The JavaScript in dist/, in bytes: what the action and the command line load from. */
function javascriptSize(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) =>
      sum +
      (e.isDirectory()
        ? javascriptSize(join(dir, e.name))
        : e.name.endsWith('.js')
          ? statSync(join(dir, e.name)).size
          : 0),
    0,
  );
}

function dirSize(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? dirSize(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );
}

/** A part's table between markers, so a run of that part alone can update it in RESULTS.md. */
function section(name: string, lines: string[]): string[] {
  return [`<!-- bench:${name} -->`, ...lines, `<!-- /bench:${name} -->`];
}

/** Replaces a part's section of test/bench/RESULTS.md (or adds it at the end), with the run's date. */
function writeSection(name: string, lines: string[]): void {
  const file = join(ROOT, 'test/bench/RESULTS.md');
  const text = readFileSync(file, 'utf8');
  const dated = [
    lines[0],
    `Run ${new Date().toISOString()} on Node ${process.version} (\`--only ${name}\`).`,
    '',
    ...lines.slice(1),
  ];
  const [open, close] = [lines[0], lines[lines.length - 1]];
  const at = text.indexOf(open);
  const end = text.indexOf(close);
  const next =
    at >= 0 && end > at
      ? text.slice(0, at) + dated.join('\n') + text.slice(end + close.length)
      : `${text.trimEnd()}\n\n${dated.join('\n')}\n`;
  writeFileSync(file, next);
}

/** Runs of dist/index.js at once (1, 5 and `runs` times 20), fleet steps of 20, fixed-interval pollers. */
async function measureAllLoad(runs: number): Promise<LoadFigures[]> {
  const load: LoadFigures[] = [];
  for (const n of [1, 5, 20]) {
    for (let run = 1; run <= (n === 20 ? runs : 1); run++) {
      process.stderr.write(`load: ${n} concurrent run(s) of dist/index.js${n === 20 ? ` (${run} of ${runs})` : ''}…\n`);
      load.push(await measureLoad('claw-deploy', n, runBundledAction));
    }
  }
  for (let run = 1; run <= runs; run++) {
    process.stderr.write(`fleet: one step rolling out 20 Claws (${run} of ${runs})…\n`);
    load.push(await measureFleet(20));
  }
  for (const n of [1, 20]) {
    process.stderr.write(`load: ${n} concurrent fixed-interval poller(s)…\n`);
    load.push(await measureLoad('fixed-interval poller', n, runFixedIntervalPoller));
  }
  return load;
}

function loadLines(load: LoadFigures[], runs: number): string[] {
  return [
    `Setup: a team limit of ${LIMIT} requests per window; time scaled ${SPEED}× (the 60 s window lasts ${WINDOW_MS / 1000} s, a ${DEPLOY_SIM_MS / 60_000}-minute deployment ${DEPLOY_SIM_MS / SPEED / 1000} s, the 5 s poll interval ${POLL_MS} ms). All runs start together. The ideal time is the longer of the deployment itself and one trigger plus one final poll per run at the team's rate. Detection lag is from the simulator's final status to the process's exit. Goals: 0 failures, 0 429s, no window above ${LIMIT - Math.ceil(LIMIT / 10)} of ${LIMIT} (the reserve kept), ≤ 1.3× ideal, lag ≤ one poll interval. N = 20 runs ${runs} times.`,
    '',
    `| runner | N | failures | 429 share | busiest window (of ${LIMIT}) | requests / deployment | total time | ideal | total ÷ ideal | detection lag median / max | duplicate deployments | peak RSS |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...load.map(
      (f) =>
        `| ${f.who} | ${f.n} | ${f.failures} | ${fmt((100 * f.rateLimited) / f.requests, 1)}% (${f.rateLimited}/${f.requests}) | ${f.busiestWindow} | ${fmt(f.perDeployment, 1)} | ${fmt(f.totalMs / 1000, 1)} s | ${fmt(f.idealMs / 1000, 1)} s | ${fmt(f.totalMs / f.idealMs, 2)}× | ${fmt(f.lagMedianMs)} / ${fmt(f.lagMaxMs)} ms (${fmt(f.lagMedianMs / POLL_MS, 2)} / ${fmt(f.lagMaxMs / POLL_MS, 2)} poll) | ${f.duplicates} | ${f.peakRssMb ? `${fmt(f.peakRssMb, 0)} MB` : '—'} |`,
    ),
  ];
}

/**
 * The figures docs/fleet.md cites: one fleet step of 20 against a matrix of 20 runs, each as the
 * range over the runs (`load.fleet.*`, `load.matrix.*`: requests per deployment, median lag, the
 * busiest window, total over ideal, 429s).
 */
function loadFigures(load: LoadFigures[]): Record<string, Figure> {
  const range = (xs: number[], digits: number, unit = '') => {
    const [lo, hi] = [Math.min(...xs), Math.max(...xs)].map((x) => fmt(x, digits));
    return { value: median(xs), text: `${lo === hi ? lo : `${lo}–${hi}`}${unit}` };
  };
  const out: Record<string, Figure> = {};
  const groups = {
    fleet: load.filter((f) => f.who === 'claw-deploy fleet (one step)'),
    matrix: load.filter((f) => f.who === 'claw-deploy' && f.n === 20),
  };
  for (const [name, runs] of Object.entries(groups)) {
    out[`load.${name}.requests-per-deployment`] = range(
      runs.map((f) => f.perDeployment),
      1,
    );
    out[`load.${name}.lag-median`] = range(
      runs.map((f) => f.lagMedianMs),
      0,
      ' ms',
    );
    out[`load.${name}.busiest-window`] = amount(max(runs.map((f) => f.busiestWindow)));
    out[`load.${name}.x-ideal`] = range(
      runs.map((f) => f.totalMs / f.idealMs),
      2,
      '×',
    );
    out[`load.${name}.rate-limited`] = amount(runs.reduce((sum, f) => sum + f.rateLimited, 0));
  }
  out['load.runs'] = amount(groups.fleet.length);
  return out;
}

/** A part's section as test/bench/RESULTS.md holds it, or a line saying how to measure it. */
function recordedSection(name: string): string[] {
  const text = readFileSync(join(ROOT, 'test/bench/RESULTS.md'), 'utf8');
  const [open, close] = [`<!-- bench:${name} -->`, `<!-- /bench:${name} -->`];
  const at = text.indexOf(open);
  const end = text.indexOf(close, at);
  return at >= 0 && end > at
    ? text.slice(at, end + close.length).split('\n')
    : section(name, [`Not measured yet: \`npm run bench -- --only ${name} --write\`.`]);
}

// --- run ------------------------------------------------------------------------------------

// `--runs K` repeats the N = 20 measurement K times (the busy case varies most from run to run);
// `--only history`, `--only checks`, `--only latency`, `--only task-latency` (`--runs`
// checks), `--only saved-cost` (`--runs` questions), `--only baseline`, `--only health` or `--only incidents` runs that table alone (and
// writes nothing down but `--only baseline --write`, its own section of test/bench/RESULTS.md).
// The parts the docs cite (DOC_PARTS below: load, compare, sequential, cost, task-median, watch; all of
// them with `--only docs`) run at the size the docs quote unless `--runs` says otherwise, and with
// --write update their sections of RESULTS.md and their figures in test/bench/figures.json.
const benchStarted = performance.now();
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '' },
    only: { type: 'string', default: '' },
    // RESULTS.md is tracked: only a run asked to (--write, or BENCH_WRITE=1) updates it.
    write: { type: 'boolean', default: process.env.BENCH_WRITE === '1' },
  },
});
const RUNS = Math.max(1, Number(args.runs || 3));
if (!args.only)
  console.log(
    'npm run bench: about 9 minutes on 2 cores (--only NAME runs one part; the figures the docs cite: --only docs).',
  );

if (args.only === 'checks') {
  console.log(gateTable(await measureChecksGate()).join('\n'));
  process.exit(0);
}
if (args.only === 'latency') {
  console.log(latencyTable(await measureGateLatency()).join('\n'));
  process.exit(0);
}
if (args.only === 'task-latency') {
  console.log(taskLatencyTable(await measureTaskLatency(RUNS)).join('\n'));
  process.exit(0);
}
// `--only saved-cost --runs Q`: the plain gate and `baseline: saved` alone (Q questions × 3), as `cost`.
if (args.only === 'saved-cost') {
  const figures = [];
  for (const perMinute of [60, 300])
    for (const mode of ['sync', 'task'] as const)
      figures.push(...(await measureCosts(perMinute, mode, RUNS, 3, 10, ['none', 'saved'])));
  console.log(costTable(figures).join('\n'));
  process.exit(0);
}
if (args.only === 'health') {
  console.log((await measureHealthOverTime()).join('\n'));
  process.exit(0);
}
if (args.only === 'baseline') {
  const lines = section('baseline', baselineTable(await measureBaselineGate()));
  console.log(lines.join('\n'));
  if (args.write) writeSection('baseline', lines);
  process.exit(0);
}
if (args.only === 'incidents') {
  console.log((await measureIncidentsAtScale()).join('\n'));
  process.exit(0);
}
// The parts whose figures the docs cite (test/bench/figures.ts), each at the size the docs quote
// unless `--runs` says otherwise: `--only NAME` runs one, `--only docs` all of them. With --write
// each updates its section of test/bench/RESULTS.md and its figures in test/bench/figures.json,
// which `npm run generate` fills into the docs.
const DOC_PARTS: { name: string; runs: number; about: string; measure: (runs: number) => Promise<Measured> }[] = [
  {
    name: 'load',
    runs: 3,
    about: 'runs of 20 at once through dist/index.js (and of 1 and 5), one-step fleets of 20, fixed-interval pollers',
    measure: async (runs) => {
      const load = await measureAllLoad(runs);
      return { lines: loadLines(load, runs), figures: loadFigures(load) };
    },
  },
  {
    name: 'compare',
    runs: 300,
    about: 'comparisons a scenario, in process (and one saved run through the command line)',
    measure: async (runs) => {
      const realistic = realisticFigures(runs);
      const saved = await measureSavedRun(join(ROOT, 'bin', 'claw-deploy.cjs'));
      return { lines: [...measureComparisons(runs), '', ...realistic.lines, '', saved], figures: realistic.figures };
    },
  },
  {
    name: 'sequential',
    runs: 1000,
    about: 'simulated comparisons a scenario, asked as the gate asks (in process)',
    measure: async (runs) =>
      sequentialFigures([
        simulateSequential(runs, 30, 3, { factor: 1 }),
        simulateSequential(runs, 30, 3, { to: 0.2 }),
        simulateSequential(runs, 30, 3, { factor: 0.8 }),
        simulateSequential(runs, 10, 3, { factor: 1 }),
        simulateSequential(runs, 50, 3, { factor: 1 }),
        simulateSequential(runs, 30, 5, { factor: 1 }),
      ]),
  },
  {
    name: 'cost',
    runs: 30,
    about: 'questions × 3 through dist/index.js, sync and task, 60 and 300 a minute (time scaled 10×)',
    measure: async (runs) => {
      const figures = [];
      for (const perMinute of [60, 300])
        for (const mode of ['sync', 'task'] as const)
          figures.push(...(await measureCosts(perMinute, mode, runs, 3, 10)));
      return costFigures(figures);
    },
  },
  {
    name: 'task-median',
    runs: 20,
    about: 'questions once each on a task Claw through dist/index.js at 60 and 300 a minute (real time)',
    measure: async (runs) => taskMedianFigures([await measureTaskMedian(60, runs), await measureTaskMedian(300, runs)]),
  },
  {
    name: 'watch',
    runs: 1000,
    about: 'simulated watches a scenario (in process)',
    measure: async (runs) => {
      const watch = watchFigures(runs);
      // The quiet years and the suspects at a fifth and a quarter of the watches, as the full run had them.
      const quiet = measureQuiet(Math.max(1, Math.round(runs / 5)));
      const suspects = measureSuspects(Math.max(1, Math.round(runs / 4)));
      return { lines: [...watch.lines, '', ...quiet, '', ...suspects], figures: watch.figures };
    },
  },
];

const docParts = args.only === 'docs' ? DOC_PARTS : DOC_PARTS.filter((p) => p.name === args.only);
if (docParts.length) {
  for (const part of docParts) {
    const runs = args.runs ? RUNS : part.runs;
    const started = performance.now();
    process.stderr.write(`${part.name}: ${runs} ${part.about}…\n`);
    const measured = await part.measure(runs);
    const lines = section(part.name, measured.lines);
    console.log(lines.join('\n'));
    const minutes = (performance.now() - started) / 60_000;
    process.stderr.write(`${part.name}: ${minutes.toFixed(1)} min\n`);
    if (args.write) {
      writeSection(part.name, lines);
      await recordFigures(
        ROOT,
        part.name,
        `npm run bench -- --only ${part.name} --runs ${runs} --write`,
        measured.figures,
      );
    }
  }
  console.log(
    `\nThe bench took ${fmt((performance.now() - benchStarted) / 60_000, 1)} min${args.write ? '; test/bench/RESULTS.md and test/bench/figures.json updated (then `npm run generate` fills the docs).' : ' (--write records the figures the docs cite).'}`,
  );
  process.exit(0);
}
const historyRuns: HistoryFigures[] = [];
for (const fleet of [false, true]) {
  for (const scenario of SCENARIOS) {
    for (const history of [false, true]) {
      for (let run = 1; run <= RUNS; run++) {
        process.stderr.write(
          `history: ${fleet ? 'fleet of 20' : 'N = 1'}, ${scenario.name}, ${history ? 'with' : 'without'} history (${run} of ${RUNS})…\n`,
        );
        historyRuns.push(await measureHistory(fleet, scenario, history));
      }
    }
  }
}
/** min / median / max of one figure over the runs of a row. */
const spread = (xs: number[], digits = 0) =>
  `${fmt(Math.min(...xs), digits)} / ${fmt(median(xs), digits)} / ${fmt(max(xs), digits)}`;
const historyRows = new Map<string, HistoryFigures[]>();
for (const f of historyRuns) {
  const key = `${f.who}|${f.scenario}|${f.history}`;
  historyRows.set(key, [...(historyRows.get(key) ?? []), f]);
}
const historyTable = [
  '| runner | deployment | history | requests / deployment (min / median / max) | ratio to no history (median) | detection lag median, ms (min / median / max of runs) | detection lag max, ms (min / median / max of runs) |',
  '|---|---|---|---|---|---|---|',
  ...[...historyRows.values()].map((runs) => {
    const f = runs[0];
    const without = historyRows.get(`${f.who}|${f.scenario}|false`) ?? [];
    const ratio = median(runs.map((r) => r.perDeployment)) / median(without.map((r) => r.perDeployment));
    return `| ${f.who} | ${f.scenario} | ${f.history ? 'yes' : 'no'} | ${spread(
      runs.map((r) => r.perDeployment),
      2,
    )} | ${fmt(ratio, 2)}× | ${spread(runs.map((r) => median(r.lags)))} | ${spread(runs.map((r) => max(r.lags)))} |`;
  }),
];
if (args.only === 'history') {
  console.log(historyTable.join('\n'));
  process.exit(0);
}

process.stderr.write('checks gate: 4 Claws × 4 checks × repeat 2 under 20 per 3 s…\n');
const gate = gateTable(await measureChecksGate());
process.stderr.write("the gate's latency under a tight budget…\n");
const latency = latencyTable(await measureGateLatency());
process.stderr.write("a 1.5 s task Claw's latency at the default poll-interval…\n");
const taskLatency = taskLatencyTable(await measureTaskLatency());
const healthTable = await measureHealthOverTime();
const incidentsTable = await measureIncidentsAtScale();
process.stderr.write('what baseline: before costs…\n');
// The parts the docs cite keep their recorded sections (`--only docs --write` measures them, with
// their figures): the full run does not measure them again at another size.
const docTables = DOC_PARTS.filter((p) => p.name !== 'load').flatMap((p) => [...recordedSection(p.name), '']);
const baselineGateTable = section('baseline', baselineTable(await measureBaselineGate()));
process.stderr.write('start-up…\n');
const start = await startUp(9);
const cliStart = await cliStartUp(9);
const kb = (file: string) => statSync(join(ROOT, file)).size / 1024;

const otherTable = [
  '| figure | value |',
  '|---|---|',
  `| start-up: spawn → first request, dist/index.js (median of 9) | ${fmt(start.actionMs)} ms |`,
  `| start-up: spawn → first request, bare node with fetch (median of 9) | ${fmt(start.bareMs)} ms |`,
  `| dist/index.js | ${fmt(kb('dist/index.js'))} KiB |`,
  `| dist/ in all | ${fmt(dirSize(join(ROOT, 'dist')) / 1024)} KiB |`,
  `| dist/ JavaScript in all (the action and the command line share it) | ${fmt(javascriptSize(join(ROOT, 'dist')) / 1024)} KiB |`,
  `| start-up: spawn → exit, claw-deploy --version (median of 9) | ${fmt(cliStart)} ms |`,
];
const report = [
  '# Benchmark results',
  '',
  `Run ${new Date().toISOString()} on Node ${process.version}, ${process.platform}/${process.arch}. Written by \`npm run bench\`; figures, not a pass/fail test.`,
  '',
  ...recordedSection('load'),
  '',
  `Polling from history: one run and one fleet step of 20, each Claw with 12 past deployments of 3m–3m20s in the list (with timestamps, or without: the fallback; either way the first poll is the one list read). The poll interval is ${POLL_MS} ms (5 s); goals: at N = 1 a usual deployment at most half the requests of no history and lag ≤ ${2 * POLL_MS} ms; an early crash (at a sixth) lag ≤ ${POLL_MS} ms + a third of the time elapsed (${POLL_MS + DEPLOY_SIM_MS / 6 / SPEED / 3} ms); a slow one (1.6×) lag ≤ ${2 * POLL_MS} ms; the fleet with history at most 0.6× the requests, median lag ≤ ${2 * POLL_MS} ms. ${RUNS} runs each.`,
  '',
  ...historyTable,
  '',
  'The checks gate: `health` on 4 Claws × 4 checks × `repeat: 2`, each check `not-is-refusal` and an `llm-rubric`, under a team limit of 20 requests per 3 s (real time), `timeout: 10s` per attempt. One Claw answers through a task (800 ms), one answers 503 to every message, one is rude (its checks should fail). The judge is a fake endpoint on loopback. Run twice: with an empty `judge-cache`, then with the file the first run left. Goals: 0 429s, every verdict right, the gate within 2× a promptfoo run of the same checks (5.5 s measured earlier: 11 s).',
  '',
  ...gate,
  '',
  "The gate's latency against the Claw's true reply time under a tight budget: `health` with 4 `latency` checks (2 s) on two Claws, one answering at once, one through an 800 ms task (polled every 100 ms), while the team's other clients spend the whole window (3 s) at every other message, so messages wait for the reset before they are sent. Goal: reported within 50 ms of the true time. Before this measure (the clock started before the wait for the budget), the same run reported 3411 / 3856 ms for the Claw that answers at once (2 of 4 checks passed) and 3631 / 11006 ms for the task. A task whose reply lands while the window is spent cannot be timed to the millisecond: no poll can see it then; the poll that reads the reply counts without its wait for the budget, so the figure is off by at most one poll interval (100 ms here), either way.",
  '',
  ...latency,
  '',
  "A task Claw's latency at the default `poll-interval` (5 s): `check` with 3 `latency` checks (3 s) on a Claw that replies through a 1.5 s task. The task is followed on its own schedule (150 ms, then an eighth of the time it has run, up to the poll interval, paced by the team's budget); the figure is the time to the first poll that saw the reply. Goal: 1.5 s ± 0.25 s. Before this schedule the same Claw reported about 5020 ms and failed `latency ≤ 3s`.",
  '',
  ...taskLatency,
  '',
  'Health over time: `health` with a chat probe, `incidents` (confirm 1) and `status-page` on N Claws, three runs against the fake GitHub API: the first creates the history branch, the second is a steady run, in the third one Claw is down and an incident opens. GitHub calls count every request to the fake; the history and the page are one commit whatever N.',
  '',
  ...healthTable,
  '',
  'Incidents at scale: `health` with `incidents` (confirm 1) and `status-page` on 1,000 Claws, all down, against the fake GitHub API. The first run opens the 1,000 issues; the steady runs find every one again (every page of the open `claw-incident` issues, 100 a page) and open none. Goal: one open issue per Claw, whatever their number.',
  '',
  ...incidentsTable,
  '',
  ...docTables,
  ...baselineGateTable,
  '',
  ...otherTable,
  '',
];
const results = args.write
  ? join(ROOT, 'test/bench/RESULTS.md')
  : join(mkdtempSync(join(tmpdir(), 'claw-bench-')), 'RESULTS.md');
writeFileSync(results, report.join('\n'));
console.log(report.join('\n'));
console.log(
  `\nThe bench took ${fmt((performance.now() - benchStarted) / 60_000, 1)} min; its results are in ${results}${args.write ? '' : ' (--write, or BENCH_WRITE=1, updates test/bench/RESULTS.md)'}.`,
);
