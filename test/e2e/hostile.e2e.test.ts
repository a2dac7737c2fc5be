// The service is untrusted: dist/index.js against a service that answers with hostile data. The
// log is read as the runner reads it, outputs through the file-command parser, the summary as
// GitHub's table parser splits it.
import { describe, expect, it } from 'vitest';
import { encodedForms } from '../support/encoded-forms.ts';
import { DEMO_KEY } from '../sim/server.ts';
import { type ActionRun, WORKFLOW_TOKEN, runAction } from './harness.ts';
import { hostilePerTest, inputsFor, simulatorPerTest } from './service.ts';

const KEY = 'sk_live_9f8e7d6c5b4a3210';

const startSim = simulatorPerTest({ urls: true });
const startHostile = hostilePerTest();

/** A run against the service at `url`, each request given 2 s. */
const inputs = (url: string, extra: Record<string, string> = {}) =>
  inputsFor({ url }, { timeout: '10s', 'request-timeout': '2s', ...extra });

/** The commands the action itself writes: its own annotations, groups, debug lines and the key's mask. */
function foreignCommands(run: ActionRun, key = DEMO_KEY): string[] {
  return run.commands.filter((line) => {
    if (line === `::add-mask::${key}` || line === `::add-mask::${WORKFLOW_TOKEN}`) return false;
    return !/^::(debug|notice|warning|error|group|endgroup)::/.test(line) || line.includes('##[');
  });
}

/** Every table in the summary keeps its header's column count, split as GitHub splits cells. */
function tableShapes(markdown: string): { header: number; rows: number[] }[] {
  const cells = (row: string) =>
    row
      .trim()
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/).length;
  const tables: { header: number; rows: number[] }[] = [];
  let current: { header: number; rows: number[] } | undefined;
  for (const line of markdown.split(/\r\n|\n|\r/)) {
    if (!line.startsWith('|')) {
      current = undefined;
      continue;
    }
    if (!current) tables.push((current = { header: cells(line), rows: [] }));
    else current.rows.push(cells(line));
  }
  return tables;
}

const HOSTILE_STATUSES = [
  'deploying\n::set-output name=outcome::succeeded',
  '::stop-commands::tok',
  '  ::add-mask::everything',
  'x\r::error::forged | <img src=x onerror=alert(1)> [Re-authenticate](https://evil.example/login)',
  '\u001b[31m##[error]legacy\u202eevil %0A::error::encoded',
];

describe('hostile statuses and ids', () => {
  it('no service text becomes a command, an output or a broken summary table', async () => {
    const s = await startSim();
    const claw = 'c|1<b>`x`';
    s.addClaw(claw, { plan: [...HOSTILE_STATUSES.map((status): [string, number] => [status, 6000]), ['failed']] });
    const run = await runAction(inputs(s.url, { 'claw-id': claw, 'auto-rollback': 'true' }));

    expect(run.exitCode).toBe(1);
    // Each hostile status was seen and logged (as data), none as a command.
    for (const word of ['set-output', 'stop-commands', 'add-mask::everything', 'forged', 'legacy']) {
      expect(run.stdout).toContain(word);
    }
    expect(foreignCommands(run)).toEqual([]);
    // The action's own error is still there, and the last thing the runner reads.
    expect(run.errors.at(-1)).toMatch(/failed with status "failed".*It was rolled back/);
    expect(run.outputs.outcome).toBe('failed');
    expect(run.outputs['rolled-back']).toBe('true');
    expect(Object.keys(run.outputs)).not.toContain('set-output');

    const tables = tableShapes(run.summary);
    expect(tables.length).toBeGreaterThanOrEqual(2);
    for (const t of tables) expect(t.rows.every((n) => n === t.header)).toBe(true);
    expect(run.summary).not.toMatch(/<img|<b>|\]\(https:\/\/evil/);
  });

  it('leaves an output empty rather than pass on a status with control characters', async () => {
    const s = await startSim();
    s.addClaw('c1', { plan: [[HOSTILE_STATUSES[0]]] });
    const run = await runAction(inputs(s.url, { timeout: '1s' }));
    expect(run.outputs.outcome).toBe('timed-out');
    expect(run.outputs.status).toBe('');
    expect(run.warnings).toContain(
      "Output 'status' is left empty: the service's value was refused (it holds control characters).",
    );
  });

  it('refuses a deployment id of ".." from the service before it reaches a path', async () => {
    const h = await startHostile(({ method }) =>
      method === 'POST'
        ? { status: 201, body: '{"id":"..","status":"pending"}' }
        : { body: '{"id":"x","status":"live"}' },
    );
    const run = await runAction(inputs(h.url));
    expect(run.exitCode).toBe(1);
    expect(run.errors[0]).toMatch(/returned a deployment id "\.\.", which is not used/);
    expect(h.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/deployments']);
    expect(run.outputs['deployment-id'] ?? '').toBe('');
  });

  it.each(['.', '..'])('refuses deployment-id %j as an input, before any request', async (id) => {
    const h = await startHostile(() => ({ body: '{}' }));
    const run = await runAction(inputs(h.url, { command: 'wait', 'deployment-id': id }));
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([expect.stringMatching(/^Input 'deployment-id' is "\.{1,2}": expected an identifier/)]);
    expect(h.requests).toHaveLength(0);
  });
});

describe('hostile bodies', () => {
  const trigger = { status: 201, body: '{"id":"dep_1","status":"pending"}' };

  it('abandons a 600 MB body at once, with an error naming the request, in bounded memory', async () => {
    const h = await startHostile(({ method }) =>
      method === 'POST'
        ? trigger
        : { headers: { 'Content-Length': String(600 * 1024 * 1024) }, endless: 'x'.repeat(65536) },
    );
    const run = await runAction(inputs(h.url), { measureRss: true });
    expect(run.exitCode).toBe(1);
    expect(run.errors[0]).toBe(
      'Deployment dep_1 of Claw c1 was triggered, then the deploy stopped: GET /v1/deployments/:id answered 200 with a body over 4 MiB; it was abandoned unread (last status "pending").',
    );
    expect(run.outputs.outcome).toBe('error');
    expect(run.peakRssKb).toBeLessThan(120 * 1024);
  });

  it('stops reading an endless chunked body at the cap, in bounded memory', async () => {
    const h = await startHostile(({ method }) => (method === 'POST' ? trigger : { endless: '[1,'.repeat(20_000) }));
    const run = await runAction(inputs(h.url), { measureRss: true });
    expect(run.exitCode).toBe(1);
    expect(run.errors[0]).toMatch(/GET \/v1\/deployments\/:id answered 200 with a body over 4 MiB/);
    expect(run.peakRssKb).toBeLessThan(120 * 1024);
  });

  it('reads 10,000-deep JSON as an unreadable body and ends at the deadline with what arrived', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const h = await startHostile(({ method }) => (method === 'POST' ? trigger : { body: deep }));
    const run = await runAction(inputs(h.url, { timeout: '3s' }));
    expect(run.exitCode).toBe(1);
    expect(run.outputs.outcome).toBe('timed-out');
    expect(run.errors[0]).toMatch(/timed out.*200 with JSON nested deeper than 64 levels/);
    expect(run.stderr).not.toMatch(/Maximum call stack/);
  });
});

describe('the key', () => {
  it('never appears in any encoded form in stdout, outputs, summary or state', async () => {
    const forms = [...encodedForms(KEY), ...encodedForms(`Bearer ${KEY}`)];
    const echo = forms.join(' ');
    let polls = 0;
    const h = await startHostile(({ method }) => {
      const headers = { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '50', 'X-RateLimit-Reset': echo };
      const status = method === 'POST' ? `pending ${echo}` : polls++ === 0 ? `queued ${echo}` : 'failed';
      const body = JSON.stringify({ id: 'dep_1', status, url: `https://x.example/${echo}`, note: echo });
      return { status: method === 'POST' ? 201 : 200, headers, body };
    });
    const run = await runAction(inputs(h.url, { 'api-key': KEY }), { env: { RUNNER_DEBUG: '1' } });
    expect(run.exitCode).toBe(1);
    expect(h.requests[0].authorization).toBe(`Bearer ${KEY}`);
    const visible = run.stdout.replace(`::add-mask::${KEY}`, '');
    for (const where of [visible, run.stderr, run.summary, JSON.stringify(run.outputs), JSON.stringify(run.state)]) {
      for (const form of forms) expect(where).not.toContain(form);
    }
    expect(visible).toContain('***');
  });

  it('is redacted from an error body in every encoded form', async () => {
    const forms = [...encodedForms(KEY), ...encodedForms(`Bearer ${KEY}`)];
    const h = await startHostile(() => ({
      status: 403,
      body: JSON.stringify({ error: { code: 'forbidden', message: `key ${forms.join(' ')} lacks a scope` } }),
    }));
    const run = await runAction(inputs(h.url, { 'api-key': KEY, command: 'wait', 'deployment-id': 'dep_1' }));
    expect(run.exitCode).toBe(1);
    expect(run.errors[0]).toMatch(/lacks the 'deployments:read' scope.*The service said: key \*\*\*/);
    for (const form of forms) expect(run.stdout.replace(`::add-mask::${KEY}`, '')).not.toContain(form);
  });
});

describe('probe-expect', () => {
  it('a catastrophic pattern against a hostile reply ends in time', async () => {
    const s = await startSim();
    s.addClaw('c1', { chat: { mode: 'sync', reply: `${'a'.repeat(34)}!` } });
    s.addDeployment('c1', [['live']]);
    const run = await runAction(
      inputs(s.url, { command: 'health', 'probe-message': 'ping', 'probe-expect': '^(\\w+\\s?)*$' }),
      { killAfterMs: 20_000 },
    );
    expect(run.signal).toBeNull(); // not killed by the guard
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.outputs.report)).toMatchObject([{ clawId: 'c1', healthy: false }]);
  });

  it('refuses a pattern that needs backtracking as a bad input, before any request', async () => {
    const s = await startSim();
    const run = await runAction(
      inputs(s.url, { command: 'health', 'probe-message': 'ping', 'probe-expect': '(?=pong)' }),
    );
    expect(run.exitCode).toBe(1);
    expect(run.errors).toEqual([
      expect.stringMatching(/^Input 'probe-expect' is "\(\?=pong\)": expected a regular expression in RE2 syntax/),
    ]);
    expect(s.requests).toHaveLength(0);
  });
});

describe('the chat reply in the report', () => {
  it('stays data: a reply with shell quotes is a JSON string in the report, literal text in the summary', async () => {
    const s = await startSim();
    const reply = `'; touch /tmp/x; echo ' | <b>pong</b>`;
    s.addClaw('c1', { chat: { mode: 'sync', reply } });
    s.addDeployment('c1', [['live']]);
    const run = await runAction(inputs(s.url, { command: 'health', 'probe-message': 'ping', 'probe-expect': 'pong' }));
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.outputs.report)[0].reply).toBe(reply);
    expect(run.summary).not.toContain('<b>');
    for (const t of tableShapes(run.summary)) expect(t.rows.every((n) => n === t.header)).toBe(true);
  });
});
