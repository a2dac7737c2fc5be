// The gate's latency is the Claw's, through dist/index.js: with the team's rate-limit window spent
// when the run starts, the action waits for the reset before sending; a Claw that answers in
// milliseconds still passes a 5 s `latency` check and is reported as fast (checks report, JUnit,
// summary, the probe), while a Claw that really takes 6 s fails it.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAction } from './harness.ts';
import { inputsFor, simulatorPerTest } from './service.ts';

// Real time: the reset wait and the slow Claw's 6 s are what is measured.
const start = simulatorPerTest({ speed: 1 });
const WINDOW_MS = 8000;

const CHECKS = `checks:
  - name: answers quickly
    send: Which day is it?
    timeout: 30s
    repeat: 2
    min-pass: 2
    assert:
      - {type: latency, threshold: 5s}
`;

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'claw-workspace-'));
  mkdirSync(join(dir, '.github'));
  writeFileSync(join(dir, '.github', 'claw-checks.yml'), CHECKS);
  return dir;
}

describe("latency is the Claw's", () => {
  it("a spent rate-limit window is not the Claw's latency; a Claw that takes 6 s still fails a 5 s latency", async () => {
    const s = await start({ rateLimit: { limit: 40, windowMs: WINDOW_MS, resetForm: 'epoch-ms' } });
    // The team's other clients spend the window as the first message arrives: the second attempt
    // waits for its reset (8 s) before it is sent.
    s.addClaw('fast', {
      chat: {
        mode: 'sync',
        respond: (_, n) => {
          if (n === 1) s.rateLimit.spendWindow(Date.now());
          return 'Thursday';
        },
      },
    });
    s.addClaw('slow', { chat: { mode: 'task', taskMs: 6000, reply: 'Thursday' } });
    const dir = workspace();
    const run = await runAction(
      inputsFor(s, {
        command: 'health',
        'claw-id': 'fast,slow',
        'probe-message': 'Reply with the word Thursday',
        'probe-expect': 'Thursday',
        'poll-interval': '1s',
        timeout: '60s',
        checks: '.github/claw-checks.yml',
        'checks-junit': 'junit.xml',
      }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 90_000 },
    );
    // The action did wait for the budget (up to the 8 s reset, less however long the machine took
    // to send the next message: only that it waited is asserted, not how fast the machine is).
    expect(run.stdout).toMatch(/window spent; waiting \d[.\d]*s|rate limited \(429\); waiting \d[.\d]*s/);
    const checks = JSON.parse(run.outputs['checks-report']) as {
      clawId: string;
      passed: boolean;
      latencyMs: number;
      failure?: string;
    }[];
    const fast = checks.find((c) => c.clawId === 'fast')!;
    const slow = checks.find((c) => c.clawId === 'slow')!;
    expect(fast).toMatchObject({ passed: true });
    expect(fast.latencyMs).toBeLessThan(1000);
    expect(slow.passed).toBe(false);
    expect(slow.failure).toMatch(
      /^latency ≤ 5000ms did not hold \(took \d+ms, between \d+ and \d+ms: polled every \d+ms\)/,
    );
    expect(slow.latencyMs).toBeGreaterThanOrEqual(6000);
    // The health report gives the replies' latency too (the checks', with a checks file), never the read's or the waits.
    const report = JSON.parse(run.outputs.report) as { clawId: string; latencyMs: number }[];
    expect(report.find((e) => e.clawId === 'fast')!.latencyMs).toBeLessThan(1000);
    // JUnit: the fast Claw's case took well under a second.
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    const time = /<testcase classname="Claw fast" name="answers quickly" time="([\d.]+)"/.exec(junit);
    expect(time).not.toBeNull();
    expect(Number(time![1])).toBeLessThan(1);
  }, 90_000);

  it('a task Claw answering in 1.5 s at the default poll-interval reports 1.5 s, and passes latency ≤ 3s', async () => {
    const s = await start({});
    s.addClaw('task', { chat: { mode: 'task', taskMs: 1500, reply: 'Thursday' } });
    const dir = mkdtempSync(join(tmpdir(), 'claw-workspace-'));
    mkdirSync(join(dir, '.github'));
    writeFileSync(
      join(dir, '.github', 'claw-checks.yml'),
      `checks:\n  - {name: within 3s, send: Which day is it?, assert: [{type: latency, threshold: 3s}]}\n`,
    );
    const run = await runAction(
      inputsFor(s, {
        command: 'health',
        'claw-id': 'task',
        'probe-message': 'Reply with the word Thursday',
        'probe-expect': 'Thursday',
        'poll-interval': '5s', // the default
        timeout: '60s',
        checks: '.github/claw-checks.yml',
      }),
      { env: { GITHUB_WORKSPACE: dir }, killAfterMs: 60_000 },
    );
    const [check] = JSON.parse(run.outputs['checks-report']) as { passed: boolean; latencyMs: number }[];
    expect(check.passed).toBe(true);
    // The Claw's 1.5 s, within the polls' bound (the 5 s poll-interval once reported ~5020ms): the
    // checks report the middle of the bound, the probe the poll that saw the reply.
    expect(Math.abs(check.latencyMs - 1500)).toBeLessThanOrEqual(250);
    const [entry] = JSON.parse(run.outputs.report) as { verdict: string; latencyMs: number }[];
    expect(entry.latencyMs).toBeGreaterThanOrEqual(1500);
    expect(entry.latencyMs).toBeLessThanOrEqual(1750);
  }, 60_000);
});
