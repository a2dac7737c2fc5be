// The preview's pure parts: the comment's state read back as untrusted input, the naming a sweep
// relies on, production's config merged with the manifest, and the comparison of checks.
import { describe, expect, it } from 'vitest';
import type { CheckEntry } from '../checks/result.js';
import { parseManifest } from '../manifest/manifest.js';
import { compareChecks } from './compare.js';
import { previewConfig } from './config.js';
import { sealKey, sealedMarker } from '../shared/seal.js';
import {
  MAX_PREVIEW_RECORDS,
  decodeState,
  encodeState as encode,
  previewId,
  previewOf,
  registerProblem,
  skippedWarning,
} from './state.js';
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

  // Each record alone: one that fails costs only itself (named in one warning), the others are kept.
  it.each<[string, { claw: string; id: string }, RegExp]>([
    [
      'a Claw that is not an id',
      { claw: '../evil', id: 'x' },
      /record 2 \(Claw "\.\.\/evil", preview "x"\) names no usable Claw: skipped/,
    ],
    ['a path as an id', { claw: 'claw-sales', id: '../claws' }, /record 2 .* names no usable preview id: skipped/],
    [
      'a production id as a preview',
      { claw: 'claw-sales', id: 'claw-support-bot' },
      /record 2 .*: the manifest declares claw-support-bot as a Claw of its own, so it is left alone/,
    ],
  ])('skips %s and keeps the other records', (_, bad, line) => {
    const good = { claw: 'claw-sales', id: 'claw-sales-pr-7' };
    const read = decodeState(encodeState({ pr: 7, head: '', previews: [good, bad, good] }), { pr: 7, declared }, key);
    expect(read.state?.previews).toEqual([good]);
    expect(read.skipped).toEqual([expect.stringMatching(line), expect.stringMatching(/^record 3 .*repeats a preview/)]);
    expect(skippedWarning(read, 7)).toMatch(
      /^The preview comment's hidden state of #7: record 2 .*The other 1 record\(s\) are kept\.$/,
    );
    // A production id is held (kept in the register, never acted on); a broken record is dropped.
    expect(read.held ?? []).toEqual(bad.id === 'claw-support-bot' ? [bad] : []);
  });

  it('writes a register only when it reads back whole: at the cap it does, past it nothing is written', () => {
    const records = (n: number, idLength = 20) =>
      Array.from({ length: n }, (_, i) => ({ claw: `${'c'.repeat(idLength)}${i}`, id: `${'p'.repeat(idLength)}${i}` }));
    const at = { pr: 7, head: 'abc', previews: records(MAX_PREVIEW_RECORDS) };
    expect(registerProblem(at)).toBeUndefined();
    expect(decodeState(encodeState(at), { pr: 7, declared }, key).state?.previews).toHaveLength(MAX_PREVIEW_RECORDS);
    const past = { ...at, previews: records(MAX_PREVIEW_RECORDS + 1) };
    expect(registerProblem(past)).toMatch(/holds at most 100, and this one would hold 101/);
    expect(() => encodeState(past)).toThrow(/the register of previews was not written/);
    // Long ids reach the seal's payload before the count: the largest that fits reads back whole.
    let n = 1;
    while (!registerProblem({ ...at, previews: records(n + 1, 190) })) n++;
    const widest = { ...at, previews: records(n, 190) };
    expect(n).toBeLessThan(MAX_PREVIEW_RECORDS);
    expect(decodeState(encodeState(widest), { pr: 7, declared }, key).state?.previews).toHaveLength(n);
    expect(registerProblem({ ...at, previews: records(n + 1, 190) })).toMatch(/would pass 40,000 sealed characters/);
    expect(() => encodeState({ ...at, previews: records(n + 1, 190) })).toThrow(/not written/);
  });

  it('reads every record of a register an older version wrote past 100 (its close can remove them all)', () => {
    const previews = Array.from({ length: 101 }, (_, i) => ({ claw: 'claw-sales', id: `claw-sales-${i}-pr-7` }));
    const line = sealedMarker('preview-state', { v: 1, pr: 7, head: '', previews }, key);
    expect(decodeState(line, { pr: 7, declared }, key).state?.previews).toHaveLength(101);
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
