// `npm run demo`: what a user of each entry sees, against the embedded simulator. The action
// (dist/index.js, run as the runner runs it) three times: a full deploy of a Claw; a release whose
// deployment succeeds but whose Claw fails a conversation check, so the gate fails it and it is
// rolled back; a release whose reply passes every string assertion but not a rubric, graded by a
// judge (a fake OpenAI-compatible endpoint on loopback). Each shows the log as the runner shows it,
// the outputs, and the job summary as GitHub renders it (drawn for a terminal; the Markdown itself
// is written to a file named below). Then the command line (bin/claw-deploy.cjs, as npm installs
// it): a deploy and a check, with what it prints on the terminal.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, collect, runAction } from './e2e/harness.ts';
import { FakeJudge, verdict } from './sim/judge.ts';
import { DEMO_KEY, Simulator } from './sim/server.ts';
import { viewLine } from './runner-log.ts';
import { summaryText } from './summary-text.ts';

const sim = new Simulator({ urls: true, rollbackForm: 'new-deployment', rateLimit: { limit: 60, windowMs: 60_000 } });
sim.addClaw('claw-demo', { plan: [['queued', 800], ['building', 1500], ['rolling_out', 1500], ['live']] });
// This release greets well, but asks for no order number: a broken refund prompt.
sim.addClaw('claw-support-bot', {
  plan: [['queued', 500], ['rolling_out', 1500], ['live']],
  chat: {
    mode: 'sync',
    respond: (message) =>
      message === 'Hello' ? 'Hello! How can I help you today?' : 'Sorry, I cannot help with refunds.',
  },
});
// This one talks about refunds politely, and promises one without asking for the order.
sim.addClaw('claw-refunds', {
  plan: [['queued', 500], ['live']],
  chat: { mode: 'sync', reply: 'Of course! Your refund of $40 is on its way, no questions asked.' },
});
const url = await sim.start();
// The judge reads the reply block and grades it as a model would against the rubric.
const judge = new FakeJudge({
  answer: (request) => {
    const material = (request.body.messages as { content: string }[])[1].content;
    const reply = material.slice(material.indexOf('<<<REPLY'));
    return /order number/i.test(reply)
      ? verdict({ reason: 'Asks for the order number before anything else.', pass: true, score: 0.9 })
      : verdict({ reason: 'Promises a refund without asking for the order number.', pass: false, score: 0.1 });
  },
});
const judgeUrl = await judge.start();

const workspace = mkdtempSync(join(tmpdir(), 'claw-demo-'));
mkdirSync(join(workspace, '.github'));
writeFileSync(
  join(workspace, '.github', 'claw-checks.yml'),
  `checks:
  - name: greets the customer
    send: Hello
    assert:
      - type: icontains
        value: hello
  - name: refund flow
    turns:
      - send: I want a refund
        assert:
          - type: regex
            value: '(?i)order number'
          - type: not-icontains
            value: sorry
`,
);

writeFileSync(
  join(workspace, '.github', 'claw-rubric.yml'),
  `judge:
  url: ${judgeUrl}
  model: gpt-4.1-mini-2025-04-14
  api-key-env: OPENAI_API_KEY
checks:
  - name: refund policy
    send: I want a refund for my kettle
    assert:
      - type: icontains
        value: refund
      - type: llm-rubric
        value: Asks for the order number and never promises a refund before checking it.
`,
);

async function show(title: string, inputs: Record<string, string>): Promise<number | null> {
  console.log(`\n══ ${title} ══`);
  console.log(`Simulator on ${url}/v1. Running dist/index.js with:`);
  for (const [name, value] of Object.entries(inputs)) console.log(`  ${name}: ${name === 'api-key' ? '***' : value}`);
  console.log('\n── log, as the runner shows it ──────────────────────');
  const log = { inGroup: false };
  const run = await runAction(inputs, {
    env: { GITHUB_WORKSPACE: workspace, OPENAI_API_KEY: 'sk-demo-judge-key' },
    onLine: (line) => {
      const shown = viewLine(line, log);
      if (shown !== undefined) console.log(`  ${shown}`);
    },
  });
  console.log('\n── outputs ──────────────────────────────────────────');
  for (const [name, value] of Object.entries(run.outputs)) console.log(`  ${name} = ${value}`);
  summaries += 1;
  const file = join(workspace, `summary-${summaries}.md`);
  writeFileSync(file, run.summary);
  console.log(`\n── job summary, as GitHub renders it (its Markdown: ${file}) ──`);
  console.log(summaryText(run.summary, 96).replace(/^/gm, '  '));
  console.log(`\nexit code ${run.exitCode}`);
  return run.exitCode;
}

/** The command line as a user runs it: `claw-deploy <args>`, the key in the environment. */
async function showCli(title: string, args: string[]): Promise<number | null> {
  console.log(`\n══ ${title} ══`);
  console.log(`$ claw-deploy ${args.join(' ')}`);
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'claw-deploy.cjs'), ...args], {
    cwd: workspace,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CLAW_DEPLOY_API_KEY: DEMO_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Not a terminal, so no live line and no colour: what a CI log or a pipe shows. The log
  // (stderr) and the results (stdout) in the order they arrive.
  let pending = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) console.log(`  ${line}`);
  });
  const ended = await collect(child, { onLine: (line) => console.log(`  ${line}`) });
  console.log(`\nexit code ${ended.exitCode}`);
  return ended.exitCode;
}

let summaries = 0;

const base = { 'api-key': DEMO_KEY, 'base-url': `${url}/v1`, 'poll-interval': '1s', timeout: '2m' };
const deployed = await show('1. Deploy a Claw', { ...base, 'claw-id': 'claw-demo', strategy: 'blue-green' });
const gated = await show('2. A release that deploys, fails its checks, and is rolled back', {
  ...base,
  'claw-id': 'claw-support-bot',
  checks: '.github/claw-checks.yml',
  'checks-junit': 'reports/claw-checks.xml',
  'auto-rollback': 'true',
});
console.log('\n── reports/claw-checks.xml ──────────────────────────');
console.log(readFileSync(join(workspace, 'reports', 'claw-checks.xml'), 'utf8').replace(/^/gm, '  '));
const judged = await show('3. A release whose reply passes "icontains refund" but not the rubric', {
  ...base,
  'claw-id': 'claw-refunds',
  checks: '.github/claw-rubric.yml',
  'auto-rollback': 'true',
});
const cliBase = ['--base-url', `${url}/v1`, '--poll-interval', '1s', '--timeout', '2m'];
const cliDeployed = await showCli('4. The command line: deploy a Claw', [
  'deploy',
  '--claw-id',
  'claw-demo',
  '--strategy',
  'blue-green',
  ...cliBase,
]);
const cliChecked = await showCli('5. The command line: check a Claw, no deployment', [
  'check',
  '--claw-id',
  'claw-support-bot',
  '--checks',
  '.github/claw-checks.yml',
  ...cliBase,
]);
await judge.stop();
await sim.stop();
console.log(`\n${sim.requests.length} requests to the simulator in all.`);
// The demo shows what it should: the deploys succeed, the gated and the checked ones fail as they must.
process.exitCode = deployed === 0 && gated === 1 && judged === 1 && cliDeployed === 0 && cliChecked === 1 ? 0 : 1;
