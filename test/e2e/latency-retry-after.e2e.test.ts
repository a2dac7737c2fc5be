// The latency a check measures is the Claw's, whatever the action waited, through dist/index.js: a
// 503 with Retry-After on the message is the action's wait, not the Claw's latency.
// (latency.e2e.test.ts holds the rate limit's wait and a really slow Claw.)
import { describe, expect, it } from 'vitest';
import { checkout, on } from './fork-files.ts';
import { runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

describe("latency is the Claw's, whatever the action waited", () => {
  it("a 503 with Retry-After: 2 on the message is the action's wait, not the Claw's latency", async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Thursday' } });
    s.fault({ kind: '503', method: 'POST', path: '/chat/', times: 1, retryAfter: '2' });
    const dir = checkout({
      'c.yml': 'checks:\n  - {name: quick, send: hi, assert: [{type: latency, threshold: 1500ms}]}\n',
    });
    const run = await runAction(inputsFor(s, { command: 'check', checks: 'c.yml', timeout: '30s' }), on(dir, 'push'));
    // The action did wait for the Retry-After before sending again.
    expect(run.stdout).toContain('503 from the service; retry 1 in 2s');
    expect(run.exitCode, run.stdout).toBe(0);
    const [entry] = JSON.parse(run.outputs['checks-report']) as { passed: boolean; latencyMs: number }[];
    expect(entry.passed).toBe(true);
    expect(entry.latencyMs).toBeLessThan(2000);
  });
});
