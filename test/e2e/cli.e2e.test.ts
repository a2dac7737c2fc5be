// The command line as a user runs it: `claw-deploy <command> --flags` (the package's bin, over
// dist/) against the simulator, with the key in the environment: exit codes, results on stdout and
// the log on stderr, --json on every exit checked against the schema docs/cli.md publishes, its
// own words, help per command, refused flags, Ctrl-C with a rollback, a closed pipe, the plan in
// the terminal, no ANSI when not a terminal, and a hostile status shown as text.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, type Simulator } from '../sim/server.ts';
import { type CliRun, base, oneJsonObject, runCli } from './cli-run.ts';
import { ROOT, readActionYml } from './harness.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest({ rollbackForm: 'new-deployment' });
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[/;

describe('claw-deploy, the command line', () => {
  it('a deploy that succeeds: exit 0, the log on stderr, the result on stdout, no ANSI off a terminal', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 1000], ['live']] });
    const run = await runCli(['deploy', '--claw-id', 'c1', ...base(s)]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/deployment dep_0001: pending \(in progress\)/);
    expect(run.stderr).toMatch(/deployment dep_0001: live \(success\)/);
    expect(run.stdout).not.toContain('pending (in progress)');
    expect(run.stdout).toMatch(/^✔ Deployment dep_0001 of Claw c1 succeeded/);
    expect(run.stdout).toMatch(/Outputs:\n {2}deployment-id +dep_0001\n {2}status +live\n {2}outcome +succeeded/);
    expect(run.stdout + run.stderr).not.toMatch(ANSI);
    expect(run.stdout + run.stderr).not.toContain(DEMO_KEY);
  });

  it('a fleet rollout with failures names the Claws that failed on stdout', async () => {
    const s = await start();
    s.addClaw('ok-1', { plan: [['live']] });
    s.addClaw('bad-1', { plan: [['pending', 200], ['crashed']] });
    s.addClaw('bad-2', { plan: [['pending', 200], ['crashed']] });
    const run = await runCli(['deploy', '--claw-id', 'ok-1,bad-1,bad-2', '--max-failures', '5', ...base(s)]);
    expect(run.stdout.split('\n')[0]).toMatch(/2 failed \(bad-1, bad-2\)/);
  });

  it("wait on a deployment that already finished: the service's duration, never 0s", async () => {
    const s = await start({ timestamps: true });
    s.addClaw('c1');
    // It took 20 s of the simulator's time (1 s, at 20×) and finished before the wait began.
    const done = s.addDeployment('c1', [['in_progress', 20_000], ['live']]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const run = await runCli(['wait', '--deployment-id', done.id, ...base(s)]);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(/succeeded with status "live" after 1(\.\d+)?s\.$/);
    expect(run.stdout).not.toMatch(/after 0s|duration +0\b/);
  });

  it('a deploy that fails and is rolled back: exit 1; --json is one object, typed, valid against the schema', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 500], ['crashed']] });
    const run = await runCli(['deploy', '--claw-id', 'c1', '--auto-rollback', '--json', ...base(s)]);
    expect(run.code).toBe(1);
    const outputs = oneJsonObject(run);
    expect(outputs).toMatchObject({
      outcome: 'failed',
      'exit-code': 1,
      status: 'crashed',
      'rolled-back': true,
      'rollback-id': 'dep_0002',
    });
    expect(typeof outputs.duration).toBe('number');
    expect(outputs.message).toContain('It was rolled back');
    // The log went to stderr, so stdout holds the JSON alone.
    expect(run.stderr).toContain('deployment dep_0001: crashed');
  });

  it('bad input: exit 2, one line on stderr naming the flag, stdout empty, nothing sent', async () => {
    const s = await start();
    const run = await runCli(['deploy', '--claw-id', '../etc', ...base(s)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `error: --claw-id is "../etc": expected an identifier without whitespace, control characters or '/', not '.' or '..', at most 200 characters.\n`,
    );
    expect(run.stdout).toBe('');
    const refusals: [string[], string][] = [
      [
        ['deploy', '--api-key', 'x'],
        'The API key is read only from the environment (CLAW_DEPLOY_API_KEY, or AMS_API_KEY)',
      ],
      [['deploy', '--claw', 'c1'], 'Unknown flag --claw; did you mean --claw-id?'],
      [
        ['deploy', '--claw-id=c1', '--pol-interval', '1s'],
        'Unknown flag --pol-interval; did you mean --poll-interval?',
      ],
      [['deply', '--claw-id', 'c1'], 'Unknown command "deply"; did you mean deploy?'],
      [['deploy', '--claw-id', 'c1', '--claw-id', 'c2'], '--claw-id is given twice: give each flag once'],
      [['deploy', '--claw-id', 'c1', '--timeout', '1m', '--timeout=2m'], '--timeout is given twice'],
      [['deploy', '--claw-id', 'c1', '--environment', 'production'], '--environment is not for the command line'],
      [['plan', '--manifest', 'claws.yml', '--comment'], '--comment is not for the command line'],
      [['health', '--claw-id', 'c1', '--incidents'], '--incidents is not for the command line'],
      [['deploy', '--claw-id'], '--claw-id needs a value'],
    ];
    for (const [args, message] of refusals) {
      const refused = await runCli([...args, ...base(s)]);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr.split('\n'), args.join(' ')).toHaveLength(2); // one line, then the end
      expect(refused.stderr, args.join(' ')).toContain(message);
      expect(refused.stdout).toBe('');
    }
    expect(s.requests).toHaveLength(0);
  });

  it("its own words: flags, environment variables and the current folder, never the action's inputs", async () => {
    const s = await start();
    s.addClaw('c1');
    const noFile = await runCli(['check', '--claw-id', 'c1', '--checks', 'missing.yml', ...base(s)]);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toBe(
      'error: The checks file "missing.yml" could not be read (no such file in the current folder): expected a YAML file, relative to the current folder.\n',
    );
    const rollback = await runCli(['rollback', ...base(s)]);
    expect(rollback.stderr).toContain(
      '--deployment-id is "": expected the deployment to roll back, or a --claw-id whose current deployment is rolled back.',
    );
    const apply = await runCli(['apply', '--manifest', 'claws.yml', ...base(s)]);
    expect(apply.stderr).toContain(
      '--plan-id is "": expected the plan-id output of the reviewed plan (apply refuses to write an unreviewed plan), or --auto-approve to apply without review.',
    );
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(
      join(cwd, 'checks.yml'),
      'judge: {url: "https://judge.example.com/v1", model: m, api-key-env: JUDGE_KEY}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n',
    );
    const unset = await runCli(['check', '--claw-id', 'c1', '--checks', 'checks.yml', ...base(s)], { cwd });
    expect(unset.stderr).toContain(
      'which is not set: expected the variable in the environment (export it before running claw-deploy).',
    );
    const address = await runCli(['health', '--claw-id', 'c1']);
    expect(address.stderr).toContain('error: --base-url (or CLAW_DEPLOY_BASE_URL) is "": expected the service address');
    for (const run of [noFile, rollback, apply, unset, address]) {
      expect(run.stderr).not.toMatch(/Input '|the workspace|check out the repository|env: on the step|'api-key'/);
    }
    expect(s.requests).toHaveLength(0);
  });

  it('a refused key: exit 3 (could not act), with advice naming the variable the key came from', async () => {
    const s = await start();
    s.addClaw('c1');
    const run = await runCli(['health', '--claw-id', 'c1', ...base(s)], {
      env: { CLAW_DEPLOY_API_KEY: '', AMS_API_KEY: 'not-the-key' },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      'The API key was refused (401 unauthorized) on GET /v1/claws/:id: it is missing, invalid or revoked. Check AMS_API_KEY and --auth-scheme.',
    );
    expect(run.stderr).not.toContain("'api-key'");
    expect(run.stdout + run.stderr).not.toContain('not-the-key');
  });

  it("check: a checks file against a staging Claw, no deployment, with --junit; a failed check's reply is shown", async () => {
    const s = await start();
    const reply = `Hello! What is your order number? ${'I can look it up for you in a moment. '.repeat(6)}\nSecond line.\nThird line.`;
    s.addClaw('claw-staging', { chat: { mode: 'sync', reply } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(
      join(cwd, 'claw-checks.yml'),
      'checks:\n  - name: greets\n    send: Hello\n    assert: [{type: icontains, value: hello}]\n  - name: refunds\n    send: I want a refund\n    assert: [{type: contains, value: refund}]\n',
    );
    const run = await runCli(
      [
        'check',
        '--claw-id',
        'claw-staging',
        '--checks',
        'claw-checks.yml',
        '--junit',
        'reports/checks.xml',
        ...base(s),
      ],
      { cwd },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Checks \(1 of 2 passed\):/);
    expect(run.stdout).toMatch(/claw-staging · refunds +✘ failed 0\/1\n +contains "refund" did not hold/);
    // The reply, whole lines wrapped to the width (100 off a terminal), its own lines kept.
    const shown = run.stdout.slice(run.stdout.indexOf('      reply:\n'));
    expect(shown).toContain('│ Hello! What is your order number? I can look it up for you in a moment.');
    expect(shown).toContain('│ Second line.\n');
    expect(Math.max(...shown.split('\n').map((l) => l.length))).toBeLessThanOrEqual(100);
    const junit = readFileSync(join(cwd, 'reports', 'checks.xml'), 'utf8');
    expect(junit).toContain('<testsuite name="Claw claw-staging" tests="2" failures="1" errors="0"');
    expect(s.requests.some((r) => r.path.startsWith('/v1/deployments'))).toBe(false);
  });

  it('plan and drift print the plan in the terminal; drift names the keys that differ', async () => {
    const s = await start();
    s.addClaw('claw-support-bot', { plan: [['live']], config: { personality: { tone: 'formal' }, prompt: 'a\nb\nc' } });
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(
      join(cwd, 'claws.yml'),
      'claws:\n  claw-support-bot:\n    config:\n      personality: {tone: friendly}\n      prompt: "a\\nB\\nc"\n    skills: [web-search]\n',
    );
    const plan = await runCli(['plan', '--manifest', 'claws.yml', ...base(s)], { cwd });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      'Plan for claws.yml: +1 to add, ~1 to change, -0 to remove (Claws, skills and members: the lines below are their settings; plan id ',
    );
    expect(plan.stdout).toContain('Claw claw-support-bot\n  ! personality.tone: "formal" → "friendly"');
    expect(plan.stdout).toMatch(/ {2}- {3}b\n {2}\+ {3}B\n/);
    expect(plan.stdout).toContain('  + skill web-search');
    const drift = await runCli(['drift', '--manifest', 'claws.yml', '--json', ...base(s)], { cwd });
    expect(drift.code).toBe(1);
    const result = oneJsonObject(drift);
    expect(result.message).toContain('update Claw claw-support-bot (personality.tone, prompt)');
    expect(result.plan).toMatchObject({ operations: expect.any(Array) });
    expect(result.changes).toBe(2);
    expect(s.requests.filter((r) => r.method !== 'GET')).toHaveLength(0);
  });

  it('Ctrl-C during a wait with auto-rollback covering cancelled: rolled back, exit 130, one JSON object', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['pending', 60_000], ['live']] });
    const run = await runCli(
      ['deploy', '--claw-id', 'c1', '--auto-rollback', '--rollback-on', 'failed,cancelled', '--json', ...base(s)],
      { onLog: (line, child) => void (line.includes('pending (in progress)') && child.kill('SIGINT')) },
    );
    expect(run.code).toBe(130);
    expect(
      s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/deployments/dep_0001/rollback'),
    ).toHaveLength(1);
    expect(run.stderr).toContain('Received SIGINT');
    expect(oneJsonObject(run)).toMatchObject({ outcome: 'cancelled', 'exit-code': 130 });
  });

  it('--json prints one object valid against the schema on every exit: 0, 1, 2, 3, 130, 143', async () => {
    const s = await start();
    s.addClaw('live', { plan: [['pending', 200], ['live']] });
    s.addClaw('crash', { plan: [['pending', 200], ['crashed']] });
    s.addClaw('slow', { plan: [['pending', 60_000], ['live']] });
    const runs: [number, CliRun][] = [
      [0, await runCli(['deploy', '--claw-id', 'live', '--json', ...base(s)])],
      [0, await runCli(['--version', '--json'])],
      [0, await runCli(['deploy', '--help', '--json'])],
      [1, await runCli(['deploy', '--claw-id', 'crash', '--json', ...base(s)])],
      [2, await runCli(['deploy', '--json', '--claw-id', 'c1', '--bogus', ...base(s)])],
      [2, await runCli(['--json'])],
      [2, await runCli(['deploy', '--claw-id', 'c1', '--json', ...base(s)], { env: { CLAW_DEPLOY_API_KEY: '' } })],
      [3, await runCli(['deploy', '--claw-id', 'nope', '--json', ...base(s)])],
      [
        3,
        await runCli(['health', '--claw-id', 'live', '--json', ...base(s)], {
          env: { CLAW_DEPLOY_API_KEY: 'wrong-key' },
        }),
      ],
    ];
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const run = await runCli(['deploy', '--claw-id', 'slow', '--json', ...base(s)], {
        onLog: (line, child) => void (line.includes('pending (in progress)') && child.kill(signal)),
      });
      runs.push([signal === 'SIGINT' ? 130 : 143, run]);
    }
    for (const [code, run] of runs) {
      expect(run.code, run.stderr).toBe(code);
      oneJsonObject(run);
    }
    expect((JSON.parse(runs[2][1].stdout) as { help: string }).help).toMatch(/^Usage: claw-deploy deploy \[flags\]/);
    expect(runs.map(([, r]) => (JSON.parse(r.stdout) as { outcome: string }).outcome)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'failed',
      'error',
      'error',
      'error',
      'error',
      'error',
      'cancelled',
      'cancelled',
    ]);
  });

  it('a closed stdout and stderr (| head -n 2) never end the run: the deployment crashes after, the rollback is sent, exit 1', async () => {
    const s = await start({ speed: 1 });
    s.addClaw('c1', { plan: [['pending', 1500], ['crashed']] });
    let closed = false;
    const run = await runCli(['deploy', '--claw-id', 'c1', '--auto-rollback', ...base(s)], {
      // As `2>&1 | head -n 2` does: the reader takes two lines and goes away.
      onLog: (line, child) => {
        if (!closed && line.includes('Triggered deployment')) {
          closed = true;
          child.stdout?.destroy();
          child.stderr?.destroy();
        }
      },
    });
    expect(closed).toBe(true);
    expect(run.code).toBe(1);
    expect(
      s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/deployments/dep_0001/rollback'),
    ).toHaveLength(1);
  });

  it('a hostile status with escape sequences is printed as text, never as a terminal control', async () => {
    const s = await start();
    s.addClaw('c1', { plan: [['\u001b[2J\u001b[31mdeploying\u001b]0;pwned\u0007', 500], ['live']] });
    const run = await runCli(['deploy', '--claw-id', 'c1', ...base(s)]);
    expect(run.code).toBe(0);
    // eslint-disable-next-line no-control-regex
    expect(run.stdout + run.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(run.stderr).toContain('\\x1b[2J\\x1b[31mdeploying\\x1b]0;pwned\\x07');
  });

  it("--help: the tool's commands; each command's flags only, grouped; every input somewhere; -h everywhere", async () => {
    const tool = await runCli(['--help']);
    expect(tool.code).toBe(0);
    expect(tool.stdout).toMatch(/Exit codes:\n {2}0 /);
    const commands = ['deploy', 'wait', 'rollback', 'health', 'check', 'plan', 'apply', 'drift', 'preview', 'compare'];
    for (const command of commands) expect(tool.stdout).toContain(`  ${command} `);
    const helps = new Map<string, string>();
    for (const command of commands) {
      const help = await runCli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('CLAW_DEPLOY_API_KEY');
      helps.set(command, help.stdout);
    }
    expect(helps.get('deploy')).toMatch(/Which Claw:\n {2}--claw-id /);
    expect(helps.get('deploy')).toMatch(
      /Rolling back:\n {2}--auto-rollback +Roll back when the outcome is one of --rollback-on\./,
    );
    expect(helps.get('deploy')).not.toMatch(/^ {2}--manifest /m);
    expect(helps.get('plan')).toMatch(/^ {2}--manifest /m);
    expect(helps.get('plan')).not.toMatch(/^ {2}--claw-id /m);
    expect(helps.get('plan')).not.toMatch(/^ {2}--auto-rollback /m);
    expect([...helps.values()].join('')).not.toContain('${{');
    expect(helps.get('check')).toContain('relative to the current folder');
    // Each command's help in its own words: compare's candidate and gate, health's page beside --history-dir.
    const flagText = (command: string, flag: string) =>
      helps.get(command)!.match(new RegExp(`\\n {2}--${flag} +([^]*?)(?=\\n {2}--|\\n\\n)`))?.[1] ?? '';
    expect(flagText('compare', 'claw-id')).toMatch(/^The candidate Claw/);
    expect(helps.get('compare')).not.toContain('The Claw to deploy or roll back');
    expect(flagText('compare', 'fail-on')).toMatch(/^compare: /);
    expect(flagText('health', 'status-page')).toMatch(/^with --history-dir: render the status page/);
    expect(helps.get('deploy')).not.toMatch(/^ {2}--baseline-file /m);
    // Every input but the key, the command and the action's own is a flag of some command.
    const { ACTION_ONLY } = await import('../../src/cli/args.ts');
    const inputs = Object.keys(readActionYml().inputs).filter(
      (name) => !['command', 'api-key'].includes(name) && !(name in ACTION_ONLY),
    );
    for (const name of inputs) {
      expect(
        [...helps.values()].some((h) => h.includes(`--${name} `)),
        `--${name} is in some help`,
      ).toBe(true);
    }
    // -h, after anything, even a mistake.
    const short = await runCli(['apply', '--bogus', '-h']);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(helps.get('apply'));
    const preview = await runCli(['preview', '--manifest', 'claws.yml']);
    expect(preview.code).toBe(2);
    expect(preview.stderr).toContain('preview follows a GitHub pull request');
    const version = await runCli(['--version']);
    expect(version.stdout).toMatch(/^claw-deploy \d+\.\d+\.\d+\n$/);
  });
});

describe('one table of inputs', () => {
  it('action.yml documents exactly the table the command line reads: names, order, descriptions, defaults', async () => {
    const { INPUTS } = await import('../../src/contract/inputs.ts');
    const action = readActionYml();
    expect(Object.keys(action.inputs)).toEqual(INPUTS.map((i) => i.name));
    for (const input of INPUTS) {
      const spec = action.inputs[input.name];
      expect(spec.description, input.name).toBe(input.description);
      expect(spec.required ?? false, input.name).toBe(input.required ?? false);
      if (!input.required) expect(spec.default ?? '', input.name).toBe(input.default);
    }
  });

  it('--version is the package version', async () => {
    const { VERSION } = await import('../../src/shared/version.ts');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});

describe('claw-deploy compare', () => {
  /**
   * Two Claws on the simulator's behaviour mode: the candidate fails 8 of the 20 questions. Each
   * answer is held 30 ms and latency may move 100%: the machine's jitter is never the Claw's.
   */
  async function twoClaws(): Promise<{ sim: Simulator; cwd: string }> {
    const sim = await start({ holdMs: 30 });
    const { behavingClaw, failsFirst, questionsFile } = await import('../sim/behaviour.ts');
    sim.addClaw('prod', behavingClaw({ passRates: [1] }));
    sim.addClaw('next', behavingClaw({ passRates: failsFirst(8) }));
    const cwd = mkdtempSync(join(tmpdir(), 'claw-cli-'));
    writeFileSync(join(cwd, 'checks.yml'), questionsFile(20, 3, '  tolerance:\n    latency: 100%\n'));
    return { sim, cwd };
  }

  it('--json: one object with behaviour and comparison; exit 1 on a regression, 0 with --fail-on never', async () => {
    const { sim, cwd } = await twoClaws();
    const args = ['compare', ...base(sim), '--checks', 'checks.yml', '--claw-id', 'next', '--baseline', 'prod'];
    const run = await runCli([...args, '--json', '--output', 'saved.json'], { cwd });
    expect(run.code).toBe(1);
    const result = oneJsonObject(run);
    expect(result).toMatchObject({ outcome: 'failed', 'exit-code': 1, behaviour: 'regressed' });
    const suite = (result.comparison as Record<string, unknown>[]).find(
      (e) => e.check === '*' && e.metric === 'pass-rate',
    );
    // Asked together in rounds: the 12 questions passing on both sides answer the same and are
    // asked once a side; the 8 that differ between the sides all 3 times: 12 + 8 × 3 = 36 a side.
    // The suite's figure reads the same number from every question (one each), so the 8 asked more
    // often weigh no more: the candidate passes 12 of its 20 questions.
    expect(suite).toMatchObject({
      baseline: { value: 1, n: 20 },
      candidate: { value: 12 / 20, n: 20 },
      verdict: 'regressed',
    });
    expect(run.stderr).toContain('20 questions × 3 repeats: a 10% drop in pass rate is found');
    // Against the run saved a moment ago: the same Claw, the same behaviour, no regression.
    const saved = await runCli(
      ['compare', ...base(sim), '--checks', 'checks.yml', '--claw-id', 'next', '--baseline-file', 'saved.json'],
      { cwd },
    );
    expect(saved.code).toBe(0);
    expect(saved.stdout).toMatch(/^Behaviour: unchanged$/m);
    expect(saved.stdout).toContain('* (suite)');
    const never = await runCli([...args, '--fail-on', 'never', '--json'], { cwd });
    expect(never.code).toBe(0);
    expect(oneJsonObject(never)).toMatchObject({ outcome: 'succeeded', behaviour: 'regressed' });
  });

  it('refuses a compare without a baseline, or a baseline file that is not a saved run, naming the line', async () => {
    const { sim, cwd } = await twoClaws();
    const none = await runCli(['compare', ...base(sim), '--checks', 'checks.yml', '--claw-id', 'next', '--json'], {
      cwd,
    });
    expect(none.code).toBe(2);
    expect(oneJsonObject(none).message).toMatch(
      /^--baseline is "": expected the baseline Claw's id, or --baseline-file/,
    );
    writeFileSync(
      join(cwd, 'bad.json'),
      '{\n  "results": {\n    "results": [\n      { "metadata": { "clawDeploy": { "check": "q1", "clawId": "next", "samples": [ { "outcome": "maybe" } ] } } }\n    ]\n  }\n}\n',
    );
    const bad = await runCli(
      ['compare', ...base(sim), '--checks', 'checks.yml', '--claw-id', 'next', '--baseline-file', 'bad.json'],
      { cwd },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'bad.json, line 4: results.results.0.metadata.clawDeploy.samples.0.outcome: expected pass, fail or unjudged',
    );
    expect(sim.requests).toHaveLength(0);
  });
});
