// Issue 39, item 6, through dist/index.js: the history branch is read within one budget. Anyone
// with push access adds 240 padded parts (no sealed line in them, raw and daily alike): the next
// health run fetches at most the budget's files (since issue 48, none of them: only the parts its
// sealed index names are read), names what it left in one warning, and still confirms the incident
// of a Claw down in the runs it read. Beside it, a branch without padding reads and confirms with
// no warning.
// Input controlled by: anyone who can push to the history branch.
import { afterEach, describe, expect, it } from 'vitest';
import type { ActionRun } from './harness.ts';
import { HealthWorld } from './health-world.ts';

const T = Date.parse('2026-11-20T10:00:00Z');
const HOUR = 3600_000;
const BRANCH = 'claw-health';
/** The most files one read takes (src/health/history.ts), and the read of a retry after a conflict. */
const MAX_READ_FILES = 24;

const world = new HealthWorld({ timeout: '20s', confirm: '2' }, {}, 1200);
afterEach(() => world.stop());

const padding = (bytes: number): string => `${'x'.repeat(99)}\n`.repeat(Math.ceil(bytes / 100));
const blobFetches = (): number =>
  world.github!.requests.filter((r) => r.method === 'GET' && r.path.includes('/git/blobs/')).length;

async function downTwice(pad: boolean): Promise<ActionRun> {
  const { sim, github } = await world.start();
  const bot = sim.addClaw('bot');
  bot.status = 'offline';
  await world.run(T - 2 * HOUR);
  expect(github.repo.issues).toHaveLength(0);
  if (pad) {
    const files: Record<string, string> = {};
    for (let part = 2; part <= 241; part++) {
      files[`history/2026-10.${part}.ndjson`] = padding(20_000);
      files[`history/daily/2026-10.${part}.ndjson`] = padding(20_000);
    }
    github.repo.push(BRANCH, files);
  }
  github.requests.length = 0;
  return world.run(T - HOUR);
}

describe('the history read has one budget (issue 39)', () => {
  it('240 padded raw and daily parts: none fetched (not among the parts the sealed index names), one warning naming them, the incident still confirms', async () => {
    const run = await downTwice(true);
    expect(blobFetches()).toBeLessThanOrEqual(2);
    expect(blobFetches()).toBeLessThanOrEqual(2 * MAX_READ_FILES);
    const skipped = run.warnings.filter((w) => w.includes("not among this action's parts"));
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(
      /^History: skipped 480 file\(s\) on 'claw-health' \(\d+ bytes\) that are not among this action's parts: history\//,
    );
    expect(world.github!.repo.issues.filter((i) => i.state === 'open')).toHaveLength(1);
  });

  it('control: the same two runs on a branch without padding confirm, with no warning', async () => {
    const run = await downTwice(false);
    expect(run.warnings).toEqual([]);
    expect(blobFetches()).toBeLessThanOrEqual(2);
    expect(world.github!.repo.issues.filter((i) => i.state === 'open')).toHaveLength(1);
  });
});
