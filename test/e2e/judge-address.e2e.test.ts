// A fork's checks file never chooses the judge's address, through dist/index.js: the grader's
// apiHost, a text or embedding provider's apiBaseUrl, grader headers and a check's own judge url
// are refused with the file and line; basePath, API_BASE_URL and providers are ignored, and the
// judge at the environment's address grades with the step's key.
import { describe, expect, it } from 'vitest';
import { FakeJudge, verdict } from '../sim/judge.ts';
import { FORK_EVENTS, STEP_KEY, checkout, on, withAssert } from './fork-files.ts';
import { runAction } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const startFakeJudge = judgePerTest();

/** A judge that finds every reply polite. */
const startJudge = (): Promise<FakeJudge> =>
  startFakeJudge({ answer: () => verdict({ reason: 'Polite.', pass: true, score: 1 }) });

describe("a fork's file never chooses the judge's address, in any spelling", () => {
  it("apiHost, a text or embedding provider's apiBaseUrl, grader headers, a check's own judge url: refused; basePath, API_BASE_URL, providers: ignored, the environment's address grades", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const evil = await startJudge();
    const good = await startJudge();
    const host = new URL(evil.url).host;
    const grader = (config: string) =>
      withAssert('[{type: llm-rubric, value: polite}]', `defaultTest:\n  options:\n    provider: ${config}\n`);
    const [event, payload, named] = FORK_EVENTS[4];
    const refusedCases: [string, Record<string, string>, RegExp][] = [
      ['apiHost', { 'c.yaml': grader(`{id: openai:chat:m, config: {apiHost: "${host}"}}`) }, /the grader's 'apiHost'/],
      [
        'text provider',
        { 'c.yaml': grader(`{text: {id: openai:chat:m, config: {apiBaseUrl: "${evil.url}"}}}`) },
        /the grader's 'apiBaseUrl'/,
      ],
      [
        'embedding provider',
        {
          'c.yaml': withAssert(
            '[{type: similar, value: hello}]',
            `defaultTest:\n  options:\n    provider: {embedding: {id: openai:embedding:e, config: {apiBaseUrl: "${evil.url}"}}}\n`,
          ),
        },
        /the grader's 'apiBaseUrl'/,
      ],
      [
        'grader headers',
        { 'c.yaml': grader(`{id: openai:chat:m, config: {headers: {X-Route: evil}}}`) },
        /the grader's 'headers' chooses where the replies go/,
      ],
      [
        "a check's own judge",
        {
          'c.yaml': `checks:\n  - name: a\n    send: hi\n    judge: {url: "${evil.url}", model: m}\n    assert: [{type: llm-rubric, value: polite}]\n`,
        },
        /'url' chooses where the replies go/,
      ],
    ];
    for (const [name, files, why] of refusedCases) {
      const dir = checkout(files, payload);
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'c.yaml' }),
        on(dir, event, { OPENAI_BASE_URL: good.url }),
      );
      expect(run.exitCode, name).toBe(1);
      expect(run.errors, name).toEqual([
        expect.stringMatching(new RegExp(`^c\\.yaml, line \\d+: .*refused under ${named}`)),
      ]);
      expect(run.errors[0], name).toMatch(why);
    }
    expect(s.requests).toEqual([]);
    const ignored: [string, string][] = [
      ['basePath', grader(`{id: openai:chat:m, config: {basePath: "${evil.url}"}}`)],
      ['API_BASE_URL', grader(`{id: openai:chat:m, config: {API_BASE_URL: "${evil.url}"}}`)],
      [
        'providers',
        withAssert(
          '[{type: llm-rubric, value: polite}]',
          `providers:\n  - {id: openai:chat:m, config: {apiBaseUrl: "${evil.url}"}}\n`,
        ),
      ],
    ];
    for (const [name, text] of ignored) {
      const dir = checkout({ 'c.yaml': text }, payload);
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'c.yaml' }),
        on(dir, event, { OPENAI_BASE_URL: good.url }),
      );
      expect(run.exitCode, `${name}: ${run.stdout}`).toBe(0);
    }
    expect(evil.requests).toEqual([]);
    expect(good.completions()).toHaveLength(ignored.length);
    for (const c of good.completions()) expect(c.headers.authorization).toBe(`Bearer ${STEP_KEY}`);
  });
});
