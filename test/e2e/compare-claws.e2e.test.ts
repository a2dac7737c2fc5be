// promptfoo's select-best and max-score through dist/index.js, across the Claws one run checks:
// a check of three Claws and a fleet rollout of three, each test's replies compared across the
// Claws, the judge a fake OpenAI-compatible endpoint at OPENAI_BASE_URL (promptfoo's default
// grader's address). The configs are promptfoo's own docs examples, copied unchanged (path and
// commit beside each); the Claws stand where the examples' one provider stood, so each prompt's
// replies are compared across the Claws (promptfoo, with one provider, compares the prompts'). A
// run known to check one Claw is refused before any request, with the line and why.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeJudge, judgeText, verdict } from '../sim/judge.ts';
import { DEMO_KEY, type Plan } from '../sim/server.ts';
import { runAction, workspaceWith } from './harness.ts';
import { gitHubPerTest, inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const JUDGE_KEY = 'sk-compare-claws-e2e-1a2b3c4d5e';
const startJudge = judgePerTest();
const startGitHub = gitHubPerTest();
let judge: FakeJudge | undefined;

interface Report {
  check: string;
  clawId: string;
  passed: boolean;
  failure: string | null;
}
const reportOf = (outputs: Record<string, string>): Report[] => JSON.parse(outputs['checks-report']) as Report[];
/** Which Claws passed each check, by check name. */
const winners = (report: Report[]): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const e of report) {
    out[e.check] ??= [];
    if (e.passed) out[e.check].push(e.clawId);
  }
  return out;
};

// promptfoo's site/docs/configuration/expected-outputs/model-graded/select-best.md (commit
// 09fc4affb2ef4a75faf09cd2112cf3d8557156d0), its "Example Configuration" as published.
const SELECT_BEST = `prompts:
  - 'Write a tweet about {{topic}}'
  - 'Write a very concise, funny tweet about {{topic}}'

providers:
  - openai:gpt-4o

tests:
  - vars:
      topic: bananas
    assert:
      - type: select-best
        value: choose the funniest tweet

  - vars:
      topic: nyc
    assert:
      - type: select-best
        value: choose the tweet that contains the most facts
`;

// promptfoo's site/docs/configuration/expected-outputs/model-graded/max-score.md (commit
// 146b28338c1b582bfc1e290e517ef32121f659ba), "Example 2: Content generation selection" as published.
const MAX_SCORE = `prompts:
  - 'Explain {{concept}} simply'
  - 'Explain {{concept}} in detail'
  - 'Explain {{concept}} with examples'

providers:
  - anthropic:claude-haiku-4-5

tests:
  - vars:
      concept: 'machine learning'
    assert:
      - type: llm-rubric
        value: 'Explanation is accurate'

      - type: llm-rubric
        value: 'Explanation is clear and easy to understand'

      - type: contains
        value: 'example'

      - type: max-score
        value:
          method: average # All criteria equally important
`;

describe('select-best and max-score across the Claws of a run, through dist/index.js', () => {
  it("select-best (the docs' example) on three Claws: the judge asked once per test and prompt, the Claw it names passes", async () => {
    const s = await start();
    const replies: Record<string, string> = {
      c1: 'Bananas are berries; NYC has 8.3 million people and five boroughs.',
      c2: 'Bananas: the only fruit that comes with its own zipper. 🍌',
      c3: 'A tweet.',
    };
    for (const [id, reply] of Object.entries(replies)) s.addClaw(id, { chat: { mode: 'sync', reply } });
    // The judge names the second reply the funniest and the first the most factual.
    judge = await startJudge({
      answer: (r) => ({ content: judgeText(r).includes('choose the funniest tweet') ? 'The funniest is 1.' : '0' }),
    });
    const url = judge.url;
    const dir = workspaceWith({ 'promptfooconfig.yaml': SELECT_BEST });
    const run = await runAction(
      inputsFor(s, {
        command: 'check',
        checks: 'promptfooconfig.yaml',
        'claw-id': 'c1, c2, c3',
        'checks-output': 'results.json',
      }),
      { env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url } },
    );
    expect(run.exitCode).toBe(1);
    const report = reportOf(run.outputs);
    expect(report).toHaveLength(12);
    // promptfoo's output file: each Claw's result carries select-best's own, as promptfoo's eval merges it.
    const file = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as {
      results: {
        results: {
          provider: { id: string };
          prompt: { raw: string };
          success: boolean;
          gradingResult: { reason: string; componentResults: { pass: boolean; assertion: { type: string } }[] };
        }[];
      };
    };
    const first = file.results.results.filter((r) => r.prompt.raw === 'Write a tweet about bananas');
    expect(
      first.map((r) => [
        r.provider.id,
        r.success,
        r.gradingResult.componentResults.map((c) => [c.assertion.type, c.pass]),
      ]),
    ).toEqual([
      ['claw:c1', false, [['select-best', false]]],
      ['claw:c2', true, [['select-best', true]]],
      ['claw:c3', false, [['select-best', false]]],
    ]);
    expect(first[0].gradingResult.reason).toBe('Output not selected: choose the funniest tweet');
    expect(Object.values(winners(report))).toEqual([['c2'], ['c2'], ['c1'], ['c1']]);
    const lost = report.find((e) => e.clawId === 'c3')!;
    expect(lost.failure).toBe(
      'select-best "choose the funniest tweet" did not hold: the judge chose the reply of c2 as the best',
    );
    // One call per test and prompt, in promptfoo's words, the replies in the run's order of the Claws.
    const calls = judge.completions();
    expect(calls).toHaveLength(4);
    const prompt = judgeText(calls[0]);
    expect(prompt).toMatch(
      /^You are comparing multiple pieces of text to see which best fits the following criteria: /,
    );
    expect(prompt).toContain(`<Text index="0">\n${replies.c1}\n</Text>`);
    expect(prompt).toContain(`<Text index="2">\n${replies.c3}\n</Text>`);
    expect(calls[0].headers.authorization).toBe(`Bearer ${JUDGE_KEY}`);
    expect(run.stdout).toMatch(/⚖️ .*select-best chose c2 among c1, c2, c3/);
  });

  it('select-best: a judge answer naming no Claw is an error for each of them, never a pass', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'one' } });
    s.addClaw('c2', { chat: { mode: 'sync', reply: 'two' } });
    judge = await startJudge({ answer: () => ({ content: 'Both are equally good.' }) });
    const url = judge.url;
    const dir = workspaceWith({
      'promptfooconfig.yaml': `prompts: ['Say {{n}}']\ntests:\n  - vars: {n: hi}\n    assert:\n      - {type: select-best, value: the best}\n`,
    });
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml', 'claw-id': 'c1, c2' }),
      { env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url } },
    );
    expect(run.exitCode).toBe(1);
    expect(reportOf(run.outputs).map((e) => [e.clawId, e.passed, e.failure])).toEqual([
      [
        'c1',
        false,
        'error: select-best: judge unavailable: its select-best answer names no reply (expected an index from 0 to 1): "Both are equally good."',
      ],
      [
        'c2',
        false,
        'error: select-best: judge unavailable: its select-best answer names no reply (expected an index from 0 to 1): "Both are equally good."',
      ],
    ]);
  });

  it("max-score (the docs' example) in a fleet rollout of three Claws: the highest average over the other assertions passes", async () => {
    const s = await start();
    const OK: Plan = [['pending', 1000], ['live']];
    s.addClaw('c1', { plan: OK, chat: { mode: 'sync', reply: 'Machine learning finds patterns in data.' } });
    s.addClaw('c2', {
      plan: OK,
      chat: { mode: 'sync', reply: 'Machine learning learns from data; for example, spam filters.' },
    });
    s.addClaw('c3', { plan: OK, chat: { mode: 'sync', reply: 'It is magic, for example.' } });
    // The grader scores each rubric by the reply: c3's is inaccurate, the others pass.
    judge = await startJudge({
      answer: (r) =>
        judgeText(r).includes('It is magic')
          ? verdict({ reason: 'Not accurate.', pass: false, score: 0.1 })
          : verdict({ reason: 'Fine.', pass: true, score: 0.9 }),
    });
    const url = judge.url;
    const dir = workspaceWith({ 'promptfooconfig.yaml': MAX_SCORE });
    const run = await runAction(
      inputsFor(s, { command: 'deploy', checks: 'promptfooconfig.yaml', 'claw-id': 'c1, c2, c3', timeout: '30s' }),
      { env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, OPENAI_BASE_URL: url } },
    );
    const report = reportOf(run.outputs);
    expect(report).toHaveLength(9);
    // Averages: c1 (0.9 + 0.9 + 0) / 3 = 0.6, c2 (0.9 + 0.9 + 1) / 3 ≈ 0.933, c3 (0.1 + 0.1 + 1) / 3 = 0.4.
    expect(Object.values(winners(report))).toEqual([['c2'], ['c2'], ['c2']]);
    expect(report.find((e) => e.clawId === 'c1')!.failure).toMatch(/^contains "example" did not hold/);
    // A Claw that failed its own assertions keeps that failure as its first.
    expect(report.find((e) => e.clawId === 'c3')!.failure).toMatch(
      /^llm-rubric "Explanation is accurate" did not hold/,
    );
    // c1 failed 'contains' yet its rubrics were graded: max-score reads every score (2 rubrics × 3 Claws × 3 prompts).
    expect(judge.completions()).toHaveLength(18);
    expect(run.exitCode).toBe(1);
  });

  it('refuses a run known to check one Claw before any request: the file, the line, and why', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'hello' } });
    const dir = workspaceWith({ 'promptfooconfig.yaml': SELECT_BEST });
    const one = await runAction(inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }), {
      env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY },
    });
    expect(one.exitCode).toBe(1);
    expect(one.errors).toEqual([
      "promptfooconfig.yaml, line 12: 'select-best' compares the replies of several Claws to one test, and this run checks one Claw (claw-id c1): only one Claw answers, so nothing is compared: expected llm-rubric with the criterion, or several Claws (a list of ids, '*', or a preview beside production).",
    ]);
    // A fleet whose canary wave is one Claw: its gate would compare that Claw with nothing.
    const canary = await runAction(
      inputsFor(s, { command: 'deploy', checks: 'promptfooconfig.yaml', 'claw-id': 'c1, c2, c3', waves: '1, 100%' }),
      { env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY } },
    );
    expect(canary.exitCode).toBe(1);
    expect(canary.errors[0]).toMatch(
      /^promptfooconfig\.yaml, line 12: 'select-best' compares .*, and wave 1 of the rollout deploys and checks one Claw \(c1\) before the next wave deploys \('waves' 1, 100%\)/,
    );
    expect(s.requests).toEqual([]);
  });

  it('a preview compares each production Claw with its own preview only', async () => {
    // Each Claw answers as its config says: the pull request's tone is the previews'.
    const answer = (config: Record<string, unknown>) => () =>
      `${(config.tone as string | undefined) ?? 'plain'} answer of ${String(config.team)}`;
    const s = await start({ urls: true, newClawChat: (config) => ({ mode: 'sync', respond: answer(config) }) });
    for (const team of ['billing', 'support']) {
      const config = { team, tone: 'curt' };
      s.addClaw(`claw-${team}`, { plan: [['live']], config, chat: { mode: 'sync', respond: answer(config) } });
    }
    const github = await startGitHub();
    github.pulls.set(7, {
      state: 'open',
      merged: false,
      updated_at: new Date().toISOString(),
      head: { sha: 'feedc0ffee1234567890' },
    });
    judge = await startJudge({ answer: () => ({ content: '1' }) });
    const url = judge.url;
    const dir = workspaceWith({
      'claws.yml': `claws:\n  claw-billing:\n    config: {team: billing, tone: warm}\n  claw-support:\n    config: {team: support, tone: warm}\n`,
      'promptfooconfig.yaml': `prompts: ['Hello']\ntests:\n  - assert:\n      - {type: select-best, value: the warmest answer}\n`,
      'event.json': JSON.stringify({
        action: 'opened',
        number: 7,
        repository: { id: 1 },
        pull_request: { number: 7, head: { sha: 'feedc0ffee1234567890', repo: { id: 1 } } },
      }),
    });
    const run = await runAction(
      {
        command: 'preview',
        'api-key': DEMO_KEY,
        'base-url': `${s.url}/v1`,
        manifest: 'claws.yml',
        checks: 'promptfooconfig.yaml',
        'poll-interval': '100ms',
        timeout: '20s',
      },
      {
        env: {
          GITHUB_WORKSPACE: dir,
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: `${dir}/event.json`,
          GITHUB_API_URL: github.url,
          OPENAI_API_KEY: JUDGE_KEY,
          OPENAI_BASE_URL: url,
        },
      },
    );
    const report = reportOf(run.outputs);
    expect(report.map((e) => [e.clawId, e.passed])).toEqual([
      ['claw-billing', false],
      ['claw-billing-pr-7', true],
      ['claw-support', false],
      ['claw-support-pr-7', true],
    ]);
    expect(report[0].failure).toBe(
      'select-best "the warmest answer" did not hold: the judge chose the reply of claw-billing-pr-7 as the best',
    );
    // One call per pair, each holding that pair's two replies and nothing of the other's.
    const calls = judge.completions().map(judgeText);
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => c.match(/<Text index="\d+">\n(.*)\n<\/Text>/g))).toEqual([
      ['<Text index="0">\ncurt answer of billing\n</Text>', '<Text index="1">\nwarm answer of billing\n</Text>'],
      ['<Text index="0">\ncurt answer of support\n</Text>', '<Text index="1">\nwarm answer of support\n</Text>'],
    ]);
  });
});
