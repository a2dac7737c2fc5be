// The last round of attacks on the bundle, through dist/index.js as the runner runs it, on this
// round's surfaces: a fork's checks file in spellings the other tests do not use (code, paths, the
// judge's address, templates), the key hidden from the redactor in ways a reader still reads, the
// health history and incidents under push access and a collaborator's edits, and the latency of a
// retried message. Each attack that held stays as the regression test of the safe behaviour; the
// holes this round found (a copied history line counted twice, a sealed state pasted into another
// incident, the key struck through, in styled letters, in hex, or its base64 through invisible
// characters, or drawn backwards by a bidi override) were fixed and are asserted here.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeJudge, verdict } from '../sim/judge.ts';
import { DEMO_KEY } from '../sim/server.ts';
import { type ActionRun, onEvent, runAction } from './harness.ts';
import { HealthWorld } from './health-world.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const startFakeJudge = judgePerTest();

/** A judge that finds every reply polite. */
const startJudge = (): Promise<FakeJudge> =>
  startFakeJudge({ answer: () => verdict({ reason: 'Polite.', pass: true, score: 1 }) });

const REPO_ID = 1001;
const FORK_ID = 2002;
/** What a checkout's .git/config holds (its token): never read, never sent. */
const CANARY = 'git-config-canary-5e1f';
/** The judge key in the step's environment. */
const STEP_KEY = 'sk-step-openai-key-0123456789';

/**
 * A workspace with `files` (folders made), a checkout's `.git/config` holding the canary, a nested
 * repository's `sub/.git/config`, a folder link `docs -> .git`, and the event payload.
 */
function workspace(files: Record<string, string>, event: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'claw-attack-final-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, '.git', 'config'), `[http]\n\textraheader = AUTHORIZATION: basic ${CANARY}\n`);
  writeFileSync(join(dir, '.git', 'notes.md'), `${CANARY}\n`);
  mkdirSync(join(dir, 'sub', '.git'), { recursive: true });
  writeFileSync(join(dir, 'sub', '.git', 'config'), `${CANARY}\n`);
  symlinkSync('.git', join(dir, 'docs'));
  writeFileSync(
    join(dir, 'event.json'),
    JSON.stringify({ repository: { id: REPO_ID, full_name: 'octo/claws' }, ...event }),
  );
  return dir;
}

const on = (dir: string, event: string, extra: Record<string, string> = {}) =>
  onEvent(dir, event, { OPENAI_API_KEY: STEP_KEY, ...extra });

/** Fork events in spellings the other tests do not use: a deleted fork, a review comment, no payload. */
const FORK_EVENTS: [event: string, payload: Record<string, unknown>, named: string][] = [
  [
    'pull_request_review_comment',
    { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: FORK_ID } } } },
    'pull_request_review_comment from a fork',
  ],
  ['workflow_run', { workflow_run: { event: 'pull_request', head_repository: null } }, 'workflow_run from a fork'],
  [
    'pull_request',
    { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: null } } },
    'pull_request from a fork',
  ],
  ['pull_request_target', {}, 'pull_request_target'],
  [
    'issue_comment',
    { issue: { number: 7, pull_request: { url: 'https://api.github.com/repos/octo/claws/pulls/7' } } },
    'issue_comment on a pull request',
  ],
];

const PROMPT = "prompts: ['Say {{q}}']\n";
const test = (assert: string, extra = '') => `${PROMPT}${extra}tests:\n  - vars: {q: a}\n    assert: ${assert}\n`;
const csv = (expected: string) => ({
  'c.yaml': `${PROMPT}tests:\n  - file://t.csv\n`,
  't.csv': `q,__expected\na,"${expected}"\n`,
});

describe("a fork's file runs no code, in any spelling", () => {
  const cases: [string, Record<string, string>][] = [
    ['not-javascript', { 'c.yaml': test('[{type: not-javascript, value: "false"}]') }],
    [
      'javascript two assert-sets deep',
      {
        'c.yaml': test(
          '[{type: assert-set, assert: [{type: assert-set, assert: [{type: javascript, value: "true"}]}]}]',
        ),
      },
    ],
    [
      'javascript from file://check.js',
      { 'c.yaml': test('[{type: javascript, value: file://check.js}]'), 'check.js': 'module.exports = () => true;' },
    ],
    [
      'javascript through an assertionTemplates $ref',
      {
        'c.yaml': test(
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
      const dir = workspace(files, payload);
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
    const dir = workspace(csv("javascript: output.includes('a')"), payload);
    const own = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml', 'trusted-files': 'true' }),
      on(dir, event),
    );
    expect(own.exitCode, own.stdout).toBe(0);
  });
});

describe('a file:// in any spelling reads nothing outside the tree or in .git, under any event', () => {
  const refused: [string, Record<string, string>, RegExp][] = [
    [
      'a var list',
      {
        'c.yaml': `${PROMPT}tests:\n  - vars: {q: [a, file://.git/config]}\n    assert: [{type: contains, value: a}]\n`,
      },
      /points into '\.git'/,
    ],
    [
      './.git',
      { 'c.yaml': `${PROMPT}tests:\n  - vars: {q: file://./.git/config}\n    assert: [{type: contains, value: a}]\n` },
      /points into '\.git'/,
    ],
    [
      '.git//config',
      { 'c.yaml': `${PROMPT}tests:\n  - vars: {q: file://.git//config}\n    assert: [{type: contains, value: a}]\n` },
      /points into '\.git'/,
    ],
    [
      'sub/../.git',
      {
        'c.yaml': `${PROMPT}tests:\n  - vars: {q: file://sub/../.git/config}\n    assert: [{type: contains, value: a}]\n`,
      },
      /points into '\.git'/,
    ],
    [
      'a nested repository',
      {
        'c.yaml': `${PROMPT}tests:\n  - vars: {q: file://sub/.git/config}\n    assert: [{type: contains, value: a}]\n`,
      },
      /points into '\.git'/,
    ],
    [
      'a folder link docs -> .git',
      { 'c.yaml': `${PROMPT}tests:\n  - vars: {q: file://docs/config}\n    assert: [{type: contains, value: a}]\n` },
      /links into '\.git'/,
    ],
    [
      'an absolute path',
      {
        'c.yaml': `${PROMPT}tests:\n  - vars: {q: "file:///etc/hostname"}\n    assert: [{type: contains, value: a}]\n`,
      },
      /points outside the workspace/,
    ],
    [
      'a CSV var',
      { 'c.yaml': `${PROMPT}tests:\n  - file://t.csv\n`, 't.csv': 'q,__expected\nfile://.git/config,"contains: a"\n' },
      /points into '\.git'/,
    ],
    ['a CSV __expected value', csv('contains: file://.git/config'), /points into '\.git'/],
    [
      "an assertion's value",
      { 'c.yaml': test('[{type: contains, value: file://.git/config}]') },
      /points into '\.git'/,
    ],
    [
      'a rubricPrompt',
      {
        'c.yaml': test(
          '[{type: llm-rubric, value: x}]',
          'defaultTest:\n  options: {rubricPrompt: file://.git/config}\n',
        ),
      },
      /points into '\.git'/,
    ],
    [
      'a prompt id through the folder link',
      {
        'c.yaml': `prompts: [{id: file://docs/config, label: x}]\ntests:\n  - vars: {q: a}\n    assert: [{type: contains, value: a}]\n`,
      },
      /links into '\.git'/,
    ],
    [
      'a scenario',
      {
        'c.yaml': `${PROMPT}scenarios: [file://.git/config]\ntests:\n  - vars: {q: a}\n    assert: [{type: contains, value: a}]\n`,
      },
      /points into '\.git'/,
    ],
    ['a glob', { 'c.yaml': `${PROMPT}tests:\n  - file://.gi?/config\n` }, /is a glob/],
    [
      'a JSONL tests file',
      {
        'c.yaml': `${PROMPT}tests: file://t.jsonl\n`,
        't.jsonl': '{"vars": {"q": "file://.git/config"}, "assert": [{"type": "contains", "value": "a"}]}\n',
      },
      /^t\.jsonl, line 1: .*points into '\.git'/,
    ],
    [
      "defaultTest's vars",
      {
        'c.yaml': `${PROMPT}defaultTest:\n  vars: {q: file://.git/config}\ntests:\n  - assert: [{type: contains, value: a}]\n`,
      },
      /points into '\.git'/,
    ],
    [
      "a scenario config's vars",
      {
        'c.yaml': `${PROMPT}scenarios:\n  - config: [{vars: {q: file://.git/config}}]\n    tests: [{assert: [{type: contains, value: a}]}]\n`,
      },
      /points into '\.git'/,
    ],
    [
      'a JSON tests file, through the folder link',
      {
        'c.yaml': `${PROMPT}tests: file://t.json\n`,
        't.json': '[{"vars": {"q": "file://docs/config"}, "assert": [{"type": "contains", "value": "a"}]}]',
      },
      /^t\.json, line 1: .*links into '\.git'/,
    ],
    [
      "an llm-rubric's value",
      { 'c.yaml': test('[{type: llm-rubric, value: file://.git/config}]') },
      /points into '\.git'/,
    ],
    [
      'a Markdown prompt through the folder link',
      {
        'c.yaml': `prompts: [file://docs/notes.md]\ntests:\n  - vars: {q: a}\n    assert: [{type: contains, value: a}]\n`,
      },
      /links into '\.git'/,
    ],
  ];
  // Text promptfoo never loads: sent as the text it is, never as the file it names.
  const literal: [string, Record<string, string>][] = [
    [
      'inside a YAML var file',
      {
        'c.yaml': `${PROMPT}tests:\n  - vars: {q: file://v.yaml}\n    assert: [{type: contains, value: a}]\n`,
        'v.yaml': 'x: file://.git/config\n',
      },
    ],
    [
      'inside a JSON var file',
      {
        'c.yaml': `${PROMPT}tests:\n  - vars: {q: file://v.json}\n    assert: [{type: contains, value: a}]\n`,
        'v.json': '["file://.git/config"]',
      },
    ],
    [
      'options.prefix',
      {
        'c.yaml': `${PROMPT}tests:\n  - vars: {q: a}\n    options: {prefix: file://.git/config}\n    assert: [{type: contains, value: a}]\n`,
      },
    ],
    [
      'file: without slashes',
      { 'c.yaml': `${PROMPT}tests:\n  - vars: {q: "file:.git/config"}\n    assert: [{type: contains, value: a}]\n` },
    ],
  ];

  it('each refused with its file and line before any request; text that only looks like one is sent as text', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    for (const [i, [name, files, why]] of refused.entries()) {
      // Under a fork's event and on push alike.
      const [event, payload] = i % 2 ? FORK_EVENTS[i % FORK_EVENTS.length] : ['push', {}];
      const dir = workspace(files, payload as Record<string, unknown>);
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, event as string));
      expect(run.exitCode, name).toBe(1);
      expect(run.errors, name).toEqual([expect.stringMatching(/^(c\.yaml|t\.csv|t\.jsonl|t\.json), line \d+: /)]);
      expect(run.errors[0], name).toMatch(why);
    }
    expect(s.requests).toEqual([]);
    for (const [name, files] of literal) {
      const dir = workspace(files);
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, 'pull_request_target'));
      expect(run.exitCode, `${name}: ${run.stdout}`).toBe(0);
    }
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(literal.length);
    expect(JSON.stringify(s.requests)).not.toContain(CANARY);
  });
});

describe("a fork's file never chooses the judge's address, in any spelling", () => {
  it("apiHost, a text or embedding provider's apiBaseUrl, grader headers, a check's own judge url: refused; basePath, API_BASE_URL, providers: ignored, the environment's address grades", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const evil = await startJudge();
    const good = await startJudge();
    const host = new URL(evil.url).host;
    const grader = (config: string) =>
      test('[{type: llm-rubric, value: polite}]', `defaultTest:\n  options:\n    provider: ${config}\n`);
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
          'c.yaml': test(
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
      const dir = workspace(files, payload);
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
        test(
          '[{type: llm-rubric, value: polite}]',
          `providers:\n  - {id: openai:chat:m, config: {apiBaseUrl: "${evil.url}"}}\n`,
        ),
      ],
    ];
    for (const [name, text] of ignored) {
      const dir = workspace({ 'c.yaml': text }, payload);
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

describe('templates stay data, in spellings that compute the name', () => {
  it("a computed 'con' ~ 'structor' or '__' ~ k ~ '__' lookup, a macro, a dotted attribute: refused before any request; no function's text comes out", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    const withVar = (q: string) => `${PROMPT}tests:\n  - vars: {q: "${q}"}\n    assert: [{type: contains, value: a}]\n`;
    const refusedCases: [string, RegExp][] = [
      ["{{ range['con' ~ 'structor'] }}", /it prints a value that is not set/],
      ["{% set k = 'proto' %}{{ range['__' ~ k ~ '__'] }}", /it prints a value that is not set/],
      ['{% macro m() %}x{% endmacro %}{{ m() }}', /it holds a function call/],
      ["{{ [q] | join(',', 'constructor') }}", /it holds 'constructor'/],
      ["{{ [q] | groupby('constructor.constructor') }}", /it holds 'constructor'/],
      ["{{ [range] | sum('con' ~ 'structor') }}", /the filter 'sum' reads 'constructor' of an item that is not set/],
    ];
    for (const [q, why] of refusedCases) {
      const dir = workspace({ 'c.yaml': withVar(q) });
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, 'push'));
      expect(run.exitCode, q).toBe(1);
      expect(run.errors, q).toEqual([
        expect.stringMatching(/^c\.yaml, line 3: the prompt "Say \{\{q\}\}" cannot be rendered for this test: /),
      ]);
      expect(run.errors[0], q).toMatch(why);
    }
    expect(s.requests).toEqual([]);
    // Beyond the prompt: an assertion's value, a rubricPrompt, a metric name.
    const elsewhere: [string, RegExp][] = [
      [
        `${PROMPT}tests:\n  - vars: {q: a}\n    assert: [{type: contains, value: "{{ range['con'~'structor'] }}"}]\n`,
        /^c\.yaml, line 4: 'value' cannot be rendered: /,
      ],
      [
        `${PROMPT}defaultTest:\n  options:\n    rubricPrompt: "{% macro m() %}{% endmacro %}{{ m() }}"\ntests:\n  - vars: {q: a}\n    assert: [{type: llm-rubric, value: x}]\n`,
        /^c\.yaml, line 4: 'rubricPrompt' cannot be rendered: it holds a function call/,
      ],
      [
        `${PROMPT}tests:\n  - vars: {q: a}\n    assert: [{type: contains, value: a, metric: "{{ range.constructor('return 1')() }}"}]\n`,
        /^c\.yaml, line 4: 'metric' cannot be rendered: it holds a function call/,
      ],
    ];
    for (const [text, why] of elsewhere) {
      const dir = workspace({ 'c.yaml': text });
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, 'push'));
      expect(run.exitCode, text).toBe(1);
      expect(run.errors, text).toEqual([expect.stringMatching(why)]);
    }
    expect(s.requests).toEqual([]);
    // A description is a name, never rendered: shown as written.
    const named = workspace({
      'c.yaml': `${PROMPT}tests:\n  - vars: {q: a}\n    description: "{{ range.constructor('return 1')() }}"\n    assert: [{type: contains, value: a}]\n`,
    });
    const described = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(named, 'push'));
    expect(described.exitCode, described.stdout).toBe(0);
    expect(JSON.parse(described.outputs['checks-report'])).toEqual([
      expect.objectContaining({ check: "{{ range.constructor('return 1')() }}", passed: true }),
    ]);
    // Nunjucks' globals (range, cycler, joiner) are no values here: an unset name, never a function or its text.
    const dir = workspace({ 'c.yaml': withVar("{% filter replace('a', range) %}a{% endfilter %}") });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, 'push'));
    expect(run.exitCode).toBe(0);
    const sent = JSON.stringify(s.requests.map((r) => r.body));
    expect(sent).toContain('Say undefined');
    expect(sent).not.toContain('function');
    expect(sent).not.toContain(STEP_KEY);
    expect(sent).not.toContain(DEMO_KEY);
  });
});

/** What a reader takes from a text: compatibility forms read as their letters, marks and invisible characters unseen. */
const reader = (text: string): string =>
  text.normalize('NFKC').replace(/[\p{M}\p{Default_Ignorable_Code_Point}]/gu, '');

/** The key as a reader could take it from a sink: itself, its base64 (either alphabet) or its hex. */
function showsKey(text: string): string | undefined {
  const seen = reader(text);
  const b64 = Buffer.from(DEMO_KEY).toString('base64').replace(/=+$/, '');
  const forms = [DEMO_KEY, b64, b64.replace(/\+/g, '-').replace(/\//g, '_'), Buffer.from(DEMO_KEY).toString('hex')];
  return forms.find((form) => seen.toLowerCase().includes(form.toLowerCase()));
}

/** The run's sinks (the log without the ::add-mask:: line that hands the key to the runner). */
const sinksOf = (run: ActionRun, files: string[]): Record<string, string> => ({
  log: run.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n'),
  summary: run.summary,
  outputs: JSON.stringify(run.outputs),
  ...Object.fromEntries(files.map((f) => [f, readFileSync(f, 'utf8')])),
});

describe('the redactor reads as a reader does', () => {
  const K = DEMO_KEY;
  const b64 = Buffer.from(K).toString('base64');
  const hidden: Record<string, string> = {
    // Holes this round, fixed: each reached every sink before.
    struck: [...K].map((c) => `${c}\u0336`).join(''),
    underlined: [...K].map((c) => `${c}\u0332`).join(''),
    enclosed: [...K].map((c) => `${c}\u20dd`).join(''),
    fullwidth: [...K].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join(''),
    'math-bold': [...K]
      .map((c) => (/[a-z]/.test(c) ? String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97) : c))
      .join(''),
    circled: [...K].map((c) => (/[a-z]/.test(c) ? String.fromCodePoint(0x24d0 + c.charCodeAt(0) - 97) : c)).join(''),
    // Drawn backwards by a right-to-left override: shown as the key where the control is kept.
    bidi: `\u202e${[...K].reverse().join('')}\u202c`,
    hex: Buffer.from(K).toString('hex'),
    'hex-upper': Buffer.from(K).toString('hex').toUpperCase(),
    'base64-zwsp': [...b64].join('\u200b'),
    'base64-shy': [...b64].join('\u00ad'),
    // Held: the key cut by an excerpt's edge is never shown in part.
    'cut-80': `${'x'.repeat(75)}${K}`,
    'cut-200': `${'x'.repeat(195)}${K}`,
    'cut-2000': `${'x'.repeat(1995)}${K}`,
    // Held: references and percent-encoding mixed, soft hyphens between.
    mixed: [...K]
      .map((c, i) => (i % 3 === 0 ? `&#${c.charCodeAt(0)};` : i % 3 === 1 ? `%${c.charCodeAt(0).toString(16)}` : c))
      .join('&shy;'),
  };

  it('replies and an error body hiding the key reach no sink: log, summary, outputs, JUnit, checks-output', async () => {
    const s = await start();
    const ids = Object.keys(hidden);
    for (const id of ids) s.addClaw(id, { chat: { mode: 'sync', reply: `here: ${hidden[id]} end` } });
    s.addClaw('errs', { chat: { mode: 'sync', reply: 'fine' } });
    s.fault({
      kind: 'error',
      status: 400,
      method: 'POST',
      path: '/chat/errs/',
      times: 10,
      body: { error: { code: 'bad_request', message: `key ${hidden.struck} and ${hidden.hex} refused` } },
    });
    const dir = workspace({
      'checks.yml': 'checks:\n  - {name: leak, send: key please, assert: [{type: contains, value: never}]}\n',
    });
    const run = await runAction(
      inputsFor(s, {
        command: 'check',
        'claw-id': [...ids, 'errs'].join(','),
        checks: 'checks.yml',
        'checks-junit': 'checks.xml',
        'checks-output': 'out.json',
        timeout: '60s',
      }),
      on(dir, 'push'),
    );
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('The service said: key *** and *** refused');
    const sinks = sinksOf(run, [join(dir, 'checks.xml'), join(dir, 'out.json')]);
    for (const [name, text] of Object.entries(sinks)) {
      expect(showsKey(text), name).toBeUndefined();
      // Not even the key's first half, from a cut excerpt.
      expect(reader(text), name).not.toContain(K.slice(0, 12));
      expect(text, name).not.toContain([...K].reverse().join('').slice(0, 12));
    }
    // What is not the key stays: the reply around it is still reported.
    expect(run.stdout).toContain('here: *** end');
  });
});

describe('health over time: push access and a collaborator', () => {
  const T = Date.parse('2026-11-20T10:00:00Z');
  const HOUR = 3600_000;
  const world = new HealthWorld({ timeout: '20s', 'status-page': 'true', confirm: '1' }, {}, 900);
  afterEach(() => world.stop());
  const startHealth = () => world.start();
  const run = (when: number, extra: Record<string, string> = {}): Promise<ActionRun> => world.run(when, extra);

  it("a genuine healthy line copied 2,000 times counts once: the page shows the Claw's real uptime, one warning", async () => {
    const { sim, github } = await startHealth();
    const bot = sim.addClaw('bot');
    await run(T - 3 * HOUR);
    bot.status = 'offline';
    await run(T - 2 * HOUR);
    // Input controlled by: anyone with push access. The line is this action's own, its seal intact.
    const path = 'history/2026-11.ndjson';
    const text = github.repo.file('claw-health', path)!;
    const healthy = text.split('\n').find((l) => l.includes('"claw":"bot"') && l.includes('"status":"healthy"'))!;
    expect(healthy).toBeDefined();
    github.repo.push('claw-health', { [path]: text + `${healthy}\n`.repeat(2000) });
    const done = await run(T - HOUR);
    expect(done.warnings).toEqual([
      "History: ignored 2000 line(s) on 'claw-health': 2000 repeating a line already read. Only lines this action wrote count.",
    ]);
    const status = JSON.parse(github.repo.file('claw-health', 'status.json')!) as {
      claws: { id: string; uptime: Record<string, number>; days: { runs: number; healthy: number }[] }[];
    };
    // Before: 2,001 healthy of 2,003 runs, 99.9% up. Now: 1 of 3.
    expect(status.claws[0].days.at(-1)).toMatchObject({ runs: 3, healthy: 1 });
    expect(status.claws[0].uptime['24h']).toBeLessThan(0.5);
    expect(github.repo.file('claw-health', 'index.html')).not.toContain('99.9');
  });

  it("a sealed state pasted into another incident (a collaborator's edit) is ignored with a warning: each Claw keeps its own issue; long ids sharing a label keep theirs", async () => {
    const { sim, github } = await startHealth();
    const long = 'a'.repeat(60);
    for (const id of ['bot-a', 'bot-b', `${long}-one`, `${long}-two`]) sim.addClaw(id, { status: 'offline' });
    await run(T - 2 * HOUR);
    expect(github.repo.issues).toHaveLength(4);
    const a = github.repo.issues.find((i) => i.title === 'bot-a is down')!;
    const b = github.repo.issues.find((i) => i.title === 'bot-b is down')!;
    // Input controlled by: a collaborator (may edit any issue). Before, the next run closed bot-a's
    // own issue as "a duplicate" of bot-b's, which then stood for bot-a on the page.
    b.body = a.body;
    const second = await run(T - HOUR);
    const third = await run(T);
    for (const done of [second, third]) {
      expect(done.warnings).toEqual([
        `Incidents: ignored https://github.com/octo/claws/issues/${b.number}: its state is #${a.number}'s, whose labels name its subject (a state copied from one issue into another). It is never edited.`,
      ]);
    }
    expect(a.state).toBe('open');
    expect(b.body).toBe(a.body);
    const open = github.repo.issues.filter((i) => i.state === 'open').map((i) => i.title);
    expect(open.sort()).toEqual(
      ['bot-a is down', 'bot-b is down', 'bot-b is down', `${long}-one is down`, `${long}-two is down`].sort(),
    );
    const status = JSON.parse(github.repo.file('claw-health', 'status.json')!) as {
      claws: { id: string; incident: { number: number } | null }[];
    };
    const incidentOf = (id: string) => status.claws.find((c) => c.id === id)!.incident!.number;
    expect(incidentOf('bot-a')).toBe(a.number);
    expect(incidentOf('bot-b')).not.toBe(b.number);
    expect(new Set(status.claws.map((c) => c.incident?.number)).size).toBe(4);
  });

  it('Claw ids that are the key struck through or fullwidth reach no issue, label, history line, page, badge path or log', async () => {
    const { sim, github } = await startHealth();
    const struck = [...DEMO_KEY].map((c) => `${c}\u0336`).join('');
    const wide = [...DEMO_KEY].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('');
    for (const id of [struck, wide, 'claw-plain']) sim.addClaw(id, { status: 'offline' });
    const done = await run(T);
    expect(done.exitCode).toBe(1);
    const paths = github.repo.files('claw-health');
    const sinks = {
      ...sinksOf(done, []),
      issues: JSON.stringify(github.repo.issues),
      paths: JSON.stringify(paths),
      files: JSON.stringify(paths.map((p) => github.repo.file('claw-health', p))),
    };
    for (const [name, text] of Object.entries(sinks)) expect(showsKey(text), name).toBeUndefined();
    expect(github.repo.file('claw-health', 'index.html')).toContain('claw-plain');
  });
});

describe("latency is the Claw's, whatever the action waited", () => {
  it("a 503 with Retry-After: 2 on the message is the action's wait, not the Claw's latency", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Thursday' } });
    s.fault({ kind: '503', method: 'POST', path: '/chat/', times: 1, retryAfter: '2' });
    const dir = workspace({
      'c.yml': 'checks:\n  - {name: quick, send: hi, assert: [{type: latency, threshold: 1500ms}]}\n',
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yml', timeout: '30s' }), on(dir, 'push'));
    // The action did wait for the Retry-After before sending again.
    expect(run.stdout).toContain('503 from the service; retry 1 in 2s');
    expect(run.exitCode, run.stdout).toBe(0);
    const [entry] = JSON.parse(run.outputs['checks-report']) as { passed: boolean; latencyMs: number }[];
    expect(entry.passed).toBe(true);
    expect(entry.latencyMs).toBeLessThan(2000);
  });
});
