// The checks gate under a tight team limit: `health` through dist/index.js on 4 Claws × 4 checks ×
// `repeat: 2` under 20 requests per 3 s, one Claw answering through a task and one whose chat
// answers 503, each check with an llm-rubric graded by a fake judge on loopback. Run twice: with
// an empty judge cache, then with the cache the first run left. Measures; never passes or fails.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAction } from '../e2e/harness.ts';
import { FakeJudge } from '../sim/judge.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';

export interface GateFigures {
  run: string;
  /** Requests the service answered, and how many of them were 429s. */
  requests: number;
  rateLimited: number;
  /** The most requests answered in any one window. */
  busiestWindow: number;
  seconds: number;
  /** Verdicts right: the Claws that should pass did, the failing ones did not. */
  verdictsRight: number;
  judgeCalls: number;
  cacheHits: number;
}

const LIMIT = 20;
const WINDOW_MS = 3000;
const CLAWS = ['claw-sync', 'claw-task', 'claw-down', 'claw-rude'];

function checksFile(judgeUrl: string): string {
  const checks = ['greeting', 'refund', 'order status', 'opening hours']
    .map(
      (name) => `  - name: ${name}
    send: ${name}?
    assert:
      - {type: not-is-refusal}
      - {type: llm-rubric, value: Answers the question about ${name} politely}`,
    )
    .join('\n');
  return `judge:\n  url: ${judgeUrl}\n  model: judge-2025-01-01\n  api-key-env: JUDGE_KEY\ndefaults: {timeout: 10s, repeat: 2}\nchecks:\n${checks}\n`;
}

/** Both runs: a cold cache, then the warm one. */
export async function measureChecksGate(): Promise<GateFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), 'claw-bench-gate-'));
  mkdirSync(join(dir, '.github'));
  const judge = new FakeJudge({
    answer: (request) => {
      const material = (request.body.messages as { content: string }[])[1].content;
      const rude = /go away/i.test(material.slice(material.indexOf('<<<REPLY')));
      return {
        content: JSON.stringify({
          reason: rude ? 'Dismissive.' : 'Polite and on topic.',
          pass: !rude,
          score: rude ? 0 : 1,
        }),
        usage: { prompt_tokens: 320, completion_tokens: 30 },
      };
    },
  });
  writeFileSync(join(dir, '.github', 'checks.yml'), checksFile(await judge.start()));
  const figures: GateFigures[] = [];
  for (const run of ['cold cache', 'warm cache']) {
    const sim = new Simulator({ rateLimit: { limit: LIMIT, windowMs: WINDOW_MS, resetForm: 'epoch-ms' } });
    sim.addClaw('claw-sync', { chat: { mode: 'sync', respond: (m) => `Happy to help with ${m}` } });
    sim.addClaw('claw-task', { chat: { mode: 'task', taskMs: 800, respond: (m) => `Here is what I know about ${m}` } });
    sim.addClaw('claw-down', { chat: { mode: 'sync' } });
    sim.addClaw('claw-rude', { chat: { mode: 'sync', reply: 'Go away.' } });
    sim.fault({ kind: '503', method: 'POST', path: '/chat/claw-down', times: 1_000_000 });
    const url = await sim.start();
    const began = performance.now();
    const result = await runAction(
      {
        command: 'health',
        'api-key': DEMO_KEY,
        'base-url': `${url}/v1`,
        'claw-id': CLAWS.join(','),
        'poll-interval': '1s',
        timeout: '2m',
        checks: '.github/checks.yml',
        'judge-cache': 'judge-cache.json',
      },
      { env: { GITHUB_WORKSPACE: dir, JUDGE_KEY: 'sk-bench' }, killAfterMs: 180_000 },
    );
    const seconds = (performance.now() - began) / 1000;
    const report = JSON.parse(result.outputs['checks-report'] || '[]') as {
      clawId: string;
      passed: boolean;
      judge?: { calls: number; cacheHits: number };
    }[];
    const expected = (clawId: string) => clawId === 'claw-sync' || clawId === 'claw-task';
    const perClaw = CLAWS.map((id) => report.filter((e) => e.clawId === id));
    const verdictsRight = perClaw.filter(
      (entries, i) => entries.length > 0 && entries.every((e) => e.passed === expected(CLAWS[i])),
    ).length;
    const perWindow = new Map<number, number>();
    for (const r of sim.requests) {
      if (r.status === 429) continue;
      const window = r.at - (r.at % WINDOW_MS);
      perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
    }
    figures.push({
      run,
      requests: sim.requests.length,
      rateLimited: sim.requests.filter((r) => r.status === 429).length,
      busiestWindow: Math.max(0, ...perWindow.values()),
      seconds,
      verdictsRight,
      judgeCalls: report.reduce((n, e) => n + (e.judge?.calls ?? 0), 0),
      cacheHits: report.reduce((n, e) => n + (e.judge?.cacheHits ?? 0), 0),
    });
    await sim.stop();
  }
  await judge.stop();
  return figures;
}

export function gateTable(figures: GateFigures[]): string[] {
  return [
    `| run | requests | 429s | busiest window (of ${LIMIT}) | time | verdicts right (of ${CLAWS.length} Claws) | judge calls | cache hits |`,
    '|---|---|---|---|---|---|---|---|',
    ...figures.map(
      (f) =>
        `| ${f.run} | ${f.requests} | ${f.rateLimited} | ${f.busiestWindow} | ${f.seconds.toFixed(1)} s | ${f.verdictsRight} | ${f.judgeCalls} | ${f.cacheHits} |`,
    ),
  ];
}
