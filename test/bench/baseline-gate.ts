// What `baseline: before` costs over the plain gate: deploy one Claw through dist/index.js with a
// checks file of 20 questions × 3 repeats, under a team limit of 40 requests per 5 s, with and
// without the baseline run. The Claw passes every question, so the plain gate makes every attempt
// too: the figures compare like with like. Measures; never passes or fails.
import { runAction, workspaceWith } from '../e2e/harness.ts';
import { behavingClaw, questionsFile } from '../sim/behaviour.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';

const LIMIT = 40;
const WINDOW_MS = 5000;

export interface BaselineFigures {
  baseline: string;
  requests: number;
  chats: number;
  rateLimited: number;
  seconds: number;
  behaviour: string;
}

export async function measureBaselineGate(questions = 20, repeats = 3): Promise<BaselineFigures[]> {
  const dir = workspaceWith({ 'checks.yml': questionsFile(questions, repeats) });
  const figures: BaselineFigures[] = [];
  for (const baseline of ['none', 'before']) {
    const sim = new Simulator({ speed: 20, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, resetForm: 'epoch-ms' } });
    sim.addClaw('c1', behavingClaw({ passRates: [1] }));
    const url = await sim.start();
    const began = performance.now();
    const run = await runAction(
      {
        'api-key': DEMO_KEY,
        'base-url': `${url}/v1`,
        'claw-id': 'c1',
        'poll-interval': '500ms',
        timeout: '5m',
        checks: 'checks.yml',
        baseline,
      },
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 400_000 },
    );
    figures.push({
      baseline,
      requests: sim.requests.length,
      chats: sim.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/')).length,
      rateLimited: sim.requests.filter((r) => r.status === 429).length,
      seconds: (performance.now() - began) / 1000,
      behaviour: run.outputs.behaviour || '—',
    });
    await sim.stop();
  }
  return figures;
}

export function baselineTable(figures: BaselineFigures[]): string[] {
  const plain = figures.find((f) => f.baseline === 'none')!;
  return [
    `| baseline | requests | chat messages | 429s | time | × requests | × time | behaviour |`,
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...figures.map(
      (f) =>
        `| ${f.baseline} | ${f.requests} | ${f.chats} | ${f.rateLimited} | ${f.seconds.toFixed(1)} s | ${(f.requests / plain.requests).toFixed(2)} | ${(f.seconds / plain.seconds).toFixed(2)} | ${f.behaviour} |`,
    ),
    `(20 questions × 3 repeats, one Claw, a team limit of ${LIMIT} requests per ${WINDOW_MS / 1000} s)`,
  ];
}
