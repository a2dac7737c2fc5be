// Settings into what the commands take: the failure line, the probe as a check, apply's options.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors.js';
import { parseChecks } from '../checks/load.js';
import { InputError } from '../shared/errors.js';
import { definitionOf, readSettings, suiteOf } from './run.js';
import { readActionYml } from '../../test/e2e/harness.ts';
import { applyOptions } from '../commands/manifest.js';
import { describeFailure } from './wiring.js';
import type { CheckSuite } from '../checks/check.js';
import type { Settings } from '../contract/settings.js';

/** The checks file as the run hands it to the command: health's definition adds its probe. */
const withProbe = (suite: CheckSuite, settings: Settings) => suiteOf(definitionOf(settings.command), suite, settings);

/** Settings as the runner would read them: action.yml's defaults, then these inputs. */
const DEFAULTS = Object.fromEntries(
  Object.entries(readActionYml().inputs).map(([name, spec]) => [name, spec.default ?? '']),
);
const settings = (inputs: Record<string, string>) =>
  readSettings(
    (name) => ({ ...DEFAULTS, 'api-key': 'k', 'base-url': 'https://api.example.com', ...inputs })[name] ?? '',
  );

describe('describeFailure', () => {
  it('says what was being done, with which value, around a bare runtime text', () => {
    expect(describeFailure(settings({ 'claw-id': 'c1' }), new URIError('URI malformed'))).toBe(
      'The deploy of Claw c1 stopped on an unexpected error: URI malformed',
    );
    expect(describeFailure(settings({ command: 'wait', 'deployment-id': 'd9' }), new TypeError('x is undefined'))).toBe(
      'The wait of deployment d9 stopped on an unexpected error: x is undefined',
    );
  });

  it('leaves the service’s explained errors and bad input as they are', () => {
    const s = settings({ 'claw-id': 'c1' });
    expect(describeFailure(s, new ApiError('The API key was refused (401 unauthorized).', 'unauthorized'))).toBe(
      'The API key was refused (401 unauthorized).',
    );
    expect(describeFailure(s, new InputError("Input 'x' is bad."))).toBe("Input 'x' is bad.");
  });
});

describe('withProbe', () => {
  const suite = parseChecks('c.yml', 'checks: [{name: greets, send: hi}]');

  it('adds the probe as one more check for health', () => {
    const health = settings({ command: 'health', 'claw-id': 'c1', 'probe-message': 'ping', 'probe-expect': 'pong' });
    const checks = withProbe(suite, health).checks;
    expect(checks.map((c) => c.name)).toEqual(['greets', 'probe']);
    expect(checks[1].turns[0].send).toBe('ping');
    // probe-expect stays case-insensitive, as it always was.
    expect(checks[1].turns[0].assert[0]).toMatchObject({ type: 'regex' });
    expect((checks[1].turns[0].assert[0] as { pattern: { test(t: string): boolean } }).pattern.test('PONG')).toBe(true);
  });

  it('leaves the suite alone for other commands or without a probe', () => {
    expect(withProbe(suite, settings({ 'claw-id': 'c1', 'probe-message': 'ping' }))).toBe(suite);
    expect(withProbe(suite, settings({ command: 'health', 'claw-id': 'c1' }))).toBe(suite);
  });
});

describe('applyOptions', () => {
  it('carries the apply inputs and the fleet path’s', () => {
    const apply = settings({
      command: 'apply',
      manifest: 'claws.yml',
      'plan-id': '0123456789abcdef',
      waves: '1, 50%',
      bake: '1m',
    });
    expect(applyOptions(apply)).toMatchObject({
      planId: '0123456789abcdef',
      deployChanged: true,
      rewriteSecrets: false,
      fleet: { waves: [{ count: 1 }, { percent: 50 }], bakeMs: 60_000 },
    });
  });
});
