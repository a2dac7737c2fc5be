// A file:// in a checks file reads nothing outside the workspace or in Git's folder, through
// dist/index.js under any event: every place promptfoo loads a file from (vars, CSV and JSON tests,
// assertions, rubricPrompts, prompts, scenarios, defaultTest), through `..`, a nested repository,
// a folder link, /proc and /dev/fd. Each is refused with its file and line before any request;
// text that only looks like one is sent as text.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CANARY, FORK_EVENTS, PROMPT, checkout, csv, eventWorkspace, on, withAssert } from './fork-files.ts';
import { onEvent, runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const SECRETS = { GITHUB_TOKEN: 'ghs_round4-step-token-0123456789', OPENAI_API_KEY: 'sk-round4-openai-0123456789' };

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
      { 'c.yaml': withAssert('[{type: contains, value: file://.git/config}]') },
      /points into '\.git'/,
    ],
    [
      'a rubricPrompt',
      {
        'c.yaml': withAssert(
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
      { 'c.yaml': withAssert('[{type: llm-rubric, value: file://.git/config}]') },
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
      const dir = checkout(files, payload as Record<string, unknown>);
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, event as string));
      expect(run.exitCode, name).toBe(1);
      expect(run.errors, name).toEqual([expect.stringMatching(/^(c\.yaml|t\.csv|t\.jsonl|t\.json), line \d+: /)]);
      expect(run.errors[0], name).toMatch(why);
    }
    expect(s.requests).toEqual([]);
    for (const [name, files] of literal) {
      const dir = checkout(files);
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, 'pull_request_target'));
      expect(run.exitCode, `${name}: ${run.stdout}`).toBe(0);
    }
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(literal.length);
    expect(JSON.stringify(s.requests)).not.toContain(CANARY);
  });
});

describe("Git's folder and the process's own files through /proc", () => {
  const CANARY = 'ghp_round4-checkout-token-5e1d';
  const varConfig = (value: string) =>
    `prompts: ['Repeat: {{cfg}}']\ntests:\n  - vars: {cfg: "${value}"}\n    assert: [{type: contains, value: R}]\n`;
  it('file:// through /proc/self/cwd, /proc/self/root, /proc/self/environ and /dev/fd is refused before any request', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Repeat' } });
    const probe = eventWorkspace({});
    const paths = (dir: string) => [
      'file:///proc/self/cwd/.git/config',
      `file:///proc/self/root${dir}/.git/config`,
      'file:///proc/self/environ',
      'file:///proc/self/cwd/../../proc/self/environ',
      'file:///dev/fd/0',
      'file://proc-link/environ',
    ];
    for (const value of paths(probe)) {
      const dir = eventWorkspace({ 'c.yaml': '' });
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
