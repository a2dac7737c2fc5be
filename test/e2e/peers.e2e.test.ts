// A peer that answers 429 and says "now" (Retry-After: 0, or a date already past), over and over:
// a judge behind a broken proxy, a misbehaving service. Obeying it literally meant a tight loop of
// requests (hundreds a second) and a warning each, until the deadline. Run through dist/index.js.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeJudge } from '../sim/judge.ts';
import { runAction } from './harness.ts';
import { inputsFor, judgePerTest, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();
const startJudge = judgePerTest();
let judge: FakeJudge | undefined;

describe('a peer that keeps saying 429, retry now', () => {
  it.each(['0', 'Wed, 21 Oct 2015 07:28:00 GMT'])(
    'a judge answering 429 with Retry-After %j is asked again later each time, not hundreds of times',
    async (retryAfter) => {
      const s = await start();
      s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello' } });
      judge = await startJudge({ answer: () => ({ status: 429, headers: { 'retry-after': retryAfter } }) });
      const dir = mkdtempSync(join(tmpdir(), 'claw-peers-'));
      writeFileSync(
        join(dir, 'checks.yml'),
        `judge: {url: "${judge.url}", model: m}\ndefaults: {timeout: 4s}\nchecks:\n  - {name: a, send: hi, assert: [{type: llm-rubric, value: polite}]}\n`,
      );
      const run = await runAction(inputsFor(s, { command: 'check', checks: 'checks.yml' }), {
        env: { GITHUB_WORKSPACE: dir },
      });
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toContain('judge unavailable');
      // 4 s of a check: 1 + 1 s + 2 s… at most a handful of asks (before: about 250 a second).
      expect(judge.completions().length).toBeLessThanOrEqual(6);
      expect(run.warnings.length).toBeLessThanOrEqual(6);
    },
  );

  it('the service answering every poll 429 with Retry-After: 0 is polled with a growing wait, and the deploy ends at its timeout', async () => {
    const s = await start({ speed: 1 });
    s.addClaw('c1', { plan: [['pending', 60_000], ['live']] });
    s.fault({ kind: '429', method: 'GET', path: /^\/deployments\/dep_/, times: 1_000_000, retryAfter: '0' });
    const run = await runAction(inputsFor(s, { timeout: '4s' }));
    expect(run.outputs.outcome).toBe('timed-out');
    const polls = s.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/deployments/dep_'));
    expect(polls.length).toBeLessThanOrEqual(8);
  });
});
