// Which deployment an incident names, through dist/index.js as the runner runs it: two Claws
// deployed by the action on the same morning, health twice a day with a conversation check. One
// breaks at its first runs after its deployment: its incident names it, with the evidence. The
// other runs healthy for five days and then breaks with nothing deployed: its incident names no
// suspect and says why, and the page and status.json carry the same words.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthWorld } from './health-world.ts';

const DAY = 24 * 3600_000;
const START = Date.parse('2026-11-01T06:00:00Z');
const at = (day: number, hour = 6): number => START + (day - 1) * DAY + (hour - 6) * 3600_000;
const FINE = 'Hello! I am Claw. How can I help?';
const BROKEN = 'Hello! I am Claw. What now?';
/** Both deployments land on day 2 at 09:00; `steady` breaks before the run of day 7 at 18:00. */
const DEPLOY_DAY = 2;
const BREAK = { day: 7, hour: 18 };
const LAST_DAY = 8;
const NOT_NAMED = 'deployed 5 days earlier and healthy since; not named as the cause';

const CHECKS = `checks:
  - name: greets
    send: Hello
    assert:
      - type: icontains
        value: help
`;

const workspace = mkdtempSync(join(tmpdir(), 'claw-suspects-'));
writeFileSync(join(workspace, 'claw-checks.yml'), CHECKS);
const world = new HealthWorld({ checks: 'claw-checks.yml', 'status-page': 'true', timeout: '20s' });
const inWorkspace = { env: { GITHUB_WORKSPACE: workspace } };
const deployed = new Map<string, string>();

beforeAll(async () => {
  const { sim } = await world.start();
  for (const claw of ['steady', 'breaks']) {
    sim.addClaw(claw, { chat: { mode: 'sync', reply: FINE }, plan: [['live']] });
    sim.addDeployment(claw, [['live']]);
  }
  const deploy = async (claw: string, sha: string) => {
    const run = await world.run(
      at(DEPLOY_DAY, 9),
      { command: 'deploy', 'claw-id': claw, incidents: '', checks: '', 'status-page': '', history: 'claw-health' },
      { env: { GITHUB_SHA: sha, GITHUB_WORKSPACE: workspace } },
    );
    expect(run.errors).toEqual([]);
    deployed.set(claw, run.outputs['deployment-id']);
  };
  for (let day = 1; day <= LAST_DAY; day++) {
    for (const hour of [6, 18]) {
      if (day === BREAK.day && hour === BREAK.hour) sim.claws.get('steady')!.chat.reply = BROKEN;
      await world.run(at(day, hour), { history: 'claw-health' }, inWorkspace);
      if (day === DEPLOY_DAY && hour === 6) {
        await deploy('steady', '1'.repeat(40));
        await deploy('breaks', '2'.repeat(40));
        sim.claws.get('breaks')!.chat.reply = BROKEN;
      }
    }
  }
}, 900_000);

afterAll(async () => {
  await world.stop();
  rmSync(workspace, { recursive: true, force: true });
});

const incidentOf = (claw: string) => {
  const issues = world.github!.repo.issues.filter((i) => i.labels.includes('claw-incident') && i.title.includes(claw));
  expect(issues).toHaveLength(1);
  return issues[0];
};

describe('an incident names a deployment only with evidence', () => {
  it('a failure from the first runs after a deployment names it, with the evidence', () => {
    const body = incidentOf('breaks').body;
    expect(body).toContain(`**Suspect deployment:** \`${deployed.get('breaks')}\``);
    // The Claw failed from its first run after it, and its watch found the drop there: either says so.
    expect(body).toMatch(
      /\*\*Evidence:\*\* (the Claw began failing at its first run after it|its watch found the drop, beginning with its first runs)/,
    );
  });

  it('a failure on day 6 of a deployment healthy since names none, and says why', () => {
    const body = incidentOf('steady').body;
    expect(body).toContain(`**Suspect deployment:** none. \`${deployed.get('steady')}\``);
    expect(body).toContain(`was ${NOT_NAMED}`);
    expect(body).not.toContain(`**Suspect deployment:** \`${deployed.get('steady')}\``);
  });

  it('status.json and the page carry the same words', () => {
    const json = JSON.parse(world.github!.repo.file('claw-health', 'status.json')!);
    const rows = json.deployments as { id: string; suspect: boolean; notNamed: string | null }[];
    expect(rows.find((r) => r.id === deployed.get('steady'))).toMatchObject({ suspect: false, notNamed: NOT_NAMED });
    expect(rows.find((r) => r.id === deployed.get('breaks'))).toMatchObject({ suspect: true, notNamed: null });
    const html = world.github!.repo.file('claw-health', 'index.html')!;
    expect(html).toContain(`Not the suspect: ${NOT_NAMED}`);
    expect(html.match(/<tr class="suspect">/g)).toHaveLength(1);
  });
});
