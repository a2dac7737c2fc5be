// Object.prototype's own names (`constructor`, `toString`, `__proto__`, ...) where a table is read
// by name, through dist/index.js and the command line: an assertion type in a fork's promptfoo
// config, a `__proto__` key in an assertion or a checks file's JSON Schema, a flag of the command
// line. Each is one error naming the file and line (or an unknown flag), or an own key applied as
// shown; each has a benign control beside it.
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-run.ts';
import { eventWorkspace, forkPr } from './fork-files.ts';
import { onEvent, runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const SECRETS = { GITHUB_TOKEN: 'ghs_round5-step-token-0123456789' };

/** A promptfoo config whose one assertion is of `type` (value 'a'). */
const configWithType = (type: string): string =>
  `prompts:\n  - "{{q}}"\ntests:\n  - vars: {q: a}\n    assert:\n      - type: ${JSON.stringify(type)}\n        value: a\n`;

describe("the assertion registry against a fork's promptfoo config", () => {
  // Found, now fixed (low: a crash in place of the error, any event). The alias table was a plain
  // object, so a type named after one of Object.prototype's members (`constructor`, `toString`,
  // `__proto__`, ...) read a function or the prototype from it as the type's name, and the reader
  // then called `.startsWith` on it: "type.startsWith is not a function", no file, no line. The
  // native checks file's reader checked the list first and held. Now the tables are read by own
  // names only, and each such type is one error naming the file, the line and what was expected.
  const INHERITED = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'not-constructor'];
  for (const type of INHERITED) {
    it(`a type named '${type}' is one error naming the file and line, before any request`, async () => {
      const s = await start();
      s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
      const dir = eventWorkspace({ 'c.yaml': configWithType(type) }, forkPr);
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'c.yaml' }),
        onEvent(dir, 'pull_request_target', SECRETS),
      );
      expect(run.exitCode, run.stdout).toBe(1);
      expect(run.errors).toEqual([
        expect.stringMatching(/^c\.yaml, line 6: 'type' is .*(expected one of|did you mean)/),
      ]);
      expect(run.errors.join('\n')).not.toMatch(/is not a function|function Object|\[object Object\]/);
      expect(s.requests).toEqual([]);
    });
  }

  // Found, now fixed (medium: every allow-list of keys bypassed; any event, a fork's under a fork's
  // event). The config's reader built each mapping by assignment, so a `__proto__` key set the
  // mapping's prototype: its keys were unseen by the allow-lists (Object.keys) yet read through.
  // An assertion made only of `__proto__: {type: equals, ...}` ran as that assertion; a top-level
  // `__proto__` carried keys the reader refuses. Fork refusals of code and secrets decide by value
  // and held. Now every key is an own key: `__proto__` is an unknown key at its line.
  it("an assertion made of a '__proto__' key is one error at its line, not an assertion", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    const config = `prompts:\n  - "{{q}}"\ntests:\n  - vars: {q: a}\n    assert:\n      - __proto__: {type: equals, value: zzz}\n`;
    const dir = eventWorkspace({ 'c.yaml': config }, forkPr);
    const run = await runAction(
      inputsFor(s, { command: 'check', checks: 'c.yaml' }),
      onEvent(dir, 'pull_request_target', SECRETS),
    );
    expect(run.exitCode, run.stdout).toBe(1);
    expect(run.errors).toEqual([expect.stringMatching(/^c\.yaml, line 6: unknown key '__proto__' in an assertion/)]);
    expect(s.requests).toEqual([]);
  });

  it('control: a known type and an alias run as before', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'a' } });
    for (const type of ['contains', 'not-icontains', 'similar:cosine']) {
      const dir = eventWorkspace({ 'c.yaml': configWithType(type) }, forkPr);
      const run = await runAction(
        inputsFor(s, { command: 'check', checks: 'c.yaml' }),
        onEvent(dir, 'pull_request_target', SECRETS),
      );
      expect(run.errors.join('\n')).not.toMatch(/'type' is/);
    }
  });
});

describe("a native checks file's JSON Schema with a '__proto__' key", () => {
  // Found, now fixed (low: the check's shown schema lies; whoever writes the checks file). Plain
  // data was built by assignment, so `__proto__: {type: string}` became the schema's prototype:
  // Ajv applied `type: string` (it reads inherited keywords) while the check's description showed
  // the schema as `{}`, and a reply of 5 failed a check that said it accepts any JSON. Now the key is
  // an own key: the schema applied is the one shown (Ajv ignores the unknown keyword, not strict).
  const checksWith = (schema: string): string =>
    `checks:\n  - name: any json\n    send: hi\n    assert:\n      - type: is-json\n        value: ${schema}\n`;
  const runWith = async (schema: string) => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: '5' } });
    const dir = eventWorkspace({ 'checks.yml': checksWith(schema) });
    return runAction(inputsFor(s, { command: 'check', checks: 'checks.yml' }), onEvent(dir, 'push', SECRETS));
  };

  it('the schema a reply is held to is the schema the report shows', async () => {
    // Before the fix: failed (type string applied) while the schema read as {}.
    const run = await runWith('{__proto__: {type: string}}');
    expect(run.exitCode, run.stdout).toBe(0);
  });

  it('control: a schema of type string fails a reply of 5, and says so', async () => {
    const run = await runWith('{type: string}');
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/schema \{"type":"string"\}/);
  });
});

describe("the command line's flags against Object.prototype's names", () => {
  // Found, now fixed (low: a lying message). `--constructor` was looked up with `in` in the table of
  // inputs the command line refuses, so it was "not for the command line: it function Object()
  // { [native code] }". Now it is an unknown flag like any other.
  it('--constructor is an unknown flag, --github-token (control) is an input of the action only', async () => {
    const odd = await runCli(['check', '--constructor', 'x'], { cwd: eventWorkspace({}) });
    expect(odd.code).not.toBe(0);
    expect(odd.stderr).toMatch(/Unknown flag --constructor/);
    expect(odd.stderr).not.toMatch(/native code/);
    const known = await runCli(['check', '--github-token', 'x'], { cwd: eventWorkspace({}) });
    expect(known.stderr).toMatch(/--github-token is not for the command line/);
  });
});
