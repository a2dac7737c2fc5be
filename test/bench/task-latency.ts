// A task Claw's reported latency at the default poll interval: `check` through dist/index.js with
// `latency ≤ 3s` checks on a Claw that replies through a task of 1.5 s (real time), `poll-interval`
// left at its 5 s. The task is followed on its own schedule (150 ms, then an eighth of the time it
// has run), so the figure is the Claw's within a bound; what it costs is the task polls per reply.
// Measures; never passes or fails. Goal: 1.5 s ± 0.25 s, every check passed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAction } from '../e2e/harness.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { type Figure, type Measured, amount, block, times } from './figures.ts';

export const TASK_MS = 1500;

export interface TaskLatencyFigures {
  checks: number;
  reported: number[];
  passed: number;
  taskPolls: number;
  messages: number;
}

export async function measureTaskLatency(checks = 3): Promise<TaskLatencyFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'claw-bench-task-latency-'));
  const lines = Array.from(
    { length: checks },
    (_, i) => `  - {name: check ${i + 1}, send: 'Question ${i + 1}', assert: [{type: latency, threshold: 3s}]}`,
  );
  writeFileSync(join(dir, 'checks.yml'), `checks:\n${lines.join('\n')}\n`);
  const sim = new Simulator({});
  sim.addClaw('claw-task', { chat: { mode: 'task', taskMs: TASK_MS, reply: 'Answer' } });
  const url = await sim.start();
  const run = await runAction(
    {
      command: 'check',
      'api-key': DEMO_KEY,
      'base-url': `${url}/v1`,
      'claw-id': 'claw-task',
      'poll-interval': '5s', // the default
      timeout: '2m',
      checks: 'checks.yml',
    },
    { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 180_000 },
  );
  await sim.stop();
  const report = JSON.parse(run.outputs['checks-report'] || '[]') as { passed: boolean; latencyMs: number | null }[];
  return {
    checks,
    reported: report.map((e) => e.latencyMs ?? NaN),
    passed: report.filter((e) => e.passed).length,
    taskPolls: sim.requests.filter((r) => r.path.startsWith('/v1/tasks/')).length,
    messages: sim.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/chat/')).length,
  };
}

export function taskLatencyTable(f: TaskLatencyFigures): string[] {
  const sorted = [...f.reported].sort((a, b) => a - b);
  return [
    `| true reply time | poll-interval | reported latency (median / max of ${f.checks}) | checks passed (\`latency\` 3 s) | requests per reply (message + task polls) |`,
    '|---|---|---|---|---|',
    `| ${TASK_MS} ms | 5 s (the default) | ${sorted[Math.floor(sorted.length / 2)]} / ${sorted.at(-1)} ms | ${f.passed} of ${f.checks} | ${(1 + f.taskPolls / Math.max(1, f.messages)).toFixed(1)} |`,
  ];
}

export interface TaskMedianFigures {
  perMinute: number;
  questions: number;
  /** The simulator's drawn reply times (its truth) and what the checks report reported. */
  trueMedian: number;
  reportedMedian: number;
  requests: number;
  seconds: number;
}

/**
 * A task Claw with log-normal reply times (median 800 ms, sigma 0.5) under a team limit of
 * `perMinute` requests a minute, in real time (the action's own poll schedule is in real
 * milliseconds): `check` on `questions` questions once each. The truth is the simulator's draws.
 */
export async function measureTaskMedian(perMinute: number, questions: number): Promise<TaskMedianFigures> {
  const { behavingClaw, questionsFile } = await import('../sim/behaviour.ts');
  const dir = mkdtempSync(join(tmpdir(), 'claw-bench-task-median-'));
  // A minute for each attempt: at 60 a minute a message may wait for the window's reset first.
  writeFileSync(join(dir, 'checks.yml'), questionsFile(questions, 1).replace('timeout: 10s', 'timeout: 1m'));
  const sim = new Simulator({ rateLimit: { limit: perMinute, windowMs: 60_000, resetForm: 'epoch-ms' } });
  sim.addClaw('c1', behavingClaw({ passRates: [1], latencyMs: 800, latencySigma: 0.5 }, [], 'task'));
  const url = await sim.start();
  const began = performance.now();
  const run = await runAction(
    {
      command: 'check',
      'api-key': DEMO_KEY,
      'base-url': `${url}/v1`,
      'claw-id': 'c1',
      timeout: '30m',
      checks: 'checks.yml',
    },
    { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 1_900_000 },
  );
  const seconds = (performance.now() - began) / 1000;
  await sim.stop();
  const report = JSON.parse(run.outputs['checks-report'] || '[]') as { latencyMs: number | null }[];
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  return {
    perMinute,
    questions,
    trueMedian: med([...sim.tasks.values()].map((t) => t.ms)),
    reportedMedian: med(report.map((e) => e.latencyMs ?? NaN)),
    requests: sim.requests.length,
    seconds,
  };
}

export function taskMedianTable(figures: TaskMedianFigures[]): string[] {
  return [
    '| limit | questions | true median | reported median | reported / true | requests | time |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...figures.map(
      (f) =>
        `| ${f.perMinute}/min | ${f.questions} | ${Math.round(f.trueMedian)} ms | ${Math.round(f.reportedMedian)} ms | ${(f.reportedMedian / f.trueMedian).toFixed(2)} | ${f.requests} | ${f.seconds.toFixed(0)} s |`,
    ),
  ];
}

/**
 * The task median's figures by name: `task-median.LIMIT.true` / `.reported` (ms), `.ratio`
 * (reported over true), `.requests-per-question`, `.seconds`; the table as `task-median.table`.
 */
export function taskMedianFigures(figures: TaskMedianFigures[]): Measured {
  const table = taskMedianTable(figures);
  const out: Record<string, Figure> = { 'task-median.table': block(table) };
  for (const f of figures) {
    const name = `task-median.${f.perMinute}`;
    out[`${name}.questions`] = amount(f.questions);
    out[`${name}.true`] = amount(f.trueMedian, 0, ' ms');
    out[`${name}.reported`] = amount(f.reportedMedian, 0, ' ms');
    out[`${name}.ratio`] = times(f.reportedMedian / f.trueMedian);
    out[`${name}.requests-per-question`] = amount(f.requests / f.questions, 1);
    out[`${name}.seconds`] = amount(f.seconds, 0, ' s');
  }
  return { lines: table, figures: out };
}
