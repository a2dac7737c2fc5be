// What a comparison costs at the budget teams have: deploy one Claw through dist/index.js with a
// realistic checks file (per-question pass chances from a mixture: 7 in 10 near-certain, 2 flaky,
// 1 near-never), under a team limit of 60 or 300 requests a minute, with the plain gate
// (`baseline: none`) and with `baseline: before`, for an identical release and for a clear
// regression (every answer's chance to 0.2). The Claw answers at once (sync) or through a task
// (log-normal, median 800 ms). Time is scaled: the simulator's minute lasts 60 s / speed, its tasks
// 1 / speed as long; times are given in the simulator's time. Measures; never passes or fails.
import { runAction, workspaceWith } from '../e2e/harness.ts';
import { behavingClaw, questionsFile } from '../sim/behaviour.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';

/** 7 in 10 near-certain, 2 flaky, 1 near-never: cycled over the questions by their number. */
export const REALISTIC_RATES = [0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.6, 0.5, 0.03];

export interface CostScenario {
  perMinute: number;
  mode: 'sync' | 'task';
  release: 'identical' | 'regression';
  baseline: 'none' | 'before';
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
  sim.addClaw('c1', behavingClaw(profile, [change], s.mode));
  const url = await sim.start();
  const began = performance.now();
  const run = await runAction(
    {
      'api-key': DEMO_KEY,
      'base-url': `${url}/v1`,
      'claw-id': 'c1',
      'poll-interval': `${Math.max(50, Math.round(5000 / s.speed))}ms`,
      timeout: '60m',
      checks: 'checks.yml',
      baseline: s.baseline,
    },
    { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 1_800_000 },
  );
  const seconds = ((performance.now() - began) / 1000) * s.speed;
  await sim.stop();
  const conversation = sim.requests.filter(
    (r) => (r.method === 'POST' && r.path.startsWith('/v1/chat/')) || r.path.startsWith('/v1/tasks/'),
  ).length;
  return {
    ...s,
    conversation,
    requests: sim.requests.length,
    rateLimited: sim.requests.filter((r) => r.status === 429).length,
    simSeconds: seconds,
    behaviour: run.outputs.behaviour || '—',
    costLine: /Comparing[^\n]*/.exec(run.stdout)?.[0] ?? '',
  };
}

/** Every scenario at one budget and mode: the plain gate and the comparison, for both releases. */
export async function measureCosts(
  perMinute: number,
  mode: 'sync' | 'task',
  questions: number,
  repeats: number,
  speed: number,
): Promise<CostFigures[]> {
  const out: CostFigures[] = [];
  for (const release of ['identical', 'regression'] as const)
    for (const baseline of ['none', 'before'] as const)
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
