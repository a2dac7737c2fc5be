// The preview's pure parts: the comment's state read back as untrusted input, the naming a sweep
// relies on, production's config merged with the manifest, and the comparison of checks.
import { describe, expect, it } from 'vitest';
import type { CheckEntry } from '../checks/result.js';
import { parseManifest } from '../manifest/manifest.js';
import { compareChecks } from './compare.js';
import { previewConfig } from './config.js';
import { sealKey, sealedMarker } from '../seal.js';
import { decodeState, encodeState as encode, previewId, previewOf } from './state.js';
import type { PreviewState } from './state.js';

const declared = ['claw-support-bot', 'claw-sales'];
const key = sealKey('ams-test-key-0123456789', 'octo/repo');
const encodeState = (state: PreviewState) => encode(state, key);

describe('the hidden state', () => {
  it('round-trips, and cannot end the HTML comment whatever it holds', () => {
    const state = { pr: 7, head: 'abc123', previews: [{ claw: 'claw-support-bot', id: 'x-->y', githubDeployment: 5 }] };
    const line = encodeState(state);
    expect(line.indexOf('-->')).toBe(line.length - 3);
    // An id holding '-->' stays inside the encoding, and reads back as written.
    expect(decodeState(`text\n${line}\n`, { pr: 7, declared }, key)).toEqual({ state });
  });

  it.each<[string, string, RegExp]>([
    ['another pull request', encodeState({ pr: 8, head: '', previews: [] }), /for pull request 8, not #7/],
    [
      'a Claw that is not an id',
      encodeState({ pr: 7, head: '', previews: [{ claw: '../evil', id: 'x' }] }),
      /no usable Claw/,
    ],
    [
      'a production id as a preview',
      encodeState({ pr: 7, head: '', previews: [{ claw: 'claw-sales', id: 'claw-support-bot' }] }),
      /unusable preview id/,
    ],
    [
      'a path as an id',
      encodeState({ pr: 7, head: '', previews: [{ claw: 'claw-sales', id: '../claws' }] }),
      /unusable preview id/,
    ],
    ['not sealed', '<!-- claw-deploy preview-state: {"v":1} -->', /not sealed/],
    [
      'an unsealed state of an older version',
      `<!-- claw-deploy preview-state: ${Buffer.from('{"v":1,"pr":7,"head":"","previews":[]}').toString('base64url')} -->`,
      /not sealed/,
    ],
    [
      'a state sealed with another key (another repository)',
      encode({ pr: 7, head: '', previews: [] }, sealKey('ams-test-key-0123456789', 'octo/other')),
      /seal does not match/,
    ],
    [
      'a state edited to name a production Claw, its seal kept',
      (() => {
        const line = encodeState({ pr: 7, head: '', previews: [{ claw: 'claw-sales', id: 'claw-sales-pr-7' }] });
        const forged = Buffer.from(
          JSON.stringify({ v: 1, pr: 7, head: '', previews: [{ claw: 'claw-support-bot', id: 'claw-billing' }] }),
        ).toString('base64url');
        return line.replace(/preview-state: [^.]+\./, `preview-state: ${forged}.`);
      })(),
      /seal does not match/,
    ],
    [
      'a sealed state of another kind (an incident) pasted in',
      sealedMarker('incident', { v: 1, pr: 7, head: '', previews: [] }, key).replace('incident:', 'preview-state:'),
      /seal does not match/,
    ],
  ])('refuses %s, never trusting it', (_, body, problem) => {
    const read = decodeState(body, { pr: 7, declared }, key);
    expect(read.state).toBeUndefined();
    expect(read.problem).toMatch(problem);
  });

  it('keeps the record of a Claw the manifest no longer declares: the seal proves the preview is ours', () => {
    const state = { pr: 7, head: '', previews: [{ claw: 'claw-renamed', id: 'claw-renamed-pr-7' }] };
    expect(decodeState(encodeState(state), { pr: 7, declared }, key)).toEqual({ state });
  });

  it('names previews <claw>-pr-<n>, and knows them only for declared Claws', () => {
    expect(previewId('claw-sales', 12)).toBe('claw-sales-pr-12');
    expect(previewOf('claw-sales-pr-12', declared)).toEqual({ claw: 'claw-sales', pr: 12 });
    expect(previewOf('claw-sales-pr-12-2', declared)).toEqual({ claw: 'claw-sales', pr: 12 });
    expect(previewOf('claw-other-pr-12', declared)).toBeUndefined();
    expect(previewOf('claw-sales-pr-x', declared)).toBeUndefined();
    expect(previewOf('claw-sales', declared)).toBeUndefined();
  });
});

describe('previewConfig', () => {
  it("is production's config with the declaration merged in; managed fields and unset secrets left out", () => {
    const manifest = parseManifest(
      'claws.yml',
      'claws:\n  c1:\n    config:\n      personality: {tone: friendly, legacy: null}\n      connections: {zendesk: {token: {env: UNSET_TOKEN}}}\n',
      {},
    );
    const production = {
      id: 'c1',
      status: 'live',
      deployment: { id: 'dep_1' },
      name: 'Support',
      personality: { tone: 'formal', legacy: 'x', language: 'en' },
      url: 'https://x',
    };
    const { config, unset } = previewConfig(production, manifest.claws[0].config);
    expect(config).toEqual({
      name: 'Support',
      personality: { tone: 'friendly', language: 'en' },
      connections: { zendesk: {} },
    });
    expect(unset).toEqual(['connections.zendesk.token']);
  });
});

describe('compareChecks', () => {
  const entry = (clawId: string, check: string, passed: boolean, errorOnly = false): CheckEntry => ({
    check,
    clawId,
    passed,
    passes: passed ? 1 : 0,
    attempts: 1,
    repeat: 1,
    minPass: 1,
    failures: passed || errorOnly ? 0 : 1,
    errors: errorOnly ? 1 : 0,
    replies: [],
  });
  it('marks regression, fixed, unchanged and error', () => {
    const rows = compareChecks(
      {
        passed: false,
        entries: [
          entry('p', 'a', true),
          entry('v', 'a', false),
          entry('p', 'b', false),
          entry('v', 'b', true),
          entry('p', 'c', true),
          entry('v', 'c', true),
          entry('p', 'd', true),
          entry('v', 'd', false, true),
        ],
      },
      'p',
      'v',
    );
    expect(rows.map((r) => [r.check, r.verdict])).toEqual([
      ['a', 'regression'],
      ['b', 'fixed'],
      ['c', 'unchanged'],
      ['d', 'error'],
    ]);
  });
});
