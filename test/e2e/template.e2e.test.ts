// Templates are evaluated as data, through dist/ as the runner runs it (issue 39, item 1). The
// chain that ran a fork's JavaScript while its promptfoo config was read, under
// pull_request_target with the step's secrets in the environment: `valueOf` as a filter handed out
// the template engine's context, `dictsort` walked it to its prototype's `lookup`, `{join: f} |
// join(x)` called f, and the name `"constr" ~ "uctor"` was built at run time. Each piece is now
// outside the grammar (or reads only a value's own data), refused with its file and line before
// any request, under any event; beside it, a promptfoo example's template renders as before.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../sim/server.ts';
import { runAction, workspaceWith } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

const CANARY = 'sk-step-openai-canary-7d1e';
const FORK_PR = { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: 2002 } } } };

/** A fork's (or the repository's) files, and the event that brings them. */
function on(files: Record<string, string>, event: string) {
  const dir = workspaceWith(files, 'claw-template-');
  writeFileSync(
    join(dir, 'event.json'),
    JSON.stringify({ repository: { id: 1001, full_name: 'octo/claws' }, ...FORK_PR }),
  );
  return {
    env: {
      GITHUB_WORKSPACE: dir,
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: join(dir, 'event.json'),
      OPENAI_API_KEY: CANARY,
    },
    cwd: dir,
  };
}

/** The chain, whole: on the Nunjucks runtime it printed `process.env.OPENAI_API_KEY`. */
const CHAIN = [
  '{% set look = 0 %}{% set c = 0 | valueOf %}',
  '{% for k, v in c | dictsort %}{% if k == "lookup" %}{% set look = v %}{% endif %}{% endfor %}',
  '{% set obj = {join: look, env: { globals: {} }, ctx: {} } | join("constr" ~ "uctor") %}',
  '{% set fn = {join: look, env: { globals: {} }, ctx: obj } | join("constr" ~ "uctor") %}',
  '{% set code = { join: fn } | join("return process.env.OPENAI_API_KEY") %}',
  'Say {{ { join: code } | join("x") }}',
].join('');

const config = (prompt: string, more = ''): string =>
  `prompts:\n  - ${JSON.stringify(prompt)}\ntests:\n  - vars: {q: a}\n    assert: [{type: contains, value: a${more}}]\n`;

describe("a fork's template is data", () => {
  it('the chain from the issue (valueOf, dictsort over the context, {join: f} | join, a name built with ~) is refused with its line, under every event; the key goes nowhere', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    for (const event of ['pull_request_target', 'push']) {
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'c.yaml' }),
        on({ 'c.yaml': config(CHAIN) }, event),
      );
      expect(run.exitCode, event).toBe(1);
      expect(run.errors, event).toEqual([
        expect.stringMatching(
          /^c\.yaml, line 4: the prompt ".*" cannot be rendered for this test: it uses the filter 'valueOf', which is not one of the filters a template may use here: expected one of abs, batch, /,
        ),
      ]);
      expect(run.stdout).not.toContain(CANARY);
    }
    expect(s.requests).toEqual([]);
  });

  it('each link of the chain alone is refused too, in a prompt, a var, an assertion value, a metric and a rubricPrompt', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    const cases: [string, RegExp][] = [
      // dictsort of a mapping gives its own keys only; of anything else, nothing to walk.
      [
        config('{{ 0 | dictsort }}'),
        /line 4: the prompt .* the filter 'dictsort' is given a number: expected a mapping/,
      ],
      // A filter never calls a method its value holds.
      [
        config('{{ {join: q} | join("x") }}'),
        /line 4: the prompt .* the filter 'join' is given a mapping: expected a list/,
      ],
      // A name built at run time reads a value's own data, or is refused, whatever its spelling.
      [
        config('{{ q["constr" ~ "uctor"] }}'),
        /line 4: the prompt .* it holds 'constructor', which a text has only as JavaScript/,
      ],
      [config('{{ q["__pro" ~ "to__"] | dump }}'), /it holds '__proto__'/],
      // A call of any kind is outside the grammar, in any branch.
      [config('{% if false %}{{ q.constructor.constructor("return 1")() }}{% endif %}'), /it holds a function call/],
      [
        `prompts: ['Say {{q}}']\ntests:\n  - vars: {q: "{{ 0 | valueOf }}"}\n    assert: [{type: contains, value: a}]\n`,
        /^c\.yaml, line 3: the prompt "Say \{\{q\}\}" .* it uses the filter 'valueOf'/,
      ],
      [
        config('Say {{q}}', ', metric: "{{ q | valueOf }}"'),
        /^c\.yaml, line 5: 'metric' cannot be rendered: it uses the filter 'valueOf'/,
      ],
      [
        config('Say {{q}}').replace('value: a}', 'value: "{{ [q] | join.constructor }}"}'),
        /^c\.yaml, line 5: 'value' cannot be rendered/,
      ],
      [
        `prompts: ['Say {{q}}']\ndefaultTest:\n  options:\n    rubricPrompt: "{% for k, v in output | dictsort %}{{ v }}{% endfor %}"\ntests:\n  - vars: {q: a}\n    assert: [{type: llm-rubric, value: x}]\n`,
        /^c\.yaml, line 4: 'rubricPrompt' cannot be rendered: the filter 'dictsort' is given a text: expected a mapping/,
      ],
    ];
    for (const [text, why] of cases) {
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'c.yaml' }),
        on({ 'c.yaml': text }, 'pull_request_target'),
      );
      expect(run.exitCode, text).toBe(1);
      expect(run.errors, text).toEqual([expect.stringMatching(why)]);
    }
    expect(s.requests).toEqual([]);
  });

  it("the control: a promptfoo example's template (loops, loop.index, filters, if) renders as promptfoo renders it, under pull_request_target", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Bonjour' } });
    const text = `prompts:
  - "Translate to {{ language | capitalize }}:{% for m in messages %} {{ loop.index }}. {{ m.content | trim }}{% if not loop.last %};{% endif %}{% endfor %}{% if tone %} ({{ tone | default('plain') | upper }}){% endif %} {{ messages | length }} lines"
tests:
  - vars:
      language: french
      tone: polite
      messages: [{content: ' Hello '}, {content: 'Good night'}]
    assert: [{type: icontains, value: bonjour}]
`;
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml' }),
      on({ 'c.yaml': text }, 'pull_request_target'),
    );
    expect(run.exitCode, run.stdout).toBe(0);
    const sent = JSON.stringify(s.requests.map((r) => r.body));
    expect(sent).toContain('Translate to French: 1. Hello; 2. Good night (POLITE) 2 lines');
    expect(sent).not.toContain(CANARY);
    expect(sent).not.toContain(DEMO_KEY);
  });
});
