import { describe, expect, it } from 'vitest';
import { InputError } from '../shared/errors.js';
import { parseBaseUrl } from './settings.js';
import { readSettings } from '../core/run.js';

// The defaults action.yml gives, as the runner would pass them.
const DEFAULTS: Record<string, string> = {
  command: 'deploy',
  'api-key': 'key-123456',
  'base-url': 'https://api.example.com/v1',
  'claw-id': 'claw-1',
  wait: 'true',
  timeout: '30m',
  'poll-interval': '5s',
  'auto-rollback': 'false',
  'rollback-on': 'failed,timed-out',
  'request-timeout': '30s',
  'auth-scheme': 'Bearer',
  'fail-on-unhealthy': 'true',
  waves: '',
  bake: '0s',
  'max-failures': '0',
};

function settings(overrides: Record<string, string> = {}) {
  const inputs = { ...DEFAULTS, ...overrides };
  return readSettings((name) => inputs[name] ?? '');
}

function errorOf(overrides: Record<string, string>): string {
  try {
    settings(overrides);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as Error).message;
  }
  throw new Error('expected an InputError');
}

describe('readSettings', () => {
  it('reads the defaults into one typed object', () => {
    const s = settings();
    expect(s).toMatchObject({
      command: 'deploy',
      baseUrl: 'https://api.example.com',
      clawId: 'claw-1',
      wait: true,
      timeoutMs: 1_800_000,
      pollIntervalMs: 5000,
      autoRollback: false,
      rollbackOn: ['failed', 'timed-out'],
      requestTimeoutMs: 30_000,
      authScheme: 'Bearer',
      payload: {},
      strategy: '',
    });
  });

  it('names the input, shows the value and says what was expected', () => {
    expect(errorOf({ timeout: '10 minutes' })).toBe(
      `Input 'timeout' is "10 minutes": expected a duration such as 90s, 15m, 1h30m, 500ms, or a number of seconds.`,
    );
    expect(errorOf({ wait: 'yes' })).toBe(`Input 'wait' is "yes": expected true or false.`);
    expect(errorOf({ command: 'ship' })).toBe(
      `Input 'command' is "ship": expected one of deploy, wait, rollback, health, check, plan, apply, drift, preview, compare, deployments.`,
    );
    expect(errorOf({ 'rollback-on': 'failed,exploded' })).toContain('Input \'rollback-on\' is "failed,exploded"');
  });

  it('keeps every message on one line', () => {
    expect(errorOf({ command: 'rollback', 'claw-id': 'a\nb' })).not.toContain('\n');
  });

  it('never shows the key', () => {
    const message = errorOf({ 'api-key': 'sec ret-value' });
    expect(message).toContain("Input 'api-key'");
    expect(message).not.toContain('sec ret-value');
    expect(errorOf({ 'api-key': '' })).toContain("Input 'api-key' is empty");
  });

  it.each([
    ['claw-id', 'has space'],
    ['claw-id', 'a/b'],
    ['claw-id', 'x'.repeat(201)],
    ['claw-id', 'tab\there'],
    ['deployment-id', 'dep/1'],
  ])('rejects identifier %s=%j', (input, value) => {
    expect(errorOf({ [input]: value })).toContain(`Input '${input}'`);
  });

  it('accepts a 200-character identifier and unusual but safe characters', () => {
    expect(settings({ 'claw-id': 'x'.repeat(200) }).clawId).toHaveLength(200);
    expect(settings({ 'claw-id': 'claw:prod.eu-1@v2' }).clawId).toBe('claw:prod.eu-1@v2');
  });

  it('requires a payload that is a JSON object', () => {
    expect(settings({ payload: '{"version":"1.2.3","replicas":3}' }).payload).toEqual({
      version: '1.2.3',
      replicas: 3,
    });
    expect(errorOf({ payload: '[1,2]' })).toContain('a JSON object');
    expect(errorOf({ payload: '{oops' })).toContain('Input \'payload\' is "{oops"');
    expect(errorOf({ payload: '"text"' })).toContain('not an array or a single value');
  });

  it('asks each command for what it needs', () => {
    expect(errorOf({ 'claw-id': '' })).toContain("Input 'claw-id'");
    expect(errorOf({ command: 'wait' })).toContain("Input 'deployment-id'");
    expect(settings({ command: 'wait', 'deployment-id': 'dep_1' }).deploymentId).toBe('dep_1');
    expect(errorOf({ command: 'rollback', 'claw-id': '' })).toContain("Input 'deployment-id'");
    expect(settings({ command: 'rollback' }).clawId).toBe('claw-1');
  });

  it('reads health targets: ids, or * for all', () => {
    expect(settings({ command: 'health', 'claw-id': 'a, b\nc,a' }).targets).toEqual({
      all: false,
      ids: ['a', 'b', 'c'],
    });
    expect(settings({ command: 'health', 'claw-id': '*' }).targets).toEqual({ all: true, ids: [] });
    expect(errorOf({ command: 'health', 'claw-id': '*,a' })).toContain("either '*' alone");
    expect(errorOf({ command: 'health', 'claw-id': '' })).toContain("Input 'claw-id'");
  });

  it('reads a fleet: several Claws or *, waves, bake and max-failures', () => {
    expect(settings()).toMatchObject({
      fleet: false,
      clawId: 'claw-1',
      waves: [],
      bakeMs: 0,
      maxFailures: { count: 0 },
    });
    expect(settings({ 'claw-id': 'a, b', waves: '1, 25%, 100%', bake: '2m', 'max-failures': '10%' })).toMatchObject({
      fleet: true,
      clawId: '',
      targets: { all: false, ids: ['a', 'b'] },
      waves: [{ count: 1 }, { percent: 25 }, { percent: 100 }],
      bakeMs: 120_000,
      maxFailures: { percent: 10 },
    });
    expect(settings({ 'claw-id': '*' })).toMatchObject({ fleet: true, targets: { all: true, ids: [] } });
    expect(settings({ 'claw-id': 'a,a' })).toMatchObject({ fleet: false, clawId: 'a' });
  });

  it.each([
    ['waves', '0', 'Input \'waves\' is "0": expected a positive count of Claws or a percentage such as 1, 25% or 100%'],
    ['waves', '1, 150%', 'Input \'waves\' is "1, 150%"'],
    ['max-failures', '-1', 'Input \'max-failures\' is "-1": expected a count of Claws or a percentage'],
    ['bake', 'soon', 'Input \'bake\' is "soon": expected a duration'],
  ])('refuses %s %j before any request', (input, value, message) => {
    expect(errorOf({ 'claw-id': 'a,b', [input]: value })).toContain(message);
  });

  it('refuses wait: false for a fleet, which waits for each wave', () => {
    expect(errorOf({ 'claw-id': 'a,b', wait: 'false' })).toBe(
      "Input 'wait' is \"false\": expected true when 'claw-id' names several Claws: a rollout waits for each wave.",
    );
  });

  it('rejects zero durations and bad regular expressions', () => {
    expect(errorOf({ 'poll-interval': '0' })).toContain('greater than zero');
    expect(errorOf({ command: 'health', 'probe-message': 'ping', 'probe-expect': '(' })).toContain(
      "Input 'probe-expect'",
    );
    expect(errorOf({ command: 'health', 'probe-expect': 'pong' })).toContain("Input 'probe-message'");
  });

  it('takes extra status words and sub-second intervals', () => {
    const s = settings({
      'success-statuses': 'Shipped, all-good',
      'failure-statuses': 'kaput',
      'poll-interval': '250ms',
    });
    expect(s.successStatuses).toEqual(['Shipped', 'all-good']);
    expect(s.failureStatuses).toEqual(['kaput']);
    expect(s.pollIntervalMs).toBe(250);
  });
});

describe('parseBaseUrl', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com/v1', 'https://api.example.com'],
    ['https://api.example.com/v1/', 'https://api.example.com'],
    ['https://example.com/ams/v1', 'https://example.com/ams'],
    ['http://localhost:8080/v1', 'http://localhost:8080'],
    ['http://127.0.0.1:9/v1', 'http://127.0.0.1:9'],
    ['http://127.8.9.10', 'http://127.8.9.10'],
    ['http://[::1]:3000/', 'http://[::1]:3000'],
  ])('%s → %s', (input, base) => expect(parseBaseUrl(input)).toBe(base));

  it.each([
    'http://api.example.com/v1',
    'http://10.0.0.1/v1',
    'ftp://api.example.com',
    'api.example.com',
    'https://user:pw@api.example.com',
    'https://api.example.com/v1?x=1',
    'http://localhost.evil.com',
  ])('rejects %s', (input) => {
    expect(() => parseBaseUrl(input)).toThrow(/Input 'base-url'/);
  });
});

describe('checks and manifests', () => {
  it('refuses checks that could never run: with wait false, or with a command that runs none', () => {
    expect(() => settings({ checks: 'c.yml', wait: 'false' })).toThrow(
      "Input 'wait' is \"false\": expected true when 'checks' is set: the checks run once the deployment has succeeded.",
    );
    expect(() => settings({ command: 'wait', 'deployment-id': 'd1', checks: 'c.yml' })).toThrow(
      'Input \'checks\' is "c.yml": expected to be set only with the deploy, health, check, apply, preview and compare commands, which run checks.',
    );
    expect(() => settings({ 'checks-junit': 'r.xml' })).toThrow(
      /^Input 'checks-junit' is "r\.xml": expected to be set only with 'checks'/,
    );
    // A report never replaces a file the run reads: the checks, the judge's cache.
    expect(() => settings({ checks: 'c.yml', 'judge-cache': 'j.json', 'checks-output': './j.json' })).toThrow(
      /^Input 'checks-output' is "\.\/j\.json": expected a file other than 'judge-cache' \(the report would replace the judge's cache\)/,
    );
    expect(() => settings({ checks: 'c.yml', 'checks-junit': 'c.yml' })).toThrow(
      /expected a file other than 'checks' \(the report would replace the checks\)/,
    );
  });

  it('needs a manifest for plan, apply and drift, and a plan-id of 16 hex digits for apply only', () => {
    expect(() => settings({ command: 'plan' })).toThrow(
      `Input 'manifest' is "": expected the YAML manifest to plan, such as claws.yml.`,
    );
    expect(() => settings({ manifest: 'claws.yml' })).toThrow(
      /^Input 'manifest' is "claws\.yml": expected to be set only with the plan, apply, drift and preview commands\.$/,
    );
    expect(() => settings({ command: 'apply', manifest: 'claws.yml', 'plan-id': 'abc' })).toThrow(
      /^Input 'plan-id' is "abc": expected the 'plan-id' output of the reviewed plan: 16 hexadecimal digits\.$/,
    );
    expect(() => settings({ command: 'plan', manifest: 'claws.yml', 'plan-id': '0123456789abcdef' })).toThrow(
      /expected to be set only with the apply command/,
    );
    expect(settings({ command: 'apply', manifest: 'claws.yml', 'plan-id': '0123456789abcdef' })).toMatchObject({
      manifest: 'claws.yml',
      planId: '0123456789abcdef',
      deployChanged: true,
      rewriteSecrets: false,
      failOnDrift: true,
      comment: false,
    });
  });

  it('reads comment once: TRUE checks the token as true does', () => {
    for (const comment of ['true', 'TRUE', 'True']) {
      expect(errorOf({ command: 'plan', manifest: 'claws.yml', comment, 'github-token': 'ghs_a b' })).toMatch(
        /'github-token' contains whitespace/,
      );
    }
    expect(
      settings({ command: 'plan', manifest: 'claws.yml', comment: 'FALSE', 'github-token': 'ghs_a b' }),
    ).toMatchObject({
      comment: false,
    });
  });

  it('refuses apply without a reviewed plan unless auto-approve says so, and auto-approve beside a plan-id', () => {
    expect(() => settings({ command: 'apply', manifest: 'claws.yml' })).toThrow(
      /^Input 'plan-id' is "": expected the 'plan-id' output of the reviewed plan \(apply refuses to write an unreviewed plan\), or 'auto-approve: true'/,
    );
    expect(settings({ command: 'apply', manifest: 'claws.yml', 'auto-approve': 'true' })).toMatchObject({
      planId: '',
      autoApprove: true,
    });
    expect(() =>
      settings({ command: 'apply', manifest: 'claws.yml', 'auto-approve': 'true', 'plan-id': '0123456789abcdef' }),
    ).toThrow(/^Input 'auto-approve' is "true": expected false when 'plan-id' names the reviewed plan/);
    expect(() => settings({ 'auto-approve': 'true' })).toThrow(/expected to be set only with the apply command/);
  });

  it('reads health over time: history turned on by incidents and status-page, each for health only', () => {
    const token = { 'github-token': 'ghs_token' };
    expect(() => settings({ command: 'health', 'claw-id': 'c1', incidents: 'true' })).toThrow(
      /^Input 'github-token' is empty: expected a token with 'contents: write'/,
    );
    expect(settings({ command: 'health', 'claw-id': 'c1', incidents: 'true', ...token })).toMatchObject({
      history: 'claw-health',
      incidents: { enabled: true, confirm: 2, recover: 2, reopenWithinMs: 3_600_000, assignees: [], mention: '' },
    });
    expect(
      settings({ command: 'health', 'claw-id': 'c1', 'status-page': 'true', history: 'ops/health', ...token }),
    ).toMatchObject({
      history: 'ops/health',
      statusPage: true,
    });
    expect(settings({ command: 'health', 'claw-id': 'c1' })).toMatchObject({ history: '', statusPage: false });
    expect(() => settings({ command: 'health', 'claw-id': 'c1', history: '../main' })).toThrow(
      /^Input 'history' is "\.\.\/main": expected a branch name such as claw-health\.$/,
    );
    expect(() => settings({ command: 'health', 'claw-id': 'c1', confirm: '0' })).toThrow(
      /^Input 'confirm' is "0": expected a whole number from 1 to 100\.$/,
    );
    expect(() => settings({ command: 'health', 'claw-id': 'c1', assignees: 'octocat, bad user' })).toThrow(
      /^Input 'assignees' is "bad user": expected GitHub user names, comma separated\.$/,
    );
    expect(() => settings({ 'claw-id': 'c1', incidents: 'true' })).toThrow(
      /^Input 'incidents' is "true": expected to be set only with the health command\.$/,
    );
    // deploy and rollback record their deployments on the branch; incidents and the page stay health's.
    expect(settings({ 'claw-id': 'c1', history: 'claw-health', 'github-token': 't' })).toMatchObject({
      history: 'claw-health',
    });
    expect(
      settings({ command: 'rollback', 'claw-id': 'c1', history: 'claw-health', 'github-token': 't' }).history,
    ).toBe('claw-health');
    expect(() => settings({ command: 'check', 'claw-id': 'c1', checks: 'c.yml', history: 'claw-health' })).toThrow(
      /^Input 'history' is "claw-health": expected to be set only with health, deploy, rollback or deployments\.$/,
    );
    expect(() => settings({ 'claw-id': 'c1', 'checks-output': 'out.json' })).toThrow(
      /^Input 'checks-output' is "out\.json": expected to be set only with 'checks'/,
    );
  });
});
