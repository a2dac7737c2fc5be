// deploy's `baseline: saved` as a user runs it (the package's bin over dist/, a history folder), at
// 60 requests a minute on the simulator's scaled time: the first deploy has no saved run, asks the
// live Claw and saves the run of what it deployed; the second compares with that run, asks only
// the candidate, and decides a clear regression with fewer conversation requests than the plain
// gate on the same release. A checks file changed since the run was saved: the run is not used,
// one line says why, and the live Claw is asked.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { behavingClaw, questionsFile } from '../sim/behaviour.ts';
import type { Simulator } from '../sim/server.ts';
import { runCli } from './cli-run.ts';
import { simulatorPerTest } from './service.ts';

const SPEED = 20;
const start = simulatorPerTest({ speed: SPEED });
const sixtyAMinute = { limit: 60, windowMs: 60_000 / SPEED, resetForm: 'epoch-ms' as const };
/** 7 in 10 near-certain, 2 flaky, 1 near-never. */
const RATES = [0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.98, 0.6, 0.5, 0.03];
const QUESTIONS = 30;
const REPEATS = 3;
const SAVED_LINE = /the baseline costs 0 requests: the last gate's saved run of the live deployment (\S+) \(/;

/** Messages and task polls sent to the Claw from request `from` on: what a comparison costs. */
const conversation = (sim: Simulator, from = 0) =>
  sim.requests
    .slice(from)
    .filter((r) => (r.method === 'POST' && r.path.startsWith('/v1/chat/')) || r.path.startsWith('/v1/tasks/')).length;

function workspace(checks: string): string {
  const cwd = mkdtempSync(join(tmpdir(), 'claw-saved-'));
  writeFileSync(join(cwd, 'checks.yml'), checks);
  return cwd;
}

const deploy = (sim: Simulator, cwd: string, claw: string, baseline: string, extra: string[] = []) =>
  runCli(
    [
      'deploy',
      '--claw-id',
      claw,
      '--checks',
      'checks.yml',
      '--baseline',
      baseline,
      ...extra,
      '--base-url',
      `${sim.url}/v1`,
      '--timeout',
      '10m',
      '--poll-interval',
      '50ms',
    ],
    { cwd },
  );

describe('deploy with baseline: saved (the last gate’s run as the baseline)', () => {
  it('the second deploy in a row compares with the first one’s run and decides a clear regression for fewer requests than the plain gate', async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    const profile = { passRates: RATES, seed: 5 };
    // c1's first deployment is an identical release, its second breaks every answer (chance 0.2);
    // c2, for the plain gate, gets that same broken release at once.
    sim.addClaw('c1', behavingClaw(profile, [{}, { passRates: [0.2] }]));
    sim.addClaw('c2', behavingClaw(profile, [{ passRates: [0.2] }]));
    const cwd = workspace(questionsFile(QUESTIONS, REPEATS));
    const history = ['--history-dir', 'hist'];

    const first = await deploy(sim, cwd, 'c1', 'saved', history);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      "Baseline: the last gate's saved run of Claw c1 is not used (none saved yet: the first gate with a history saves one); the checks run on the live Claw before the trigger instead.",
    );
    expect(first.stderr).toMatch(/History: saved the checks' run of deployment (\S+) on 'hist'/);
    const deployed = /History: saved the checks' run of deployment (\S+) on/.exec(first.stderr)![1];

    const mark = sim.requests.length;
    const second = await deploy(sim, cwd, 'c1', 'saved', history);
    const saved = conversation(sim, mark);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/behaviour regressed/);
    // The cost line, before the first request: the baseline is the first deploy's run, at no cost.
    const lines = second.stderr.split('\n');
    const cost = lines.findIndex((l) => l.includes('Comparing before and after:'));
    expect(SAVED_LINE.exec(lines[cost])?.[1]).toBe(deployed);
    expect(lines[cost]).toContain(`the candidate: at most ${QUESTIONS * REPEATS} message(s)`);
    expect(second.stderr).not.toMatch(/Baseline: the checks on Claw/);
    expect(second.stderr).toMatch(/Stopped after round 1 of 3: behaviour regressed/);

    // The plain gate on the same release.
    const markPlain = sim.requests.length;
    const plainRun = await deploy(sim, cwd, 'c2', 'none');
    expect(plainRun.code).toBe(1);
    const plain = conversation(sim, markPlain);
    // Each question asked once of the candidate, nothing of the live Claw: fewer than the plain gate's.
    expect(saved).toBe(QUESTIONS);
    expect(saved).toBeLessThan(plain);
  }, 300_000);

  it('a checks file changed since the run was saved: not used, one line says why, the live Claw is asked', async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('c1', behavingClaw({ passRates: [1], seed: 2 }, [{}, {}]));
    const cwd = workspace(questionsFile(4, 2));
    const history = ['--history-dir', 'hist'];
    expect((await deploy(sim, cwd, 'c1', 'saved', history)).code).toBe(0);
    writeFileSync(join(cwd, 'checks.yml'), questionsFile(5, 2));
    const second = await deploy(sim, cwd, 'c1', 'saved', history);
    expect(second.code, second.stderr).toBe(0);
    const notices = second.stderr.split('\n').filter((l) => l.includes("Baseline: the last gate's saved run"));
    expect(notices).toEqual([
      expect.stringContaining(
        "Baseline: the last gate's saved run of Claw c1 is not used (the checks changed since it was run); the checks run on the live Claw before the trigger instead.",
      ),
    ]);
    expect(second.stderr).toMatch(/Baseline: the checks on Claw c1 before the deployment/);
    expect(second.stderr).toMatch(/Comparing before and after: both sides:/);
  }, 300_000);

  it('a saved run someone edited, or of a deployment no longer live, is not used: one line each, the live Claw asked', async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('c1', behavingClaw({ passRates: [1], seed: 3 }, [{}, {}, {}, {}]));
    const cwd = workspace(questionsFile(4, 2));
    const history = ['--history-dir', 'hist'];
    expect((await deploy(sim, cwd, 'c1', 'saved', history)).code).toBe(0);
    // One outcome changed under the seal: the line no longer verifies.
    const file = join(cwd, 'hist', 'saved-runs', 'c1.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"outcome":"pass"', '"outcome":"fail"'));
    const edited = await deploy(sim, cwd, 'c1', 'saved', history);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stderr).toContain(
      "warning: Baseline: the last gate's saved run of Claw c1 is not used (the file on 'hist' is refused: it does not carry this action’s seal for this Claw)",
    );
    expect(edited.stderr).toMatch(/Baseline: the checks on Claw c1 before the deployment/);
    // The plain gate deploys a new version and saves nothing: the saved run is of the one before it.
    const saved = /History: saved the checks' run of deployment (\S+) on/.exec(edited.stderr)![1];
    const plain = await deploy(sim, cwd, 'c1', 'none', history);
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toContain('History: saved');
    const live = await deploy(sim, cwd, 'c1', 'saved', history);
    expect(live.stderr).toMatch(
      new RegExp(`is not used \\(it was run on deployment ${saved}, and the Claw's live one is (?!${saved}\\))\\S+\\)`),
    );
    expect(live.stderr).toMatch(/Comparing before and after: both sides:/);
  }, 300_000);

  it("a connection's url changed on the Claw under the same deployment: the saved run is not used, the live Claw is asked", async () => {
    const sim = await start({ rateLimit: sixtyAMinute });
    sim.addClaw('c1', behavingClaw({ passRates: [1], seed: 4 }, [{}, {}]));
    const claw = sim.claws.get('c1')!;
    claw.config = { ...claw.config, connections: { zendesk: { url: 'https://a.example/api' } } };
    const cwd = workspace(questionsFile(4, 2));
    const history = ['--history-dir', 'hist'];
    const first = await deploy(sim, cwd, 'c1', 'saved', history);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/History: saved the checks' run of deployment/);
    // Edited in the service (as a PATCH does), no new deployment: the Claw now calls another backend.
    claw.config = { ...claw.config, connections: { zendesk: { url: 'https://b.example/api' } } };
    const second = await deploy(sim, cwd, 'c1', 'saved', history);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      "Baseline: the last gate's saved run of Claw c1 is not used (the Claw's configuration changed since it was run)",
    );
    expect(second.stderr).toMatch(/Comparing before and after: both sides:/);
  }, 300_000);

  it('refuses saved without a history store, before any request', async () => {
    const sim = await start();
    const cwd = workspace(questionsFile(2, 1));
    const run = await deploy(sim, cwd, 'c1', 'saved');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: --baseline is "saved": expected none or before without a history store/);
    expect(sim.requests).toHaveLength(0);
  }, 60_000);
});
