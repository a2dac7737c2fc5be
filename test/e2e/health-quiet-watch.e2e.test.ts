// The watch with nothing deployed (one ongoing CUSUM over a Claw's health runs), through
// dist/index.js as the runner runs it: two Claws checked every 6 hours on the simulator's clock,
// nothing ever deployed. One answers 4 of its 10 questions wrong from day 4 on: its CUSUM opens the
// incident at the first such run (before `confirm`'s two failing runs could), naming no suspect.
// The other stays steady and opens none.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behavingClaw, failsFirst, questionsFile } from '../sim/behaviour.ts';
import type { ActionRun } from './harness.ts';
import { HealthWorld } from './health-world.ts';

const HOUR = 3600_000;
const START = Date.parse('2026-11-02T00:00:00Z');
/** Three days of steady runs (12: the CUSUM's baseline needs 10 in the week before), then the drop. */
const STEADY_RUNS = 12;
const RUNS = 15;
const atRun = (k: number) => START + k * 6 * HOUR;

const workspace = mkdtempSync(join(tmpdir(), 'claw-quiet-'));
writeFileSync(join(workspace, 'claw-checks.yml'), questionsFile(10, 1));
const world = new HealthWorld({
  checks: 'claw-checks.yml',
  history: 'claw-health',
  'status-page': 'true',
  timeout: '20s',
});
const runs: ActionRun[] = [];

beforeAll(async () => {
  const { sim } = await world.start();
  sim.addClaw('steady', behavingClaw({ passRates: [1] }));
  // Its answers are drawn by the profile at each message: the switch changes them in place.
  let broken = false;
  sim.addClaw('drops', behavingClaw({ passRates: (question) => (broken ? failsFirst(4)(question) : 1) }));
  for (let k = 0; k < RUNS; k++) {
    broken = k >= STEADY_RUNS;
    runs.push(await world.run(atRun(k), {}, { env: { GITHUB_WORKSPACE: workspace } }));
  }
}, 600_000);

afterAll(async () => {
  await world.stop();
  rmSync(workspace, { recursive: true, force: true });
});

const incidents = () => world.github!.repo.issues.filter((i) => i.labels.includes('claw-incident'));

describe('the watch with nothing deployed', () => {
  it('the steady runs open nothing', () => {
    expect(runs.slice(0, STEADY_RUNS).every((r) => r.exitCode === 0)).toBe(true);
    expect(incidents().filter((i) => i.labels.includes('steady'))).toEqual([]);
  });

  it("a Claw whose runs drop with nothing deployed gets one incident, opened by the CUSUM at the drop's first run", () => {
    const own = incidents().filter((i) => i.labels.includes('drops'));
    expect(own).toHaveLength(1);
    const { body, state } = own[0];
    expect(state).toBe('open');
    // Opened by the watch at the drop's first run (run 113), not by `confirm`'s two failing runs in a row.
    const first = `[run 113](https://github.com/octo/claws/actions/runs/113) (${new Date(atRun(STEADY_RUNS)).toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
    expect(body).toContain(
      `Claw \`drops\` behaves worse with nothing deployed: the watch's sequential test found its checks' pass rate lower. Seen in ${first}.`,
    );
    expect(body).toContain(`**First failing run:** ${first}`);
    expect(body).not.toMatch(/has failed \d run\(s\) in a row/);
    expect(body).toContain(
      '**The watch:** pass rate 100.0% (120 judged in 12 run(s)) before → 60.0% (10 judged in 1 run(s)) after: −40.0 points.',
    );
    expect(body).toContain('**Suspect deployment:** none. Nothing was deployed to this Claw in the 7 days before');
    // The runs after it keep the one incident (one signature while the alarm holds).
    expect(runs.slice(STEADY_RUNS).every((r) => r.exitCode === 1)).toBe(true);
  });

  it('status.json links the incident to the dropping Claw only, and lists no deployment to blame', () => {
    const file = world.github!.repo.file('claw-health', 'status.json');
    expect(file).toBeDefined();
    const json = JSON.parse(file!) as { claws: { id: string; incident: { number: number } | null }[]; deployments: [] };
    const incident = incidents().find((i) => i.labels.includes('drops'))!;
    expect(json.claws.find((c) => c.id === 'drops')?.incident?.number).toBe(incident.number);
    expect(json.claws.find((c) => c.id === 'steady')?.incident).toBeNull();
    expect(json.deployments).toEqual([]);
  });
});
