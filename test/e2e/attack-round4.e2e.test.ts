// Round 4's attacks, through dist/ as the runner and a shell user run it: a fork's template
// against the project's own evaluator (bounds by time, not only by steps, at read and grading
// time), events told by an allow-list (the command line inside Actions too), a hostile service's
// ids and text on the local status page, a forged saved run given to `compare --baseline-file`,
// the redactor on forms SECURITY.md names, `baseline: before` under a cancel, a forging Claw and
// a judge that changes between the sides, output files naming the step's log, and file:// through
// /proc. What held stays as a regression test; what got through is `it.fails`, describing the
// hole (the lead decides the fix).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeJudge, verdict } from '../sim/judge.ts';
import { CLI, base, runCli } from './cli-run.ts';
import { onEvent, runAction, workspaceWith } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';
import { ALL_SCOPES, DEMO_KEY } from '../sim/server.ts';

const start = simulatorPerTest();
const startJudge = judgePerTest();
let judge: FakeJudge | undefined;
const REPO_ID = 1001;
const FORK_ID = 2002;
const SECRETS = { GITHUB_TOKEN: 'ghs_round4-step-token-0123456789', OPENAI_API_KEY: 'sk-round4-openai-0123456789' };

/** A workspace with `files` and the runner's event payload (`event.json`). */
const workspace = (files: Record<string, string>, payload: Record<string, unknown> = {}): string =>
  workspaceWith(
    { ...files, 'event.json': JSON.stringify({ repository: { id: REPO_ID, full_name: 'octo/claws' }, ...payload }) },
    'claw-round4-',
  );
const forkPr = { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: FORK_ID } } } };

const promptConfig = (prompt: string): string =>
  `prompts:\n  - ${JSON.stringify(prompt)}\ntests:\n  - vars: {q: a}\n    assert: [{type: contains, value: a}]\n`;

describe("a fork's template against the evaluator's bounds", () => {
  // Found: `batch(n, fill)` built an n-item list that `reverse`, `rejectattr` and `selectattr`
  // copied or walked uncharged, so a loop of k turns cost k × n for about 5k steps (16M items,
  // 1,000 turns: hours of work in 150 characters); only the 5 s read watchdog stopped it. Now every
  // list a filter walks or builds is charged item by item and capped at 1,000,000 items.
  it('a list built by batch and reversed in a loop stops at a bound of the evaluator, before any request', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    const turns = Array.from({ length: 1000 }, (_, i) => i).join(',');
    const prompt = `{% set big = [1] | batch(16777216, 1) | first %}{% for i in [${turns}] %}{{ big | reverse | length }}{{ big | rejectattr("x") | length }}{% endfor %}`;
    const dir = workspace({ 'c.yaml': promptConfig(prompt) }, forkPr);
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml', timeout: '10s' }),
      onEvent(dir, 'pull_request_target', SECRETS),
    );
    expect(run.exitCode, run.stdout).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(/^c\.yaml, line 4: the prompt .* it builds a list of more than 1000000 items/),
    ]);
    expect(s.requests).toEqual([]);
  });

  // Held: Nunjucks' own parser is quadratic on nested conditional expressions (`{{ 1 if ` n
  // times: 37 KB 0.45 s, 75 KB 1.2 s, 150 KB 3.5 s); a 600 KB prompt would take about a minute.
  // Parsing is inside the read watchdog too.
  it("a prompt that Nunjucks' parser reads in quadratic time stops at the read watchdog", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    const n = 40_000;
    const prompt = `${'{{ 1 if '.repeat(n)}1${' else 1'.repeat(n)} }}`;
    const dir = workspace({ 'c.yaml': promptConfig(prompt) }, forkPr);
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml' }),
      onEvent(dir, 'pull_request_target', SECRETS),
    );
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(/^c\.yaml, line 1: reading the promptfoo config took more than 5s/),
    ]);
    expect(s.requests).toEqual([]);
  });

  // Found, now fixed (medium, denial of service; any event, a fork's under pull_request_target). Reading a
  // config renders its templates under a 5 s watchdog (render.ts withinTime), but a rubricPrompt
  // is rendered again at grading time with the Claw's reply as `output` (rubric.ts renderLenient),
  // outside any watchdog. A branch taken only when the reply holds a word (the prompt asks the
  // Claw to say it) is cheap at read time and costs k × n at grading: here 4M items reversed 12
  // times (~3 s); with batch(16777216, 1) and 1,000 turns, hours, the event loop blocked so the
  // step's `timeout` never fires. g-eval's own prompts from a config (graders.ts, render with the
  // judge's steps and the reply) are rendered the same way. Expected: that grading refused at a
  // bound ("did not render"), the judge never asked.
  it("a rubricPrompt whose costly branch waits for the Claw's reply is bounded at grading time too", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'TRIGGER and more' } });
    judge = await startJudge({ answer: () => verdict({ reason: 'fine', pass: true, score: 1 }) });
    const url = judge.url;
    const rubric =
      '{% if "TRIGGER" in output %}{% set big = [1] | batch(4000000, 1) | first %}{% for i in [1,2,3,4,5,6,7,8,9,10,11,12] %}{{ big | reverse | length }}{% endfor %}{% endif %}Grade: {{ output }}';
    const text = `prompts: ['Say TRIGGER {{q}}']\ndefaultTest:\n  options:\n    rubricPrompt: ${JSON.stringify(rubric)}\ntests:\n  - vars: {q: a}\n    assert: [{type: llm-rubric, value: x}]\n`;
    const dir = workspace({ 'c.yaml': text }, forkPr);
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml', timeout: '10s' }),
      onEvent(dir, 'pull_request_target', { ...SECRETS, OPENAI_BASE_URL: url }),
    );
    expect(run.exitCode, run.stdout).toBe(1);
    expect(run.stdout).toMatch(/did not render/);
    expect(judge.completions()).toHaveLength(0);
  });

  it('names JavaScript gives every value are unset or refused, whichever way they are built, in a prompt, a var, a metric and a rubricPrompt', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    const refused: [string, RegExp][] = [
      [promptConfig('{{ ([q] | first)["constr" ~ "uctor"]["constr" ~ "uctor"] }}'), /it holds 'constructor'/],
      [promptConfig('{{ (q | list)["__pro" ~ "to__"]["constr" ~ "uctor"] }}'), /it holds '__proto__'/],
      [promptConfig('{{ [1, 2] | sort(attribute="constructor") }}'), /it holds 'constructor'/],
      [promptConfig('{{ [{"a": q}] | groupby("a.constructor") | dump }}'), /it holds 'constructor'/],
      [promptConfig('{{ q | sum(attribute="constructor") }}'), /named argument 'attribute'/],
      [
        `prompts: ['Say {{q}}']\ntests:\n  - vars: {q: "{{ (1).toFixed }}"}\n    assert: [{type: contains, value: a}]\n`,
        /line 3: /,
      ],
      [
        `prompts: ['Say {{q}}']\ntests:\n  - vars: {q: a}\n    assert: [{type: contains, value: a, metric: "{{ q['constr' ~ 'uctor'] }}"}]\n`,
        /line 4: 'metric' cannot be rendered: it holds 'constructor'/,
      ],
      [
        `prompts: ['Say {{q}}']\ndefaultTest:\n  options:\n    rubricPrompt: "{{ output.length }}"\ntests:\n  - vars: {q: a}\n    assert: [{type: llm-rubric, value: x}]\n`,
        /line 4: 'rubricPrompt' cannot be rendered: it holds 'length'/,
      ],
    ];
    for (const [text, why] of refused) {
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'c.yaml' }),
        onEvent(workspace({ 'c.yaml': text }, forkPr), 'pull_request_target', SECRETS),
      );
      expect(run.exitCode, text).toBe(1);
      expect(run.errors, text).toEqual([expect.stringMatching(why)]);
      expect(run.stdout).not.toMatch(/function|native code|ghs_round4|sk-round4/);
    }
    expect(s.requests).toEqual([]);
  });
});

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
      const dir = workspace({ 'promptfooconfig.yaml': JS_CONFIG }, payload);
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
    const dir = workspace({ 'promptfooconfig.yaml': JS_CONFIG }, forkPr);
    const run = await runCli(['check', '--checks', 'promptfooconfig.yaml', '--claw-id', 'c1', ...base(s)], {
      cwd: dir,
      env: { GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'pull_request_target' },
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/refused under pull_request_target/);
  });
});

/** Every file under `dir`, as paths relative to it. */
const filesUnder = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();

const pageRun = async (ids: string[]) => {
  const s = await start();
  s.addClaw('support-bot', { chat: { mode: 'sync', reply: 'PONG' } });
  for (const id of ids) s.addClaw(id, { chat: { mode: 'sync', reply: 'PONG' } });
  const cwd = mkdtempSync(join(tmpdir(), 'claw-round4-page-'));
  const run = await runCli(
    ['health', '--claw-id', '*', '--probe-message', 'ping', '--history-dir', 'status', '--status-page', ...base(s)],
    { cwd },
  );
  return { run, cwd, files: filesUnder(cwd) };
};

describe("a compromised service's Claw ids on the local status page", () => {
  it('ids holding markup, quotes and dots stay text on the page and names inside the folder', async () => {
    const hostile = ['<script>alert(1)<!--', '"onmouseover="alert(1)', '..svg', '%2e%2e%2fx', '..'.repeat(3) + 'x'];
    const { run, cwd, files } = await pageRun(hostile);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/could not write/);
    expect(files.every((f) => f.startsWith('status/'))).toBe(true);
    expect(files).toContain('status/badges/..svg.svg');
    const page = readFileSync(join(cwd, 'status', 'index.html'), 'utf8');
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('"onmouseover="');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;!--');
    const json = JSON.parse(readFileSync(join(cwd, 'status', 'status.json'), 'utf8')) as { claws: { id: string }[] };
    expect(json.claws.map((c) => c.id).sort()).toEqual([...hostile, 'support-bot'].sort());
  });

  it('a status, name and probe reply holding markup stay text on the page', async () => {
    const s = await start();
    s.addClaw('bad-status', { status: '<script>alert(1)</script>', name: '<img src=x onerror=alert(2)>' });
    s.addClaw('bad-reply', { chat: { mode: 'sync', reply: '</p><script>alert(3)</script>\u202e' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-round4-page-'));
    const run = await runCli(
      ['health', '--claw-id', '*', '--probe-message', 'ping', '--history-dir', 'status', '--status-page', ...base(s)],
      { cwd },
    );
    expect(run.stderr).not.toMatch(/could not write/);
    const page = readFileSync(join(cwd, 'status', 'index.html'), 'utf8');
    expect(page).not.toMatch(/<script>alert|<img src=x|\u202e/);
    for (const f of filesUnder(join(cwd, 'status')).filter((x) => x.endsWith('.svg')))
      expect(readFileSync(join(cwd, 'status', f), 'utf8'), f).not.toMatch(/<script|<img|onerror/);
  });

  // Found, now fixed (low, a compromised service). A Claw id may hold a backslash (isValidId refuses '/', not
  // '\'), and the folder host refuses any path with one (folder-host.ts `inside`). One listed Claw
  // named `a\..\..\..\pwned` makes the whole commit fail midway: "this run's records are not kept"
  // for every Claw, though the files written before it (badges, the month's history, the page)
  // stay, half a commit. Expected: the id refused where the service's ids are read (or its badge
  // named safely), every other Claw's records kept whole.
  it("one Claw id with a backslash costs every Claw's history, and leaves half a commit", async () => {
    const { run, files } = await pageRun(['a\\..\\..\\..\\pwned']);
    expect(run.stderr).not.toMatch(/could not write to the branch 'status'/);
    expect(files).toContain('status/badges/support-bot.svg');
  });
});

describe('a forged saved run given to compare', () => {
  const NAMES = [
    'q1',
    '\u009b2J\u001b[2J::error::FORGED all checks passed',
    '<img src=x onerror=alert(1)>',
    '[click](https://evil.example/x) | --- | ![x](https://evil.example/p.png)',
    '\n::warning::forged\n##[error]legacy',
  ];
  const saved = (names: string[]): string =>
    JSON.stringify({
      results: {
        results: names.map((check) => ({
          metadata: {
            clawDeploy: {
              check,
              clawId: 'prod',
              // No reply timed: latency cannot be compared, so the machine's own timing never decides.
              samples: Array.from({ length: 3 }, () => ({ outcome: 'pass', score: 1 })),
            },
          },
        })),
      },
    });
  it('check names in the file reach the log, --json, the summary and outputs as text, never as commands or markup', async () => {
    const s = await start();
    s.addClaw('next', { chat: { mode: 'sync', reply: 'yes' } });
    const checks = `defaults:\n  repeat: 3\nchecks:\n${NAMES.map((n) => `  - name: ${JSON.stringify(n)}\n    send: hi\n    assert:\n      - type: equals\n        value: 'yes'\n`).join('')}`;
    // The saved file also holds a check the checks file does not name, with the same hostile text.
    const ONLY_SAVED = '\u009b2J::error::ONLY-SAVED <img src=x onerror=alert(2)> [x](https://evil.example/y)';
    const dir = workspace({ 'checks.yml': checks, 'saved.json': saved([...NAMES, ONLY_SAVED]) });
    const args = [
      'compare',
      ...base(s),
      '--checks',
      'checks.yml',
      '--claw-id',
      'next',
      '--baseline-file',
      'saved.json',
    ];
    const cli = await runCli(args, { cwd: dir });
    expect(cli.code, cli.stderr).toBe(0);
    for (const text of [cli.stdout, cli.stderr]) {
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(text).not.toMatch(/^(::|##\[)/m);
    }
    const json = await runCli([...args, '--json'], { cwd: dir });
    expect(json.stdout).not.toMatch(/[\u007f-\u009f\u2028\u2029]/);
    const result = JSON.parse(json.stdout) as { behaviour: string; comparison: { metric: string; reason?: string }[] };
    // The data cannot speak on latency (the saved run timed no reply): inconclusive, saying why.
    expect(result.behaviour).toBe('inconclusive');
    expect(result.comparison.find((m) => m.metric === 'latency-p50')?.reason).toBe(
      'no reply time on the baseline side',
    );
    const run = await runAction(
      inputsFor(s, { command: 'compare', checks: 'checks.yml', 'claw-id': 'next', 'baseline-file': 'saved.json' }),
      onEvent(dir, 'push', SECRETS),
    );
    expect(run.exitCode, run.stdout).toBe(0);
    const commands = run.stdout.split('\n').filter((l) => /^(::|##\[)/.test(l));
    expect(
      commands.every((l) => /^::(add-mask|debug|warning)::/.test(l)),
      commands.join('\n'),
    ).toBe(true);
    expect(run.warnings.join('\n')).not.toMatch(/forged|ONLY-SAVED/);
    expect(run.errors).toEqual([]);
    expect(run.summary).not.toMatch(/<img|\]\(https:\/\/evil|^\s*::|##\[error\]/m);
    // The saved file's own check is a row of the comparison, escaped like the rest.
    expect(run.summary).toMatch(/ONLY-SAVED &lt;img .*the check ran on the baseline side only/);
  });
});

describe('the redactor, on forms SECURITY.md names that earlier rounds did not try', () => {
  const KEY = 'ams-Key-Qx7Zr9Wv2Lp4ace';
  const keyed = simulatorPerTest({ keys: { [KEY]: ALL_SCOPES } });
  const bytes = Buffer.from(KEY);
  const hex = [...bytes].map((b) => b.toString(16));
  const each = (f: (c: string, i: number) => string): string => [...KEY].map(f).join('');
  const fullwidth = (c: string): string =>
    c >= '!' && c <= '~' ? String.fromCodePoint(c.codePointAt(0)! - 0x21 + 0xff01) : c;
  const b64url = (b: Buffer): string => b.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const FORMS: Record<string, string> = {
    fullwidth: each(fullwidth),
    'circled letters': each((c) => (c >= 'a' && c <= 'z' ? String.fromCodePoint(0x24d0 + c.charCodeAt(0) - 97) : c)),
    'mathematical bold': each((c) =>
      c >= 'A' && c <= 'Z'
        ? String.fromCodePoint(0x1d400 + c.charCodeAt(0) - 65)
        : c >= 'a' && c <= 'z'
          ? String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97)
          : c >= '0' && c <= '9'
            ? String.fromCodePoint(0x1d7ce + c.charCodeAt(0) - 48)
            : c,
    ),
    'named references for the hyphens': KEY.replace(/-/g, '&hyphen;'),
    'decimal references, no semicolons': each((c) => `&#${c.charCodeAt(0)}`),
    'JSON \\u escapes': each((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    'Markdown backslashes': KEY.replace(/-/g, '\\-'),
    'soft hyphens between letters': [...KEY].join('\u00ad'),
    'tag characters between letters': [...KEY].join('\u{e0020}'),
    'Hangul fillers between letters': [...KEY].join('\u3164'),
    'combining marks on zero-width joiners': [...KEY].join('\u200d\u0301'),
    'variation selectors': [...KEY].join('\ufe0f'),
    'hex with dashes': hex.join('-'),
    '%252573 (three layers)': hex.map((h) => `%2525${h}`).join(''),
    'base64url inside a longer blob': b64url(Buffer.concat([Buffer.from('prefix:'), bytes, Buffer.from(':suffix')])),
    'UTF-16LE base64 wrapped at 16': Buffer.from(KEY, 'utf16le')
      .toString('base64')
      .match(/.{1,16}/g)!
      .join('\r\n'),
    'a right-to-left override': `\u202e${[...KEY].reverse().join('')}\u202c`,
    'mixed letter by letter': each(
      (c, i) => [c, `%${hex[i]}`, `&#x${hex[i]};`, `\\x${hex[i]}`, fullwidth(c), `\\u{${hex[i]}}`][i % 6],
    ),
  };

  it('a reply holding the key in each form never shows it at any sink', async () => {
    const s = await keyed();
    const replies = Object.values(FORMS);
    s.addClaw('c1', {
      chat: { mode: 'sync', respond: (m) => `reply: ${replies[Number(/\d+/.exec(m)?.[0])] ?? ''} end` },
    });
    const checks = `checks:\n${replies.map((_r, i) => `  - {name: "form ${i}", send: "form ${i}", assert: [{type: contains, value: never said}]}`).join('\n')}\n`;
    const dir = workspaceWith({ 'checks.yml': checks });
    const run = await runAction(
      inputsFor(s, {
        'api-key': KEY,
        command: 'check',
        checks: 'checks.yml',
        'checks-junit': 'checks.xml',
        'checks-output': 'results.json',
      }),
      { env: { GITHUB_WORKSPACE: dir } },
    );
    expect(run.exitCode).toBe(1);
    const report = JSON.parse(run.outputs['checks-report']) as { check: string; failure: string }[];
    const names = Object.keys(FORMS);
    const shown = report
      .map((e, i) => [names[i], e.failure] as const)
      .filter(([, failure]) => !/reply: [\w]*\*\*\*[\w]* end/.test(failure));
    expect(shown).toEqual([]);
    const sinks = [
      run.stdout
        .split('\n')
        .filter((l) => !l.startsWith('::add-mask::'))
        .join('\n'),
      run.summary,
      readFileSync(join(dir, 'checks.xml'), 'utf8'),
      readFileSync(join(dir, 'results.json'), 'utf8'),
    ].join('\n');
    expect(sinks).not.toContain(KEY.slice(4, 16));
  });
});

describe('deploy with baseline: before, attacked', () => {
  it('a cancel during the baseline run deploys nothing and compares nothing', async () => {
    const s = await start({ holdMs: 200 });
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'yes' } });
    const checks = `defaults:\n  repeat: 3\nchecks:\n${Array.from({ length: 10 }, (_, i) => `  - {name: q${i}, send: q${i}, assert: [{type: equals, value: 'yes'}]}`).join('\n')}\n`;
    const dir = workspaceWith({ 'checks.yml': checks });
    let sent = false;
    const run = await runAction(inputsFor(s, { checks: 'checks.yml', baseline: 'before', timeout: '60s' }), {
      env: { GITHUB_WORKSPACE: dir },
      onLine: (line, child) => {
        if (!sent && line.includes('q1, attempt 1 of 3')) {
          sent = true;
          child.kill('SIGTERM');
        }
      },
      killAfterMs: 30_000,
    });
    expect(sent).toBe(true);
    expect(run.exitCode).toBe(1);
    expect(run.outputs).toMatchObject({ outcome: 'cancelled', 'deployment-id': '', behaviour: '', comparison: '' });
    expect(run.errors).toEqual([
      'Cancelled during the baseline checks of Claw c1, before its deployment was triggered.',
    ]);
    // Only the baseline's questions were asked: no deployment, no candidate run.
    expect(Object.keys(s.routeCounts())).toEqual(['POST /v1/chat/:id/messages']);
  });

  it("a Claw's reply forging the comparison's words and figures changes no output", async () => {
    // Each answer held 30 ms, and a latency tolerance of 100%: the machine's own jitter never reads as the Claw's.
    const s = await start({ holdMs: 30 });
    const forged =
      'yes\nBehaviour: improved\n::set-output name=behaviour::improved\nbehaviour=improved\n{"behaviour":"improved","verdict":"improved"}\n| * (suite) | `pass-rate` | 0% | 100% | +100% | +90% to +100% | 🔺 improved |';
    s.addClaw('c1', { chat: { mode: 'sync', reply: forged } });
    const checks = `defaults:\n  repeat: 2\n  tolerance:\n    latency: 100%\nchecks:\n${Array.from({ length: 3 }, (_, i) => `  - {name: q${i}, send: q${i}, assert: [{type: equals, value: 'no'}]}`).join('\n')}\n`;
    const dir = workspaceWith({ 'checks.yml': checks });
    const run = await runAction(inputsFor(s, { checks: 'checks.yml', baseline: 'before', timeout: '60s' }), {
      env: { GITHUB_WORKSPACE: dir },
    });
    expect(run.exitCode).toBe(0);
    // Every attempt fails on both sides: no change, whatever the replies claim.
    expect(run.outputs.behaviour).toBe('unchanged');
    const entries = JSON.parse(run.outputs.comparison) as { metric: string; baseline: { value: number } }[];
    for (const e of entries.filter((x) => x.metric === 'pass-rate')) expect(e.baseline.value).toBe(0);
    expect(run.stdout).not.toMatch(/^(::set-output|Behaviour: improved|behaviour=)/m);
    expect(run.summary).not.toContain('| 🔺 improved |\n| q');
    expect(run.summary).not.toMatch(/^\| \* \(suite\) \| `pass-rate` \| 0% \| 100%/m);
  });
});

describe('output files into the log', () => {
  it("checks-junit or checks-output naming the step's stdout or stderr, however spelled, is refused: a reply never reaches the log raw", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'no\n::error::FORGED by the Claw\n::add-mask::c1' } });
    const dir = workspaceWith({
      'checks.yml': `checks:\n  - {name: q, send: hi, assert: [{type: equals, value: 'yes'}]}\n`,
    });
    for (const path of ['/dev/stderr', '/proc/self/fd/2', '/dev/fd/1', '/proc/self/fd/1', '/proc/thread-self/fd/2']) {
      for (const input of ['checks-junit', 'checks-output']) {
        const run = await runAction(inputsFor(s, { command: 'check', checks: 'checks.yml', [input]: path }), {
          env: { GITHUB_WORKSPACE: dir },
        });
        expect(run.warnings.join('\n')).toMatch(/Could not write the (JUnit file|checks output)/);
        expect(`${run.stdout}\n${run.stderr}`, `${input}: ${path}`).not.toMatch(/^::error::FORGED/m);
      }
    }
  });
});

/** The command line with its stdout and stderr one real pipe (as a runner's, or `2>&1 | cat`), not a socket. */
async function cliThroughPipe(args: string[], cwd: string): Promise<{ code: number | null; log: string }> {
  const child = spawn('sh', ['-c', 'exec "$0" "$@" 2>&1 | cat', process.execPath, CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CLAW_DEPLOY_API_KEY: DEMO_KEY },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (log += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, log };
}

describe('output files into a real pipe', () => {
  it('--junit and --output naming the log (a pipe, as on a runner) by /dev/stderr, /dev/fd/1 or /proc/self/fd/2 are refused', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'no\n::error::FORGED by the Claw\n' } });
    const dir = workspaceWith({
      'checks.yml': `checks:\n  - {name: q, send: hi, assert: [{type: equals, value: 'yes'}]}\n`,
    });
    for (const path of ['/dev/stderr', '/dev/fd/1', '/proc/self/fd/2']) {
      for (const flag of ['--junit', '--output']) {
        const run = await cliThroughPipe(
          ['check', '--checks', 'checks.yml', '--claw-id', 'c1', flag, path, ...base(s)],
          dir,
        );
        expect(run.log).toMatch(/^warning: Could not write the (JUnit file|checks output) /m);
        expect(run.log, `${flag} ${path}`).not.toMatch(/^::error::FORGED/m);
        expect(run.log, `${flag} ${path}`).not.toMatch(/<testsuites|"results"/);
      }
    }
  });
});

describe('a judge that answers differently on each side', () => {
  it('a judge whose model changes after the trigger, failing everything there, makes the comparison inconclusive, not regressed', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Please give me your order number.' } });
    const CALLS_PER_SIDE = 6;
    judge = await startJudge({
      answer: (_r, i) =>
        i < CALLS_PER_SIDE
          ? { ...verdict({ reason: 'fine', pass: true, score: 1 }), model: 'judge-a' }
          : { ...verdict({ reason: 'bad', pass: false, score: 0 }), model: 'judge-b' },
    });
    const url = judge.url;
    const checks = `judge:\n  url: ${url}\n  model: judge-a\n  api-key-env: OPENAI_API_KEY\ndefaults:\n  repeat: 2\nchecks:\n${[0, 1, 2].map((i) => `  - {name: r${i}, send: refund ${i}, assert: [{type: llm-rubric, value: Asks for the order number}]}`).join('\n')}\n`;
    const dir = workspaceWith({ 'checks.yml': checks });
    const run = await runAction(
      inputsFor(s, { checks: 'checks.yml', baseline: 'before', 'auto-rollback': 'true', timeout: '60s' }),
      { env: { GITHUB_WORKSPACE: dir, ...SECRETS } },
    );
    expect(run.outputs).toMatchObject({ behaviour: 'inconclusive', 'rolled-back': 'false' });
    const entries = JSON.parse(run.outputs.comparison) as {
      check: string;
      metric: string;
      verdict: string;
      reason?: string;
    }[];
    expect(entries.filter((e) => e.verdict === 'regressed')).toEqual([]);
    const suite = entries.find((e) => e.check === '*' && e.metric === 'pass-rate')!;
    expect(suite.reason).toMatch(/the judge of check r0 changed from judge-a to judge-b/);
  });
});

describe("Git's folder and the process's own files through /proc", () => {
  const CANARY = 'ghp_round4-checkout-token-5e1d';
  const varConfig = (value: string) =>
    `prompts: ['Repeat: {{cfg}}']\ntests:\n  - vars: {cfg: "${value}"}\n    assert: [{type: contains, value: R}]\n`;
  it('file:// through /proc/self/cwd, /proc/self/root, /proc/self/environ and /dev/fd is refused before any request', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Repeat' } });
    const probe = workspace({});
    const paths = (dir: string) => [
      'file:///proc/self/cwd/.git/config',
      `file:///proc/self/root${dir}/.git/config`,
      'file:///proc/self/environ',
      'file:///proc/self/cwd/../../proc/self/environ',
      'file:///dev/fd/0',
      'file://proc-link/environ',
    ];
    for (const value of paths(probe)) {
      const dir = workspace({ 'c.yaml': '' });
      // The same relative layout in every workspace: the value names this one's folder.
      const text = varConfig(value.replace(probe, dir));
      writeFileSync(join(dir, 'c.yaml'), text);
      mkdirSync(join(dir, '.git'));
      writeFileSync(join(dir, '.git', 'config'), `[http]\n\textraheader = AUTHORIZATION: basic ${CANARY}\n`);
      symlinkSync('/proc/self', join(dir, 'proc-link'));
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'c.yaml' }),
        onEvent(dir, 'pull_request_target', { ...SECRETS, CANARY_ENV: CANARY }),
      );
      expect(run.exitCode, value).toBe(1);
      expect(run.errors, value).toEqual([
        expect.stringMatching(/^c\.yaml, line 3: var 'cfg' .* cannot be used: it (points|links) outside the workspace/),
      ]);
    }
    expect(JSON.stringify(s.requests)).not.toContain(CANARY);
    expect(s.requests).toEqual([]);
  });
});
