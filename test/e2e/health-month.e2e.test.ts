// A simulated month of one Claw through dist/index.js, as the runner runs it: three deployments by
// the action (each leaving its sealed record on the history branch), scheduled health runs with
// conversation checks on an injected clock, and the third deployment breaking one check. The
// incident, the status page and status.json name that deployment as the suspect, and only it.
// With chromium present, a screenshot of the month's page goes to the OS's temporary folder.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthWorld } from './health-world.ts';

const DAY = 24 * 3600_000;
const START = Date.parse('2026-11-01T06:00:00Z');
const at = (day: number, hour = 6): number => START + (day - 1) * DAY + (hour - 6) * 3600_000;
const COMMITS = ['1'.repeat(40), '2'.repeat(40), '3'.repeat(40)];
/** The days the three deployments land, at 09:00; the third breaks the `greets` check. */
const DEPLOY_DAYS = [4, 24, 26];
const FINE = 'Hello! I am Claw. How can I help?';
const BROKEN = 'Hello! I am Claw. What now?';

const CHECKS = `checks:
  - name: greets
    send: Hello
    assert:
      - type: icontains
        value: help
  - name: names-itself
    send: Who are you?
    assert:
      - type: icontains
        value: Claw
  - name: polite
    send: Hi
    assert:
      - type: not-icontains
        value: go away
`;

const workspace = mkdtempSync(join(tmpdir(), 'claw-month-'));
writeFileSync(join(workspace, 'claw-checks.yml'), CHECKS);
const world = new HealthWorld({ checks: 'claw-checks.yml', 'status-page': 'true', 'claw-id': 'bot', timeout: '20s' });
const inWorkspace = { env: { GITHUB_WORKSPACE: workspace } };
const deploymentIds: string[] = [];

beforeAll(async () => {
  const { sim } = await world.start();
  sim.addClaw('bot', { chat: { mode: 'sync', reply: FINE }, plan: [['live']] });
  sim.addDeployment('bot', [['live']]);
  const deploy = async (n: number) => {
    const run = await world.run(
      at(DEPLOY_DAYS[n], 9),
      { command: 'deploy', incidents: '', checks: '', 'status-page': '', history: 'claw-health' },
      { env: { GITHUB_SHA: COMMITS[n], GITHUB_WORKSPACE: workspace } },
    );
    expect(run.errors).toEqual([]);
    deploymentIds.push(run.outputs['deployment-id']);
  };
  // One health run a day at 06:00, and one at 18:00 from day 16 on; a deployment at 09:00 on its day.
  for (let day = 1; day <= 30; day++) {
    for (const hour of day >= 16 ? [6, 18] : [6]) {
      const run = await world.run(at(day, hour), {}, inWorkspace);
      // From the third deployment on, the step fails as health does for an unhealthy Claw; nothing else.
      expect(run.errors.filter((e) => e !== 'The Claw is not healthy: bot (unhealthy).')).toEqual([]);
      const n = DEPLOY_DAYS.indexOf(day);
      if (n < 0 || hour !== 6) continue;
      await deploy(n);
      if (n === 2) sim.claws.get('bot')!.chat.reply = BROKEN;
    }
  }
}, 900_000);

afterAll(async () => {
  await world.stop();
  rmSync(workspace, { recursive: true, force: true });
});

describe('a month with three deployments, the third breaking one check', () => {
  it('each deployment was recorded, with its commit', () => {
    expect(deploymentIds).toHaveLength(3);
    expect(new Set(deploymentIds).size).toBe(3);
    const file = world.github!.repo.file('claw-health', 'history/deployments/2026-11.ndjson') ?? '';
    for (const [i, id] of deploymentIds.entries()) {
      expect(file).toContain(`"deployment":"${id}"`);
      expect(file).toContain(COMMITS[i]);
    }
  });

  it('the incident names the third deployment as its suspect, and no other', () => {
    const issues = world.github!.repo.issues.filter((i) => i.labels.includes('claw-incident'));
    expect(issues).toHaveLength(1);
    const [third, ...others] = [deploymentIds[2], deploymentIds[0], deploymentIds[1]];
    const body = issues[0].body;
    expect(body).toContain(`**Suspect deployment:** \`${third}\``);
    expect(body).toContain(`https://github.com/octo/claws/commit/${COMMITS[2]}`);
    expect(body).toContain(`https://github.com/octo/claws/compare/${COMMITS[1]}...${COMMITS[2]}`);
    for (const id of others) expect(body).not.toContain(id);
  });

  it("status.json lists the window's deployments, the third the suspect with its incident", () => {
    const json = JSON.parse(world.github!.repo.file('claw-health', 'status.json')!);
    const issue = world.github!.repo.issues.find((i) => i.labels.includes('claw-incident'))!;
    const rows = json.deployments as {
      id: string;
      suspect: boolean;
      incident: { number: number } | null;
      commit: string;
    }[];
    // The window (7 days) holds the last two; the first is past it.
    expect(rows.map((r) => r.id)).toEqual([deploymentIds[2], deploymentIds[1]]);
    expect(rows[1]).toMatchObject({ suspect: false, incident: null });
    expect(rows[0]).toMatchObject({ suspect: true, commit: COMMITS[2], incident: { number: issue.number } });
  });

  it('the page marks the third deployment suspect and links its incident; the screenshot is written', async () => {
    const html = world.github!.repo.file('claw-health', 'index.html')!;
    // The page of the month's last run, the watch of the third deployment decided by then.
    expect(html).toContain('<time datetime="2026-11-30T18:00');
    const row = html.slice(html.indexOf('<tr class="suspect">'));
    expect(row).toContain('<span class="verdict v-regressed">regressed</span>');
    expect(row).toContain(`<code>${deploymentIds[2]}</code>`);
    expect(row).toMatch(/Incident #\d+<\/a>/);
    expect(html.match(/<tr class="suspect">/g)).toHaveLength(1);
    await screenshot(html);
  });
});

/** The month's page in chromium at a desktop's width, when the browser is installed. */
async function screenshot(html: string): Promise<void> {
  if (!existsSync('/usr/bin/chromium')) return;
  const { chromium } = await import('playwright-core');
  const folder = join(tmpdir(), 'claw-status-page');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'month.html');
  writeFileSync(file, html);
  const profile = mkdtempSync(join(tmpdir(), 'claw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(pathToFileURL(file).href);
    expect(await page.locator('tr.suspect').count()).toBe(1);
    const path = join(folder, 'month-desktop-light.png');
    await page.screenshot({ path, fullPage: true });
    process.stderr.write(`the simulated month's status page: ${path}\n`);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
