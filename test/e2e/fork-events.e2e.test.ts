// Which events make a checks file a fork's, told by an allow-list, through dist/index.js and the
// command line: payloads that only look like the repository's own (an event name in capitals, ids
// as text, no repository id), the command line inside Actions with no event file, and a fork's
// file under events in spellings the other tests do not use (a deleted fork, a review comment, no
// payload): its code refused in every spelling, before any request.
import { describe, expect, it } from 'vitest';
import { base, runCli } from './cli-run.ts';
import { FORK_EVENTS, PROMPT, REPO_ID, checkout, csv, eventWorkspace, forkPr, on, withAssert } from './fork-files.ts';
import { onEvent, runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const SECRETS = { GITHUB_TOKEN: 'ghs_round4-step-token-0123456789', OPENAI_API_KEY: 'sk-round4-openai-0123456789' };

const JS_CONFIG = `prompts: ['Hello {{q}}']
tests:
  - vars: {q: there}
    assert:
      - {type: javascript, value: "output.includes('Hello')"}
`;

describe('events by allow-list', () => {
  it("payloads that only look like the repository's own are a fork's: an event name in capitals, ids as text, no repository id", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['Push', {}, /refused under an event the runner did not name/],
      ['push ', {}, /refused under an event the runner did not name/],
      [
        'workflow_run',
        { workflow_run: { head_repository: { id: String(REPO_ID) } } },
        /refused under workflow_run from a fork/,
      ],
      [
        'pull_request',
        { repository: {}, pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: {} } } },
        /refused under pull_request from a fork/,
      ],
      [
        'pull_request',
        { repository: { id: String(REPO_ID) }, pull_request: { number: 7, head: { repo: { id: String(REPO_ID) } } } },
        /refused under pull_request from a fork/,
      ],
    ];
    for (const [event, payload, why] of cases) {
      const dir = eventWorkspace({ 'promptfooconfig.yaml': JS_CONFIG }, payload);
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'promptfooconfig.yaml' }),
        onEvent(dir, event, SECRETS),
      );
      expect(run.exitCode, event).toBe(1);
      expect(run.errors, event).toEqual([expect.stringMatching(why)]);
    }
    expect(s.requests).toEqual([]);
  });

  // Found, now fixed (low). The command line applies the event rule inside GitHub Actions only when
  // GITHUB_EVENT_PATH is set (src/github/run.ts forkEventOfShell); the action, given the same
  // environment, still refuses (the event name alone makes pull_request_target a fork's). A step
  // that runs `claw-deploy` with the event path unset or emptied (`env: GITHUB_EVENT_PATH: ''`, a
  // wrapper that passes GITHUB_ACTIONS and GITHUB_EVENT_NAME only) runs a fork's javascript under
  // pull_request_target. Expected: refused with --trusted-files named, as with the event file.
  it('the command line inside Actions under pull_request_target with no event file: the fork rule still holds', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = eventWorkspace({ 'promptfooconfig.yaml': JS_CONFIG }, forkPr);
    const run = await runCli(['check', '--checks', 'promptfooconfig.yaml', '--claw-id', 'c1', ...base(s)], {
      cwd: dir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'pull_request_target' },
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/refused under pull_request_target/);
  });
});

describe("a fork's file runs no code, in any spelling", () => {
  const cases: [string, Record<string, string>][] = [
    ['not-javascript', { 'c.yaml': withAssert('[{type: not-javascript, value: "false"}]') }],
    [
      'javascript two assert-sets deep',
      {
        'c.yaml': withAssert(
          '[{type: assert-set, assert: [{type: assert-set, assert: [{type: javascript, value: "true"}]}]}]',
        ),
      },
    ],
    [
      'javascript from file://check.js',
      {
        'c.yaml': withAssert('[{type: javascript, value: file://check.js}]'),
        'check.js': 'module.exports = () => true;',
      },
    ],
    [
      'javascript through an assertionTemplates $ref',
      {
        'c.yaml': withAssert(
          "[{$ref: '#/assertionTemplates/x'}]",
          'assertionTemplates:\n  x: {type: javascript, value: "true"}\n',
        ),
      },
    ],
    ['a CSV javascript: column', csv('javascript: true')],
    ['a CSV fn: column', csv('fn: true')],
    ['a CSV eval: column', csv('eval: true')],
    [
      "a test's options.postprocess",
      {
        'c.yaml': `${PROMPT}tests:\n  - vars: {q: a}\n    options: {postprocess: output}\n    assert: [{type: contains, value: a}]\n`,
      },
    ],
    [
      'a transform from file://t.js',
      {
        'c.yaml': `${PROMPT}tests:\n  - vars: {q: a}\n    options: {transform: file://t.js}\n    assert: [{type: contains, value: a}]\n`,
        't.js': 'module.exports = (o) => o;',
      },
    ],
    [
      "a scenario config's transform",
      {
        'c.yaml': `${PROMPT}scenarios:\n  - config: [{vars: {q: a}, options: {transform: output}}]\n    tests: [{assert: [{type: contains, value: a}]}]\n`,
      },
    ],
    [
      'defaultTest from file:// with a transform',
      {
        'c.yaml': `${PROMPT}defaultTest: file://d.yaml\ntests:\n  - vars: {q: a}\n    assert: [{type: contains, value: a}]\n`,
        'd.yaml': 'options: {transform: output}\n',
      },
    ],
  ];

  it('each is refused before any request, naming its file, line, event and trusted-files; the control runs with trusted-files', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    for (const [i, [name, files]] of cases.entries()) {
      const [event, payload, named] = FORK_EVENTS[i % FORK_EVENTS.length];
      const dir = checkout(files, payload);
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, event));
      expect(run.exitCode, name).toBe(1);
      expect(run.errors, name).toEqual([
        expect.stringMatching(
          new RegExp(
            `^(c|d)?\\.?(yaml|csv|t\\.csv), line \\d+: a (javascript|transform) runs the repository's JavaScript, refused under ${named}, where the file may come from a fork: .*'trusted-files: true'`,
          ),
        ),
      ]);
    }
    expect(s.requests).toEqual([]);
    // The control: the repository's own CSV, with trusted-files, runs its javascript column.
    const [event, payload] = FORK_EVENTS[1];
    const dir = checkout(csv("javascript: output.includes('a')"), payload);
    const own = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml', 'trusted-files': 'true' }),
      on(dir, event),
    );
    expect(own.exitCode, own.stdout).toBe(0);
  });
});
