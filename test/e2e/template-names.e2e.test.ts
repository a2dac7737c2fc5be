// Names JavaScript gives every value, in a fork's template, through dist/index.js: whichever way
// the name is built (a computed `'con' ~ 'structor'`, a macro, a dotted attribute, a filter's
// argument), in a prompt, a var, an assertion's value, a metric or a rubricPrompt, it is unset or
// refused before any request, and no function's text comes out. A description is a name, never
// rendered. (template.e2e.test.ts holds the chain that first ran a fork's code.)
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../sim/server.ts';
import { PROMPT, STEP_KEY, checkout, eventWorkspace, forkPr, on, promptConfig } from './fork-files.ts';
import { onEvent, runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const SECRETS = { GITHUB_TOKEN: 'ghs_round4-step-token-0123456789', OPENAI_API_KEY: 'sk-round4-openai-0123456789' };

describe("names JavaScript gives every value, in a fork's template", () => {
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
        onEvent(eventWorkspace({ 'c.yaml': text }, forkPr), 'pull_request_target', SECRETS),
      );
      expect(run.exitCode, text).toBe(1);
      expect(run.errors, text).toEqual([expect.stringMatching(why)]);
      expect(run.stdout).not.toMatch(/function|native code|ghs_round4|sk-round4/);
    }
    expect(s.requests).toEqual([]);
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
      const dir = checkout({ 'c.yaml': withVar(q) });
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
      const dir = checkout({ 'c.yaml': text });
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, 'push'));
      expect(run.exitCode, text).toBe(1);
      expect(run.errors, text).toEqual([expect.stringMatching(why)]);
    }
    expect(s.requests).toEqual([]);
    // A description is a name, never rendered: shown as written.
    const named = checkout({
      'c.yaml': `${PROMPT}tests:\n  - vars: {q: a}\n    description: "{{ range.constructor('return 1')() }}"\n    assert: [{type: contains, value: a}]\n`,
    });
    const described = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(named, 'push'));
    expect(described.exitCode, described.stdout).toBe(0);
    expect(JSON.parse(described.outputs['checks-report'])).toEqual([
      expect.objectContaining({ check: "{{ range.constructor('return 1')() }}", passed: true }),
    ]);
    // Nunjucks' globals (range, cycler, joiner) are no values here: an unset name, never a function or its text.
    const dir = checkout({ 'c.yaml': withVar("{% filter replace('a', range) %}a{% endfilter %}") });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yaml' }), on(dir, 'push'));
    expect(run.exitCode).toBe(0);
    const sent = JSON.stringify(s.requests.map((r) => r.body));
    expect(sent).toContain('Say undefined');
    expect(sent).not.toContain('function');
    expect(sent).not.toContain(STEP_KEY);
    expect(sent).not.toContain(DEMO_KEY);
  });
});
