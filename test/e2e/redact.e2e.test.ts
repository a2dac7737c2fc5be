// One redaction for the run, proven at every sink through dist/index.js. The secrets come back the
// ways an attacker would send them: a service error body and a judge error body echoing the API
// key and the judge key raw, `\/`-escaped, `\uXXXX`-escaped, percent- and base64-encoded; a Claw
// reply holding the judge key, a judge `{env}` header value and a manifest `{env}` value; a
// service that echoes a manifest secret into a config value. Each is placed where a cut (a reply
// excerpt, a clipped message, a wrapped diff line) would split it, which is where a redactor that
// runs only on the final text finds nothing. Sinks: the log, the summary, the outputs, the JUnit
// file, the plan files and the pull-request comment.
// Input controlled by: the service, a Claw (its replies), a judge (its error bodies).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodedForms } from '../support/encoded-forms.ts';
import { FakeJudge } from '../sim/judge.ts';
import { ALL_SCOPES } from '../sim/server.ts';
import { type ActionRun, runAction } from './harness.ts';
import { gitHubPerTest, judgePerTest, simulatorPerTest } from './service.ts';

const KEY = 'ams/Key+Qx7Zr9Wv2Lp4';
const JUDGE_KEY = 'sk-judge/Hq3+Tn8Vc5Mb1';
const HEADER_VALUE = 'hdr/Val+Ye6Ku2Ps9Df';
const MANIFEST_SECRET = 'zd/Tok+Rw4Gj7Nx3Bh';
const SECRETS = [KEY, JUDGE_KEY, HEADER_VALUE, MANIFEST_SECRET];

const start = simulatorPerTest({ keys: { [KEY]: ALL_SCOPES }, writeOnly: ['connections.zendesk.token'] });
const startJudge = judgePerTest();
const startGitHub = gitHubPerTest();
let judge: FakeJudge | undefined;

/** A secret as a JSON string may spell it: raw, `\/`-escaped, `\uXXXX`-escaped, percent, base64. */
function spelled(secret: string): string[] {
  return [
    secret,
    secret.replace(/\//g, '\\/'),
    unicodeEscaped(secret),
    encodeURIComponent(secret),
    Buffer.from(secret).toString('base64'),
  ];
}
const unicodeEscaped = (text: string): string =>
  [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`).join('');

/**
 * An error body whose message spells `echoed` every way, then `straddling` (\u-escaped) so that
 * it begins `at` characters into the decoded message: where a 300-character clip cuts it.
 */
function errorBody(echoed: string[], straddling: string, at = 286): string {
  const forms = `${echoed.flatMap(spelled).join(' ')} `;
  const decoded = (JSON.parse(`"${forms}"`) as string).length;
  const message = `${forms}${'z'.repeat(Math.max(0, at - decoded))}${unicodeEscaped(straddling)} was refused`;
  return `{"error":{"code":"bad_request","type":"invalid_request_error","message":"${message}"}}`;
}

/** Every way a secret must never show: its encoded forms, and any 10 of its characters in a row. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const secret of SECRETS) {
    for (const form of encodedForms(secret)) if (text.includes(form)) found.push(form);
    for (let i = 0; i + 10 <= secret.length; i++) {
      const window = secret.slice(i, i + 10);
      if (text.includes(window)) {
        found.push(window);
        break;
      }
    }
  }
  return found;
}

/** The log as a reader sees it: the runner's own mask commands aside. */
const visibleLog = (run: ActionRun): string =>
  run.stdout
    .split('\n')
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n');

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'claw-redact-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('one redaction at every sink', () => {
  it('checks: service and judge error bodies and Claw replies never show a secret in the log, summary, checks-report or JUnit', async () => {
    const s = await start();
    // A reply that holds the judge key and the judge's header value, each where the excerpt is cut.
    s.addClaw('c1', {
      chat: {
        mode: 'sync',
        respond: (m) =>
          m === 'judge key'
            ? `${'y'.repeat(186)}${JUDGE_KEY} ${KEY}`
            : m === 'header value'
              ? `${'y'.repeat(186)}${HEADER_VALUE}`
              : 'Fine, thank you.',
      },
    });
    s.addClaw('c2', { chat: { mode: 'sync', reply: 'hello' } });
    // The service's error echoes the API key every way, and the judge key where the message is clipped.
    s.fault({
      kind: 'error',
      method: 'POST',
      path: '/chat/c2',
      status: 400,
      text: errorBody([KEY], JUDGE_KEY),
      times: 9,
    });
    // The judge's error echoes its own key and header value every way, and the API key where it is clipped.
    judge = await startJudge({ answer: () => ({ status: 400, text: errorBody([JUDGE_KEY, HEADER_VALUE], KEY) }) });
    const url = judge.url;
    const dir = folder({
      'checks.yml': `judge:
  url: ${url}
  model: judge-model-2025-01-01
  api-key-env: OPENAI_API_KEY
  headers:
    x-tenant-key: {env: TENANT_KEY}
defaults: {timeout: 5s}
checks:
  - {name: reply holds the judge key, claws: [c1], send: judge key, assert: [{type: contains, value: never said}]}
  - {name: reply holds a header value, claws: [c1], send: header value, assert: [{type: contains, value: never said}]}
  - {name: judge echoes, claws: [c1], send: grade me, assert: [{type: llm-rubric, value: Is polite}]}
  - {name: service echoes, claws: [c2], send: hello, assert: [{type: icontains, value: hello}]}
`,
    });
    const run = await runAction(
      {
        command: 'check',
        'api-key': KEY,
        'base-url': `${s.url}/v1`,
        'claw-id': 'c1,c2',
        'poll-interval': '100ms',
        timeout: '20s',
        checks: 'checks.yml',
        'checks-junit': 'checks.xml',
      },
      { env: { GITHUB_WORKSPACE: dir, OPENAI_API_KEY: JUDGE_KEY, TENANT_KEY: HEADER_VALUE } },
    );
    expect(run.exitCode).toBe(1);
    // The genuine flow: the judge got its key and header; every check ran and was reported.
    expect(judge.completions()[0].headers).toMatchObject({
      authorization: `Bearer ${JUDGE_KEY}`,
      'x-tenant-key': HEADER_VALUE,
    });
    const report = JSON.parse(run.outputs['checks-report']) as { check: string; failure: string }[];
    expect(report).toHaveLength(4);
    expect(report.map((e) => e.failure).join('\n')).toContain('***');
    const junit = readFileSync(join(dir, 'checks.xml'), 'utf8');
    for (const [sink, text] of Object.entries({
      log: visibleLog(run),
      stderr: run.stderr,
      summary: run.summary,
      outputs: JSON.stringify(run.outputs),
      junit,
    })) {
      expect({ sink, leaks: leaks(text) }).toEqual({ sink, leaks: [] });
    }
  });

  it('plan on a pull request: a service echoing a manifest secret never shows it in the plan files, the comment, the summary or the log', async () => {
    const s = await start();
    // The service returns the manifest's secret (and the key) inside a long prompt, where the
    // plan's diff wraps the line.
    s.addClaw('c1', {
      config: { personality: { prompt: `${'a'.repeat(186)}${MANIFEST_SECRET} and ${'b'.repeat(186)}${KEY} end` } },
    });
    const github = await startGitHub();
    const temp = mkdtempSync(join(tmpdir(), 'claw-runner-temp-'));
    const dir = folder({
      'claws.yml': `claws:
  c1:
    config:
      personality:
        prompt: Be brief.
      connections:
        zendesk:
          token: { env: ZENDESK_TOKEN }
`,
      'event.json': JSON.stringify({
        number: 7,
        repository: { id: 1 },
        pull_request: { number: 7, head: { repo: { id: 1 } } },
      }),
    });
    const run = await runAction(
      {
        command: 'plan',
        'api-key': KEY,
        'base-url': `${s.url}/v1`,
        manifest: 'claws.yml',
        comment: 'true',
        timeout: '20s',
      },
      {
        env: {
          GITHUB_WORKSPACE: dir,
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: join(dir, 'event.json'),
          GITHUB_API_URL: github.url,
          RUNNER_TEMP: temp,
          ZENDESK_TOKEN: MANIFEST_SECRET,
        },
      },
    );
    expect(run.exitCode).toBe(0);
    const comment = github.comments.get(7)?.[0]?.body ?? '';
    expect(comment).toContain('personality.prompt');
    const files = {
      markdown: readFileSync(run.outputs['plan-file'], 'utf8'),
      json: readFileSync(run.outputs['plan-json'], 'utf8'),
    };
    expect(files.markdown).toContain('***');
    for (const [sink, text] of Object.entries({
      log: visibleLog(run),
      summary: run.summary,
      outputs: JSON.stringify(run.outputs),
      comment,
      ...files,
    })) {
      expect({ sink, leaks: leaks(text) }).toEqual({ sink, leaks: [] });
    }
  });

  it('apply: a reply holding a manifest secret never shows it in the report, checks-report, JUnit, plan files or summary', async () => {
    const s = await start();
    s.addClaw('c1', {
      plan: [['live']],
      config: { greeting: 'Hi' },
      chat: { mode: 'sync', reply: `${'y'.repeat(186)}${MANIFEST_SECRET}` },
    });
    const temp = mkdtempSync(join(tmpdir(), 'claw-runner-temp-'));
    const dir = folder({
      'claws.yml': `claws:
  c1:
    config:
      greeting: Hello
      connections:
        zendesk:
          token: { env: ZENDESK_TOKEN }
`,
      'checks.yml': `checks:
  - {name: answers, send: hello, assert: [{type: contains, value: never said}]}
`,
    });
    const run = await runAction(
      {
        command: 'apply',
        'auto-approve': 'true',
        'api-key': KEY,
        'base-url': `${s.url}/v1`,
        manifest: 'claws.yml',
        checks: 'checks.yml',
        'checks-junit': 'checks.xml',
        'poll-interval': '100ms',
        timeout: '20s',
      },
      { env: { GITHUB_WORKSPACE: dir, RUNNER_TEMP: temp, ZENDESK_TOKEN: MANIFEST_SECRET } },
    );
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.outputs.report)).toMatchObject([{ clawId: 'c1', outcome: 'failed' }]);
    for (const [sink, text] of Object.entries({
      log: visibleLog(run),
      summary: run.summary,
      outputs: JSON.stringify(run.outputs),
      junit: readFileSync(join(dir, 'checks.xml'), 'utf8'),
      markdown: readFileSync(run.outputs['plan-file'], 'utf8'),
      json: readFileSync(run.outputs['plan-json'], 'utf8'),
    })) {
      expect({ sink, leaks: leaks(text) }).toEqual({ sink, leaks: [] });
    }
  });

  it('a base-url or a judge url with a password is refused without echoing it', async () => {
    const s = await start();
    const password = 'hunter2-Pw9Xq';
    const base = await runAction({
      'api-key': KEY,
      'base-url': `https://deploy:${password}@api.example.com/v1`,
      'claw-id': 'c1',
    });
    expect(base.exitCode).toBe(1);
    expect(base.errors).toEqual([
      expect.stringMatching(/^Input 'base-url' is "https:\/\/\*\*\*@api\.example\.com\/v1": expected an https URL/),
    ]);
    const dir = folder({
      'checks.yml': `judge:
  url: https://grader:${password}@judge.example.com/v1
  model: m
checks:
  - {name: a, send: b, assert: [{type: llm-rubric, value: c}]}
`,
    });
    const judged = await runAction(
      { 'api-key': KEY, 'base-url': `${s.url}/v1`, 'claw-id': 'c1', command: 'check', checks: 'checks.yml' },
      { env: { GITHUB_WORKSPACE: dir } },
    );
    expect(judged.exitCode).toBe(1);
    expect(judged.errors).toEqual([
      expect.stringMatching(/^checks\.yml, line 2: 'url' is "https:\/\/\*\*\*@judge\.example\.com\/v1"/),
    ]);
    for (const run of [base, judged]) {
      expect(run.stdout + run.stderr + run.summary).not.toContain(password);
    }
    expect(s.requests).toHaveLength(0);
  });
});
