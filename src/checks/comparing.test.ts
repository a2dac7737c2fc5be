// The checks runner feeding a comparison: every repeat of every check made (no early stop), each
// attempt a sample (pass, fail or unjudged, latency, the judge's score and identity), the attempts
// a run never made counted as unjudged, and the judge asked afresh so one cached verdict never
// stands for n attempts. Against the simulator and the fake judge, as the gate's own tests run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, setup } from '../../test/support/setup.ts';
import { FakeJudge, verdict } from '../../test/sim/judge.ts';
import { DEMO_KEY } from '../../test/sim/server.ts';
import { sealKey } from '../shared/seal.js';
import { statusClassifier } from '../shared/status.js';
import { judgePanel } from '../core/wiring.js';
import { runChecks } from './gate.js';
import { VerdictCache } from './judge-cache.js';
import { parseChecks } from './load.js';

let h: Harness | undefined;
let judge: FakeJudge | undefined;
afterEach(async () => {
  await h?.sim.stop();
  await judge?.stop();
  h = judge = undefined;
});

const classify = statusClassifier();

describe('runChecks for a comparison', () => {
  it('makes every repeat though min-pass is reached, and keeps each attempt as a sample', async () => {
    h = await setup();
    h.sim.addClaw('c1', { chat: { mode: 'sync', respond: (_m, n) => (n % 2 === 1 ? 'yes' : 'no') } });
    const suite = parseChecks(
      'checks.yml',
      `checks:\n  - name: q1\n    send: q1\n    repeat: 4\n    min-pass: 1\n    assert: [{type: equals, value: 'yes'}]\n`,
    );
    const plain = await runChecks(h.deps, suite, ['c1'], { pollIntervalMs: 1000, classify });
    // Without comparing: the first attempt passes and the verdict is certain.
    expect(plain.entries[0]).toMatchObject({ passed: true, attempts: 1 });
    expect(plain.entries[0].samples).toBeUndefined();
    const compared = await runChecks(h.deps, suite, ['c1'], { pollIntervalMs: 1000, classify, comparing: true });
    expect(compared.entries[0]).toMatchObject({ passed: true, attempts: 4, passes: 2, failures: 2 });
    const samples = compared.entries[0].samples!;
    // The Claw's messages 2 to 5 (the plain run sent the first): fail, pass, fail, pass.
    expect(samples.map((s) => s.outcome)).toEqual(['fail', 'pass', 'fail', 'pass']);
    for (const s of samples) expect(s.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('counts the attempts a failing chat never made as unjudged, never as passes', async () => {
    h = await setup();
    h.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'yes' } });
    const suite = parseChecks(
      'checks.yml',
      `checks:\n  - name: q1\n    send: q1\n    repeat: 3\n    assert: [{type: equals, value: 'yes'}]\n`,
    );
    // Another Claw's id: the chat answers 404 at once, the Claw's chat is failing.
    const result = await runChecks(h.deps, suite, ['c9'], { pollIntervalMs: 1000, classify, comparing: true });
    expect(result.entries[0].samples).toEqual([
      { outcome: 'unjudged' },
      { outcome: 'unjudged' },
      { outcome: 'unjudged' },
    ]);
  });

  it('asks the judge afresh for each attempt, though the cache holds the verdict; records the judge', async () => {
    judge = new FakeJudge({ answer: () => verdict({ reason: 'Asks for it.', pass: true, score: 0.75 }) });
    await judge.start();
    h = await setup();
    h.sim.addClaw('c1', { chat: { mode: 'sync', reply: 'Please share your order number.' } });
    const suite = parseChecks(
      'checks.yml',
      `judge:\n  url: ${judge.url}\n  model: judge-model-2025-01-01\n  api-key-env: JUDGE_KEY\n  timeout: 5s\nchecks:\n  - name: asks\n    send: I want a refund\n    repeat: 3\n    assert:\n      - {type: llm-rubric, value: Asks for the order number}\n`,
      { JUDGE_KEY: 'sk-judge-secret-0123456789abcdef' },
    );
    const dir = mkdtempSync(join(tmpdir(), 'judge-cache-'));
    const cache = await VerdictCache.load('cache.json', dir, () => undefined, sealKey(DEMO_KEY, 'octo/claws'));
    const panel = judgePanel(h.deps, { pollIntervalMs: 1000, successStatuses: [], failureStatuses: [] }, cache);
    try {
      const options = { pollIntervalMs: 1000, classify, judgeFor: panel.judgeFor };
      // A plain run: three identical replies, one call, two verdicts from the cache.
      const plain = await runChecks(h.deps, suite, ['c1'], options);
      expect(plain.entries[0].judge).toMatchObject({ calls: 1, cacheHits: 2 });
      const compared = await runChecks(h.deps, suite, ['c1'], { ...options, comparing: true });
      expect(compared.entries[0].judge).toMatchObject({ calls: 3, cacheHits: 0 });
      const samples = compared.entries[0].samples!;
      expect(samples).toHaveLength(3);
      for (const s of samples) {
        expect(s).toMatchObject({ outcome: 'pass', score: 0.75 });
        expect(s.judge!.promptHash).toMatch(/^[0-9a-f]{16}$/);
        expect(s.judge!.model).toBe('judge-model-2025-01-01');
      }
      // One grading prompt, one hash: another rubric would be another judge.
      expect(new Set(samples.map((s) => s.judge!.promptHash)).size).toBe(1);
    } finally {
      panel.close();
    }
  });
});
