// `npm run demo`: the bundled action against the embedded simulator, three times. First a full
// deploy of a Claw; then a release whose deployment succeeds but whose Claw fails a conversation
// check, so the gate fails it and it is rolled back; then a release whose reply passes every string
// assertion but not a rubric, graded by a judge (a fake OpenAI-compatible endpoint on loopback).
// Each shows the log as the runner shows it, the outputs and the job summary.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAction } from './e2e/harness.ts';
import { FakeJudge, verdict } from './sim/judge.ts';
import { DEMO_KEY, Simulator } from './sim/server.ts';

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
  console.log('\n── log ──────────────────────────────────────────────');
  const run = await runAction(inputs, {
    env: { GITHUB_WORKSPACE: workspace, OPENAI_API_KEY: 'sk-demo-judge-key' },
    onLine: (line) => console.log(`  ${line}`),
  });
  console.log('\n── outputs ──────────────────────────────────────────');
  for (const [name, value] of Object.entries(run.outputs)) console.log(`  ${name} = ${value}`);
  console.log('\n── job summary ──────────────────────────────────────');
  console.log(run.summary.replace(/^/gm, '  '));
  console.log(`exit code ${run.exitCode}`);
  return run.exitCode;
}

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
await judge.stop();
await sim.stop();
console.log(`${sim.requests.length} requests to the simulator in all.`);
// The demo shows what it should: the first run succeeds, the gated one fails as it must.
process.exitCode = deployed === 0 && gated === 1 && judged === 1 ? 0 : 1;
