// The saved run's validity rule and its reader: a run stands for the live version only when the
// checks, the judge, the live deployment and the configuration are those it was run on, and it is
// young enough; its text is refused whole at the first field the action would not write.
import { describe, expect, it } from 'vitest';
import { parseChecks } from './load.js';
import {
  MAX_SAVED_RUN_BYTES,
  SAVED_RUN_MAX_AGE_MS,
  type SavedGateRun,
  configHash,
  parseSavedRun,
  savedRunJson,
  savedRunProblem,
  suiteHashes,
} from './saved-run.js';

const NOW = Date.parse('2026-12-02T10:00:00Z');
const FILE = (repeat: number, value = 'PASS:') =>
  `defaults:\n  repeat: ${repeat}\nchecks:\n  - name: q1\n    send: q1\n    assert:\n      - type: starts-with\n        value: '${value}'\n`;
const suite = parseChecks('checks.yml', FILE(3));
const hashes = suiteHashes(suite, 'c1');
const config = configHash({ id: 'c1', name: 'bot', model: 'm1', status: 'online', deploymentStatus: 'live' });

function run(over: Partial<SavedGateRun> = {}): SavedGateRun {
  return {
    claw: 'c1',
    deployment: 'dep_2',
    at: NOW - 3600_000,
    ...hashes,
    config,
    entries: parseSavedRunEntries(),
    ...over,
  };
}
function parseSavedRunEntries() {
  return [
    {
      check: 'q1',
      clawId: 'c1',
      passed: true,
      passes: 2,
      attempts: 2,
      repeat: 2,
      minPass: 2,
      failures: 0,
      errors: 0,
      replies: [],
      samples: [
        { outcome: 'pass' as const, latencyMs: 810 },
        { outcome: 'pass' as const, latencyMs: 1200, latencyLowMs: 900 },
      ],
    },
  ];
}
const live = { claw: 'c1', deployment: 'dep_2', ...hashes, config };

describe('the validity rule of a saved run', () => {
  it('uses a run of the live deployment, with the same checks, judge and configuration, young enough', () => {
    expect(savedRunProblem(run(), live, NOW)).toBeUndefined();
    expect(savedRunProblem(run({ at: NOW - SAVED_RUN_MAX_AGE_MS + 1000 }), live, NOW)).toBeUndefined();
  });

  it('refuses each change that makes it no evidence of the live version, saying which', () => {
    const changed = suiteHashes(parseChecks('checks.yml', FILE(3, 'OK:')), 'c1');
    expect(savedRunProblem(run(), { ...live, checks: changed.checks }, NOW)).toBe(
      'the checks changed since it was run',
    );
    expect(savedRunProblem(run(), { ...live, judges: 'f'.repeat(64) }, NOW)).toBe('the judge changed since it was run');
    expect(savedRunProblem(run(), { ...live, deployment: 'dep_3' }, NOW)).toBe(
      "it was run on deployment dep_2, and the Claw's live one is dep_3",
    );
    expect(savedRunProblem(run(), { ...live, config: configHash({ model: 'm2' }) }, NOW)).toBe(
      "the Claw's configuration changed since it was run",
    );
    expect(savedRunProblem(run({ at: NOW - 8 * 86_400_000 }), live, NOW)).toBe(
      'it is 8 days old, past the 7 days a saved run is used for',
    );
    expect(savedRunProblem(run({ at: NOW + 3600_000 }), live, NOW)).toBe('its time is in the future');
    expect(savedRunProblem(run({ claw: 'c2' }), live, NOW)).toBe('it is of Claw c2, not c1');
    expect(savedRunProblem(run({ entries: [] }), live, NOW)).toBe('it holds no attempts');
  });

  it('hashes what an attempt means: not how often a check is asked', () => {
    expect(suiteHashes(parseChecks('checks.yml', FILE(5)), 'c1')).toEqual(hashes);
    expect(suiteHashes(parseChecks('checks.yml', FILE(3, 'OK:')), 'c1').checks).not.toBe(hashes.checks);
  });

  it("hashes the Claw's configuration without its status, its deployment's or the order of its fields", () => {
    expect(configHash({ model: 'm1', status: 'offline', deploymentStatus: 'deploying', id: 'c1', name: 'bot' })).toBe(
      configHash({ name: 'bot', id: 'c1', model: 'm1', status: 'online', currentDeploymentId: 'dep_9' }),
    );
    expect(configHash({ data: { model: 'm1', deployment: { id: 'd1' } } })).toBe(
      configHash({ data: { model: 'm1', deployment: { id: 'd2' } } }),
    );
    expect(configHash({ model: 'm1' })).not.toBe(configHash({ model: 'm2' }));
  });

  it("counts a field named like a status or an address inside the configuration: a connection's url is what the Claw calls", () => {
    const claw = (url: string, status = 'active') => ({
      id: 'c1',
      status: 'online',
      connections: { zendesk: { url, status } },
      tools: [{ name: 'search', url }],
    });
    expect(configHash(claw('https://a.example'))).not.toBe(configHash(claw('https://b.example')));
    expect(configHash(claw('https://a.example'))).not.toBe(configHash(claw('https://a.example', 'disabled')));
    expect(configHash({ data: claw('https://a.example') })).not.toBe(configHash({ data: claw('https://b.example') }));
    // The Claw's own volatile fields, and its current deployment's object, stay out at any wrapping.
    expect(
      configHash({ ...claw('https://a.example'), status: 'x', currentDeployment: { id: 'd2', status: 'y' } }),
    ).toBe(configHash(claw('https://a.example')));
  });
});

describe('reading a saved run (untrusted text)', () => {
  it('reads back what the action writes: each attempt and how its time was measured', () => {
    const back = parseSavedRun(savedRunJson(run()));
    expect(back).toMatchObject({ claw: 'c1', deployment: 'dep_2', at: NOW - 3600_000, ...hashes, config });
    expect(typeof back !== 'string' && back.entries[0].samples).toEqual(run().entries[0].samples);
  });

  it('refuses the whole run at the first field the action would not write', () => {
    const good = JSON.parse(savedRunJson(run())) as Record<string, unknown>;
    const bad = (change: Record<string, unknown>) => parseSavedRun(JSON.stringify({ ...good, ...change }));
    expect(parseSavedRun('{"version":1')).toBe('it is not JSON');
    expect(bad({ version: 2 })).toBe('it is not a saved run this version reads');
    expect(bad({ checks: 'not-a-hash' })).toBe('no usable hash');
    expect(bad({ deployment: '../x' })).toBe('no usable deployment id');
    expect(bad({ at: 'yesterday' })).toBe('no usable time');
    const sample = { check: 'q1', samples: [{ outcome: 'pass' }] };
    expect(bad({ entries: [sample, sample] })).toBe('entries.1.check: expected a check named once');
    expect(bad({ entries: [{ check: 'q1', samples: [] }] })).toBe('entries.0.samples: expected 1 to 100 attempts');
    expect(bad({ entries: [{ check: 'q1', samples: [{ outcome: 'passed' }] }] })).toBe(
      'entries.0.samples.0.outcome: expected pass, fail or unjudged',
    );
    expect(bad({ entries: [{ check: 'q1', samples: [null] }] })).toMatch(
      /^entries\.0\.samples\.0: expected an attempt/,
    );
    expect(bad({ entries: [{ check: 'q1', samples: [{ outcome: 'pass', latencyMs: 5, latencyLowMs: 9 }] }] })).toBe(
      'entries.0.samples.0.latencyLowMs: expected milliseconds no later than latencyMs, or nothing',
    );
    expect(parseSavedRun(' '.repeat(MAX_SAVED_RUN_BYTES + 1))).toBe('it is larger than the action writes');
  });
});
