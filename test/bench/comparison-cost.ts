// What a comparison costs at the budget teams have: deploy one Claw through dist/index.js with a
// realistic checks file (per-question pass chances from a mixture: 7 in 10 near-certain, 2 flaky,
// 1 near-never), under a team limit of 60 or 300 requests a minute, with the plain gate
// (`baseline: none`), with `baseline: before` and with `baseline: saved` (the second deploy in a row
// through the command line with a history folder: the first one's saved run is its baseline, and
// only the second is counted), for an identical release and for a clear regression (every
// answer's chance to 0.2). The Claw answers at once (sync) or through a task
// (log-normal, median 800 ms). Time is scaled: the simulator's minute lasts 60 s / speed, its tasks
// 1 / speed as long; times are given in the simulator's time. Measures; never passes or fails.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { COMPILE_CACHE, ROOT, collect, runAction, workspaceWith } from '../e2e/harness.ts';
import { behavingClaw, questionsFile } from '../sim/behaviour.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { compareSides } from '../../src/compare/engine.ts';
import { crossingProbability, decisive, lookLevels } from '../../src/compare/sequential.ts';
import { seededUniform } from '../../src/compare/distributions.ts';
import type { AttemptSample } from '../../src/checks/result.ts';
import type { Side } from '../../src/compare/types.ts';
import { informs } from '../../src/checks/informs.ts';
import { type Figure, type Measured, amount, block, percent, share, text, times } from './figures.ts';

/** 7 in 10 near-certain, 2 flaky, 1 near-never: cycled over the questions by their number. */
export const REALISTIC_RATES = [0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.6, 0.5, 0.03];

export interface CostScenario {
  perMinute: number;
  mode: 'sync' | 'task';
  release: 'identical' | 'regression';
  baseline: 'none' | 'before' | 'saved';
  questions: number;
  repeats: number;
  speed: number;
  seed?: number;
}

export interface CostFigures extends CostScenario {
  /** Messages and task polls: the conversation's requests (the deployment's own are apart). */
  conversation: number;
  requests: number;
  rateLimited: number;
  /** Wall time in the simulator's time (real × speed). */
  simSeconds: number;
  behaviour: string;
  costLine: string;
}

export async function measureComparisonCost(s: CostScenario): Promise<CostFigures> {
  const dir = workspaceWith({ 'checks.yml': questionsFile(s.questions, s.repeats) });
  const sim = new Simulator({
    speed: s.speed,
    rateLimit: { limit: s.perMinute, windowMs: 60_000 / s.speed, resetForm: 'epoch-ms' },
  });
  const profile = { passRates: REALISTIC_RATES, latencyMs: 800, latencySigma: 0.5, seed: s.seed ?? 1 };
  const change = s.release === 'regression' ? { passRates: [0.2] } : {};
  // saved: a first deployment (the same release) leaves its run; the second is the one measured.
  sim.addClaw('c1', behavingClaw(profile, s.baseline === 'saved' ? [{}, change] : [change], s.mode));
  const url = await sim.start();
  const pollInterval = `${Math.max(50, Math.round(5000 / s.speed))}ms`;
  if (s.baseline === 'saved') await deployWithHistory(url, dir, pollInterval);
  const from = sim.requests.length;
  const began = performance.now();
  const log: string =
    s.baseline === 'saved'
      ? (await deployWithHistory(url, dir, pollInterval)).stderr
      : (
          await runAction(
            {
              'api-key': DEMO_KEY,
              'base-url': `${url}/v1`,
              'claw-id': 'c1',
              'poll-interval': pollInterval,
              timeout: '60m',
              checks: 'checks.yml',
              baseline: s.baseline,
            },
            { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 1_800_000 },
          )
        ).stdout;
  const seconds = ((performance.now() - began) / 1000) * s.speed;
  await sim.stop();
  const requests = sim.requests.slice(from);
  const conversation = requests.filter(
    (r) => (r.method === 'POST' && r.path.startsWith('/v1/chat/')) || r.path.startsWith('/v1/tasks/'),
  ).length;
  return {
    ...s,
    conversation,
    requests: requests.length,
    rateLimited: requests.filter((r) => r.status === 429).length,
    simSeconds: seconds,
    behaviour: /behaviour (regressed|improved|unchanged|inconclusive)/.exec(log)?.[1] ?? '—',
    costLine: /Comparing[^\n]*/.exec(log)?.[0] ?? '',
  };
}

/** `claw-deploy deploy --baseline saved --history-dir hist` in `cwd`, as a user runs it (the bin over dist/). */
async function deployWithHistory(url: string, cwd: string, pollInterval: string): Promise<{ stderr: string }> {
  const args = ['deploy', '--claw-id', 'c1', '--checks', 'checks.yml', '--baseline', 'saved', '--history-dir', 'hist'];
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'claw-deploy.cjs'),
      ...args,
      ...['--base-url', `${url}/v1`, '--poll-interval', pollInterval, '--timeout', '60m'],
    ],
    {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        CLAW_DEPLOY_API_KEY: DEMO_KEY,
        ...COMPILE_CACHE,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return collect(child, { killAfterMs: 1_800_000 });
}

/** Every scenario at one budget and mode: the plain gate and the comparison, for both releases. */
export async function measureCosts(
  perMinute: number,
  mode: 'sync' | 'task',
  questions: number,
  repeats: number,
  speed: number,
  baselines: readonly CostScenario['baseline'][] = ['none', 'before', 'saved'],
): Promise<CostFigures[]> {
  const out: CostFigures[] = [];
  for (const release of ['identical', 'regression'] as const)
    for (const baseline of baselines)
      out.push(await measureComparisonCost({ perMinute, mode, release, baseline, questions, repeats, speed }));
  return out;
}

export function costTable(figures: CostFigures[]): string[] {
  const plainOf = (f: CostFigures) =>
    figures.find(
      (g) => g.baseline === 'none' && g.release === f.release && g.mode === f.mode && g.perMinute === f.perMinute,
    );
  return [
    '| limit | Claw | release | baseline | conversation requests | × plain gate | 429s | time (simulated) | behaviour |',
    '|---|---|---|---|---:|---:|---:|---:|---|',
    ...figures.map((f) => {
      const plain = plainOf(f);
      const ratio = plain ? (f.conversation / plain.conversation).toFixed(2) : '—';
      return `| ${f.perMinute}/min | ${f.mode} | ${f.release} | ${f.baseline} | ${f.conversation} | ${ratio} | ${f.rateLimited} | ${(f.simSeconds / 60).toFixed(1)} min | ${f.behaviour} |`;
    }),
    figures.length ? `(${figures[0].questions} questions × ${figures[0].repeats} repeats, one Claw)` : '',
  ];
}

// --- the sequential rule, simulated in process --------------------------------------------------

export interface SequentialFigures {
  scenario: string;
  runs: number;
  regressed: number;
  /** Messages of both sides, on average, against the plain gate's and against the suite as written. */
  messages: number;
  plain: number;
  written: number;
  stoppedEarly: number;
}

/**
 * `runs` comparisons of `questions` × `repeats` on the realistic suite, asked as the gate asks them
 * (the baseline in rounds, a question that answers the same twice asked no more; the candidate in
 * rounds with a look after each, src/compare/sequential.ts), the candidate's chances times `factor`
 * (1: an identical release) or all set to `to`. The plain gate asks each question until it fails or
 * has passed `repeats` times (min-pass = repeat).
 */
export function simulateSequential(
  runs: number,
  questions: number,
  repeats: number,
  change: { factor?: number; to?: number },
  seed = 1,
): SequentialFigures {
  const uniform = seededUniform(seed);
  const rate = (q: number) => REALISTIC_RATES[q % REALISTIC_RATES.length];
  const after = (q: number) => (change.to !== undefined ? change.to : rate(q) * (change.factor ?? 1));
  const latency = () =>
    800 * Math.exp(0.5 * Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform()));
  const draw = (p: number): AttemptSample => ({ outcome: uniform() < p ? 'pass' : 'fail', latencyMs: latency() });
  let regressed = 0;
  let messages = 0;
  let plain = 0;
  let stoppedEarly = 0;
  const levels = lookLevels(repeats);
  for (let run = 0; run < runs; run++) {
    const before: AttemptSample[][] = Array.from({ length: questions }, () => []);
    const candidate: AttemptSample[][] = Array.from({ length: questions }, () => []);
    for (let round = 1; round <= repeats; round++)
      for (let q = 0; q < questions; q++)
        if (informs(repeats, before[q], before[q].length, round, [], false)) before[q].push(draw(rate(q)));
    let verdict = '';
    for (let round = 1; round <= repeats; round++) {
      let asked = 0;
      for (let q = 0; q < questions; q++)
        if (informs(repeats, candidate[q], candidate[q].length, round, before[q], true)) {
          candidate[q].push(draw(after(q)));
          asked += 1;
        }
      const last = round === repeats || asked === 0;
      const look = compareSides(...sides(before, candidate), { level: last ? levels.at(-1)! : levels[round - 1] });
      if (last) {
        verdict = look.behaviour;
        break;
      }
      const stop = decisive(look);
      if (stop) {
        verdict = stop;
        stoppedEarly += 1;
        break;
      }
    }
    if (verdict === 'regressed') regressed += 1;
    messages += before.flat().length + candidate.flat().length;
    for (let q = 0; q < questions; q++) {
      for (let r = 0; r < repeats; r++) {
        plain += 1;
        if (uniform() >= after(q)) break;
      }
    }
  }
  const name =
    change.to !== undefined
      ? `every answer's chance to ${change.to}`
      : change.factor === 1
        ? 'identical'
        : `chances × ${change.factor}`;
  return {
    scenario: `${questions} × ${repeats}, ${name}`,
    runs,
    regressed,
    messages: messages / runs,
    plain: plain / runs,
    written: 2 * questions * repeats,
    stoppedEarly,
  };
}

/** Both sides as the engine reads them, each question's samples cut to the repeats both made. */
function sides(before: AttemptSample[][], candidate: AttemptSample[][]): [Side, Side] {
  const side = (label: string, all: AttemptSample[][], other: AttemptSample[][]): Side => ({
    label,
    checks: all.map((samples, q) => ({
      check: `q${q}`,
      attempts: samples
        .slice(0, other[q].length)
        .map(({ outcome, latencyMs }) => ({ question: `q${q}`, outcome, latencyMs })),
    })),
  });
  return [side('before', before, candidate), side('after', candidate, before)];
}

export function sequentialTable(figures: SequentialFigures[]): string[] {
  return [
    '| scenario | comparisons | `regressed` | stopped early | messages (both sides) | × plain gate | × suite as written |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...figures.map(
      (f) =>
        `| ${f.scenario} | ${f.runs} | ${((100 * f.regressed) / f.runs).toFixed(1)}% | ${((100 * f.stoppedEarly) / f.runs).toFixed(0)}% | ${f.messages.toFixed(1)} | ${(f.messages / f.plain).toFixed(2)} | ${(f.messages / f.written).toFixed(2)} |`,
    ),
  ];
}

/** A cost row's figure name: `cost.60.task.regression.before`. */
const costName = (f: CostScenario) => `cost.${f.perMinute}.${f.mode}.${f.release}.${f.baseline}`;

/**
 * The cost figures by name (test/bench/figures.ts): for each row `cost.LIMIT.MODE.RELEASE.BASELINE`
 * `.requests` (the conversation's), `.x-plain` (against the plain gate's), `.minutes` (simulated),
 * `.behaviour`; `.line` (the cost line said before the first request) for a comparison's rows;
 * `cost.questions`, `cost.repeats`, and the table as `cost.table`.
 */
export function costFigures(figures: CostFigures[]): Measured {
  const out: Record<string, Figure> = {};
  const table = costTable(figures);
  out['cost.table'] = block(table.slice(0, -1));
  if (figures.length) {
    out['cost.questions'] = amount(figures[0].questions);
    out['cost.repeats'] = amount(figures[0].repeats);
  }
  for (const f of figures) {
    const plain = figures.find((g) => costName(g) === costName({ ...f, baseline: 'none' }));
    out[`${costName(f)}.requests`] = amount(f.conversation);
    out[`${costName(f)}.x-plain`] = times(plain ? f.conversation / plain.conversation : NaN);
    out[`${costName(f)}.minutes`] = amount(f.simSeconds / 60, 1, ' min');
    out[`${costName(f)}.behaviour`] = text(f.behaviour);
    if (f.baseline === 'before' && f.costLine) {
      out[`${costName(f)}.line`] = text(f.costLine);
      // The power line the cost line ends with: what the suite can find.
      const power = /\d+ questions? × \d+ repeats?: [^;]*$/.exec(f.costLine.replace(/\.$/, ''))?.[0];
      if (power) out[`${costName(f)}.power-line`] = text(power);
    }
  }
  return { lines: table, figures: out };
}

/** A sequential scenario's figure name: `sequential.30x3.identical`, `.to0.2`, `.x0.8`. */
const sequentialName = (f: SequentialFigures) => {
  const [size, change] = f.scenario.split(', ');
  const kind =
    change === 'identical'
      ? 'identical'
      : change.startsWith('every')
        ? `to${change.split(' ').at(-1)}`
        : `x${change.split(' ').at(-1)}`;
  return `sequential.${size.replace(' × ', 'x')}.${kind}`;
};

/**
 * The sequential rule's figures by name: per scenario `.regressed`, `.stopped-early`, `.messages`,
 * `.x-plain`, `.x-written`; the plan's looks for 3 and 5 repeats (`sequential.plan.LOOKS.interim`,
 * `.last`, and `.spent`: the level the plan spends under the normal model, looks equally spaced);
 * the table as `sequential.table`.
 */
export function sequentialFigures(figures: SequentialFigures[]): Measured {
  const table = sequentialTable(figures);
  const out: Record<string, Figure> = {
    'sequential.table': block(table),
    'sequential.runs': amount(figures[0]?.runs ?? 0),
  };
  for (const f of figures) {
    const name = sequentialName(f);
    out[`${name}.regressed`] = share(f.regressed, f.runs);
    out[`${name}.stopped-early`] = share(f.stoppedEarly, f.runs, 0);
    out[`${name}.messages`] = amount(f.messages, 1);
    out[`${name}.x-plain`] = times(f.messages / f.plain);
    out[`${name}.x-written`] = times(f.messages / f.written);
  }
  for (const looks of [3, 5]) {
    const levels = lookLevels(looks);
    const timesAt = levels.map((_, k) => (k + 1) / looks);
    out[`sequential.plan.${looks}.interim`] = percent(levels[0], 1);
    out[`sequential.plan.${looks}.last`] = percent(levels.at(-1)!, 1);
    out[`sequential.plan.${looks}.spent`] = percent(crossingProbability(levels, timesAt), 1);
  }
  return { lines: table, figures: out };
}
