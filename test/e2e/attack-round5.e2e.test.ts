// Round 5's attacks, through dist/ as the runner and a shell user run it: the assertion registry
// under a fork's promptfoo config (type names that are Object.prototype's own), and a saved run
// given to `compare --baseline-file` that names one check many times to claim more attempts than
// any run makes. Each attack has a benign control beside it.
import { afterEach, describe, expect, it } from 'vitest';
import { deploymentLine } from '../../src/health/deployment-log.ts';
import type { DeploymentRecord } from '../../src/health/deployment-records.ts';
import { sealKey } from '../../src/seal.ts';
import { DEMO_KEY } from '../sim/server.ts';
import { base, runCli } from './cli-run.ts';
import { onEvent, runAction, workspaceWith } from './harness.ts';
import { HealthWorld } from './health-world.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const REPO_ID = 1001;
const FORK_ID = 2002;
const SECRETS = { GITHUB_TOKEN: 'ghs_round5-step-token-0123456789' };

/** A workspace with `files` and the runner's event payload (`event.json`). */
const workspace = (files: Record<string, string>, payload: Record<string, unknown> = {}): string =>
  workspaceWith(
    { ...files, 'event.json': JSON.stringify({ repository: { id: REPO_ID, full_name: 'octo/claws' }, ...payload }) },
    'claw-round5-',
  );
const forkPr = { pull_request: { number: 7, head: { sha: 'feedc0ffee', repo: { id: FORK_ID } } } };

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
      const dir = workspace({ 'c.yaml': configWithType(type) }, forkPr);
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
    const dir = workspace({ 'c.yaml': config }, forkPr);
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
      const dir = workspace({ 'c.yaml': configWithType(type) }, forkPr);
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
    const dir = workspace({ 'checks.yml': checksWith(schema) });
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
    const odd = await runCli(['check', '--constructor', 'x'], { cwd: workspace({}) });
    expect(odd.code).not.toBe(0);
    expect(odd.stderr).toMatch(/Unknown flag --constructor/);
    expect(odd.stderr).not.toMatch(/native code/);
    const known = await runCli(['check', '--github-token', 'x'], { cwd: workspace({}) });
    expect(known.stderr).toMatch(/--github-token is not for the command line/);
  });
});

describe('a saved run that names one check many times', () => {
  /** A checks output as this action writes it: each listed check with `samples` attempts. */
  const saved = (checks: { name: string; outcome: 'pass' | 'fail' }[], samples = 10): string =>
    JSON.stringify({
      results: {
        results: checks.map(({ name, outcome }) => ({
          metadata: {
            clawDeploy: {
              check: name,
              clawId: 'prod',
              samples: Array.from({ length: samples }, () => ({ outcome, score: outcome === 'pass' ? 1 : 0 })),
            },
          },
        })),
      },
    });
  const CHECKS = `defaults:\n  repeat: 10\nchecks:\n  - name: q1\n    send: hi\n    assert:\n      - type: equals\n        value: 'yes'\n`;
  const compare = async (file: string) => {
    const s = await start();
    s.addClaw('next', { chat: { mode: 'sync', reply: 'yes' } });
    const dir = workspace({ 'checks.yml': CHECKS, 'saved.json': file });
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
    return { s, cli: await runCli([...args, '--json'], { cwd: dir }) };
  };

  // Found, now fixed (medium: figures that lie; whoever writes the file, a fork's under a fork's
  // event). A run saves one result per check and Claw, at most 100 attempts each. The reader took
  // every result and the comparison pooled results of one name, so q1 written 1,000 times claimed
  // 10,000 baseline attempts of one check: the pass rate's interval drawn 30 times narrower than
  // any run can support, and the report's n a figure no run made. Now a check named twice for its
  // Claw is one error naming the file and the line of the second, before any request.
  it('q1 written 1,000 times is one error at the second, before any request', async () => {
    const { s, cli } = await compare(saved(Array.from({ length: 1000 }, () => ({ name: 'q1', outcome: 'pass' }))));
    expect(cli.code, cli.stdout).not.toBe(0);
    expect(cli.stderr).toMatch(
      /saved\.json, line \d+: results\.results\.1\.metadata\.clawDeploy\.check: expected .*once/,
    );
    expect(cli.stdout).not.toMatch(/"n": ?10000/);
    expect(s.requests).toEqual([]);
  });

  it('control: each check once, the baseline n is its own attempts', async () => {
    const { cli } = await compare(
      saved([
        { name: 'q1', outcome: 'pass' },
        { name: 'q2', outcome: 'pass' },
      ]),
    );
    expect(cli.code, cli.stderr).toBe(0);
    const result = JSON.parse(cli.stdout) as {
      comparison: { check: string; metric: string; baseline: { n: number } }[];
    };
    const q1 = result.comparison.find((m) => m.check === 'q1' && m.metric === 'pass-rate');
    expect(q1?.baseline.n).toBe(10);
  });
});

describe('deployment records whose ids a hostile service chose, sealed as this action writes them', () => {
  // Input controlled by: the service (the deployment id a deploy recorded), then anyone with push
  // access (which sealed lines sit in the month's file, repeated or not). Held: every sink escapes
  // the id, the link targets are built from the repository and the run's id only, and one id with
  // a failed and a succeeded record counts once, failed.
  const T = Date.parse('2026-11-20T10:00:00Z');
  const HOUR = 3600_000;
  const BRANCH = 'claw-health';
  const SEAL = sealKey(DEMO_KEY, 'octo/claws');
  const HOSTILE = [
    '<img_src=x_onerror=alert(1)>',
    '::error::FORGED-RECORD',
    '[x](javascript:alert(1))',
    'a|b`c`',
    '%0A::warning::x',
  ];
  const world = new HealthWorld({ timeout: '20s', 'status-page': 'true', incidents: 'false' }, {}, 5300);
  afterEach(() => world.stop());

  it('ids with markup, commands and pipes are text on the page, the summary, status.json and the log', async () => {
    const { sim } = await world.start({ speed: 20 });
    sim.addClaw('bot-a');
    const record = (deployment: string, at: number, outcome: DeploymentRecord['outcome']): DeploymentRecord => ({
      at,
      claw: 'bot-a',
      deployment,
      outcome,
      run: '77',
      commit: 'c0ffee'.padEnd(40, '1'),
    });
    const records = HOSTILE.map((id, i) => record(id, T - (i + 2) * HOUR, 'succeeded'));
    // The control: a plain id recorded twice, succeeded then failed (conflicting): one deployment, failed.
    records.push(record('dep_plain', T - 10 * HOUR, 'succeeded'), record('dep_plain', T - 9 * HOUR, 'failed'));
    const lines = records.map((r) => deploymentLine(r, SEAL));
    world.github!.repo.push(BRANCH, { 'history/deployments/2026-11.ndjson': `${lines.join('\n')}\n${lines[0]}\n` });
    const run = await world.run(T, { 'claw-id': '*', history: BRANCH });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.errors).toEqual([]);
    expect(run.commands.every((c) => /^::(add-mask|debug|warning|notice|group|endgroup)::/.test(c))).toBe(true);
    expect(run.commands.join('\n')).not.toMatch(/FORGED-RECORD/);
    expect(run.summary).not.toMatch(/<img|\]\(javascript:|^\s*::/m);
    const html = world.github!.repo.file(BRANCH, 'index.html')!;
    expect(html).not.toMatch(/<img|href="javascript:|href="\/\//);
    expect(html).toContain('&lt;img_src=x_onerror=alert(1)&gt;');
    const status = JSON.parse(world.github!.repo.file(BRANCH, 'status.json')!) as {
      deployments: { id: string }[];
      dora: { overall: Record<string, { deployments: number; changeFailureRate: { failed: number } }> };
    };
    expect(status.deployments.map((d) => d.id).sort()).toEqual([...HOSTILE, 'dep_plain'].sort());
    expect(status.dora.overall['7']).toMatchObject({ deployments: 6, changeFailureRate: { failed: 1 } });
  });
});
