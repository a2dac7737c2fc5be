// Issue 48, parts 2 and 4, through dist/index.js and bin/claw-deploy.cjs: the history branch is
// written by anyone with push access, and the action still reads its own records first. A pushed
// `.9999` part larger than any run writes, eight empty parts `.9992`…`.9999`, forty padded parts of
// a month in 2099: each once cost the action records (DORA 1 of 3, DORA 2 → 0, a Claw down twice
// with `confirm: 2` and no incident). Then the output path that is a link to this program's own
// standard output, and a wrong base path whose gateway answers every path with the service's own
// error body. Each beside a control that passes on any version.
// Input controlled by: anyone who can push to the history branch; whoever sets up the workspace
// and the address.
import { lstatSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../sim/server.ts';
import { base, runCli } from './cli-run.ts';
import { workspaceWith } from './harness.ts';
import { HealthWorld } from './health-world.ts';
import { simulatorPerTest } from './service.ts';

const T = Date.parse('2026-11-20T10:00:00Z');
const HOUR = 3600_000;
const BRANCH = 'claw-health';
const MONTH = 'history/deployments/2026-11.ndjson';
const LIVE: Plan = [['pending', 1000], ['live']];
const DEPLOY_ENV = { GITHUB_SHA: 'c0ffee'.padEnd(40, '1'), GITHUB_ACTOR: 'octo-cat' };
/** Larger than any part a run writes (5 MiB): the reader never fetches it. */
const HUGE = `${'x'.repeat(99)}\n`.repeat(56_000);

const world = new HealthWorld({ timeout: '20s', 'status-page': 'true', incidents: 'false' }, {}, 4800);
afterEach(() => world.stop());

const deploy = (when: number, claw: string) =>
  world.run(when, { command: 'deploy', history: BRANCH, 'status-page': 'false', 'claw-id': claw }, { env: DEPLOY_ENV });
const health = (when: number, extra: Record<string, string> = {}) =>
  world.run(when, { history: BRANCH, 'claw-id': '*', ...extra });
const status = (): {
  dora: { overall: Record<string, { deployments: number }> };
  deployments?: unknown[];
} => JSON.parse(world.github!.repo.file(BRANCH, 'status.json')!) as ReturnType<typeof status>;

describe('the history store reads the parts it wrote first (issue 48, part 2)', () => {
  for (const pushed of [true, false])
    it(
      pushed
        ? 'a pushed .9999 part over 5 MiB: the next deployments land where the reader looks; DORA counts 3 of 3'
        : 'control: three deployments on a branch no one pushed to; DORA counts 3',
      async () => {
        const { sim, github } = await world.start({ speed: 20 });
        for (const id of ['bot-a', 'bot-b', 'bot-c']) sim.addClaw(id, { plan: LIVE });
        expect((await deploy(T, 'bot-a')).exitCode).toBe(0);
        if (pushed) github.repo.push(BRANCH, { 'history/deployments/2026-11.9999.ndjson': HUGE });
        expect((await deploy(T + 10 * 60_000, 'bot-b')).exitCode).toBe(0);
        expect((await deploy(T + 20 * 60_000, 'bot-c')).exitCode).toBe(0);
        const run = await health(T + HOUR);
        expect(run.exitCode).toBe(0);
        expect(status().dora.overall['7'].deployments).toBe(3);
        expect(github.repo.file(BRANCH, MONTH)!.split('\n').filter(Boolean)).toHaveLength(3);
        // The pushed part is never written over, and nothing lands past the reader's pattern.
        expect(github.repo.files(BRANCH).filter((p) => /\.10000\.ndjson$/.test(p))).toEqual([]);
        if (pushed) {
          expect(github.repo.file(BRANCH, 'history/deployments/2026-11.9999.ndjson')).toBe(HUGE);
          expect(run.warnings.filter((w) => w.includes('not among this action'))).toEqual([
            `History: skipped 1 file(s) on 'claw-health' (${HUGE.length} bytes) that are not among this action's parts: history/deployments/2026-11.9999.ndjson. Its own parts are named by its sealed index and read first; only lines it sealed count.`,
          ]);
        } else expect(run.warnings).toEqual([]);
      },
    );

  for (const pushed of [true, false])
    it(
      pushed
        ? "eight empty parts .9992….9999 take none of the budget: status.json's DORA still counts 2"
        : 'control: two deployments, DORA counts 2',
      async () => {
        const { sim, github } = await world.start({ speed: 20 });
        for (const id of ['bot-a', 'bot-b']) sim.addClaw(id, { plan: LIVE });
        await deploy(T, 'bot-a');
        await deploy(T + 10 * 60_000, 'bot-b');
        if (pushed)
          github.repo.push(
            BRANCH,
            Object.fromEntries(
              Array.from({ length: 8 }, (_, i) => [`history/deployments/2026-11.${9992 + i}.ndjson`, '']),
            ),
          );
        github.requests.length = 0;
        const run = await health(T + HOUR);
        expect(run.exitCode).toBe(0);
        expect(status().dora.overall['7'].deployments).toBe(2);
        // The index and the action's own part: an empty part pushed beside them is never fetched.
        const fetched = github.requests.filter((r) => r.method === 'GET' && r.path.includes('/git/blobs/'));
        expect(fetched.length).toBeLessThanOrEqual(3);
        if (pushed) expect(run.warnings.join('\n')).toMatch(/skipped 8 file\(s\) on 'claw-health' \(0 bytes\)/);
      },
    );
});

describe('a Claw down two runs in a row opens its incident with confirm: 2, whatever is pushed (issue 48, part 2)', () => {
  const incidents = new HealthWorld({ timeout: '20s', confirm: '2', history: BRANCH }, {}, 4900);
  afterEach(() => incidents.stop());

  for (const pushed of [true, false])
    it(
      pushed
        ? "forty padded parts of 2099-12: the action's own month is read, the incident opens"
        : 'control: the same two runs on a branch no one pushed to open the incident',
      async () => {
        const { sim, github } = await incidents.start();
        sim.addClaw('bot', { status: 'offline' });
        await incidents.run(T - 2 * HOUR);
        expect(github.repo.issues).toHaveLength(0);
        if (pushed)
          github.repo.push(
            BRANCH,
            Object.fromEntries(
              Array.from({ length: 40 }, (_, i) => [
                `history/2099-12.${i + 2}.ndjson`,
                `${'x'.repeat(99)}\n`.repeat(2_000),
              ]),
            ),
          );
        const run = await incidents.run(T - HOUR);
        expect(github.repo.issues.filter((i) => i.state === 'open').map((i) => i.title)).toEqual(['bot is down']);
        if (pushed) expect(run.warnings.join('\n')).toMatch(/skipped 40 file\(s\) on 'claw-health'/);
        else expect(run.warnings).toEqual([]);
      },
    );
});

describe("a month file of the action's cut back between two runs: said, not lost in silence", () => {
  const cutWorld = new HealthWorld({ timeout: '20s', history: BRANCH, incidents: 'false' }, {}, 4950);
  afterEach(() => cutWorld.stop());
  const RAW = 'history/2026-11.ndjson';
  const lines = (): string[] => cutWorld.github!.repo.file(BRANCH, RAW)!.split('\n').filter(Boolean);

  for (const cut of [true, false])
    it(
      cut
        ? 'cut to its first line: one warning naming the file, 4 records expected and 1 read, in the log and the summary; the next run is quiet'
        : 'control: the same runs on a branch no one pushed to: no warning, every record kept',
      async () => {
        const { sim, github } = await cutWorld.start();
        sim.addClaw('bot', { chat: { mode: 'sync', reply: 'PONG' } });
        // Two runs: the service's record and the Claw's each.
        for (const when of [T - 3 * HOUR, T - 2 * HOUR]) expect((await cutWorld.run(when)).exitCode).toBe(0);
        expect(lines()).toHaveLength(4);
        if (cut) github.repo.push(BRANCH, { [RAW]: `${lines()[0]}\n` });
        const run = await cutWorld.run(T - HOUR);
        expect(run.exitCode).toBe(0);
        const said = `History: ${RAW} on 'claw-health' was cut since this action wrote it: 4 record(s) expected, 1 read; the 3 lost are not counted. The records still there are used; the next commit indexes the file as it is now.`;
        if (cut) {
          expect(run.warnings).toEqual([said]);
          expect(run.summary).toContain(said);
          // What was left, and this run's two: never the lost ones.
          expect(lines()).toHaveLength(3);
        } else {
          expect(run.warnings).toEqual([]);
          expect(run.summary).not.toContain('was cut');
          expect(lines()).toHaveLength(6);
        }
        const next = await cutWorld.run(T);
        expect(next.warnings).toEqual([]);
        expect(lines()).toHaveLength(cut ? 5 : 8);
      },
    );
});

describe('output paths and the wrong address (issue 48, part 4)', () => {
  const start = simulatorPerTest();
  const CHECKS = 'checks:\n  - {name: hi, send: hi, assert: [{type: contains, value: Hello}]}\n';

  it('--output naming a link to /proc/self/fd/1: refused in one line, the link stays a link', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspaceWith({ 'checks.yml': CHECKS }, 'claw-store-');
    symlinkSync('/proc/self/fd/1', join(dir, 'out.json'));
    const run = await runCli(
      ['check', '--checks', 'checks.yml', '--claw-id', 'c1', '--output', 'out.json', ...base(s)],
      { cwd: dir },
    );
    expect(lstatSync(join(dir, 'out.json')).isSymbolicLink()).toBe(true);
    expect(run.stderr.split('\n').filter((l) => /out\.json/.test(l) && /link/.test(l))).toHaveLength(1);
    expect(run.stdout).not.toMatch(/"results"/);
  });

  it('control: --output naming a new path is written', async () => {
    const s = await start();
    s.addClaw('c1', { chat: { mode: 'sync', reply: 'Hello, how can I help?' } });
    const dir = workspaceWith({ 'checks.yml': CHECKS }, 'claw-store-');
    const run = await runCli(
      ['check', '--checks', 'checks.yml', '--claw-id', 'c1', '--output', 'out.json', ...base(s)],
      { cwd: dir },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'))).toHaveProperty('results');
  });

  const gateway = new HealthWorld({ timeout: '20s', confirm: '1', history: BRANCH }, {}, 5000);
  afterEach(() => gateway.stop());

  for (const wrong of [true, false])
    it(
      wrong
        ? "a wrong base path whose gateway answers every path with the service's error body: one error naming base-url, no incident, nothing kept"
        : 'control: the right base path behind the same gateway: healthy, the run kept',
      async () => {
        const { sim, github } = await gateway.start({ gatewayErrors: true });
        sim.addClaw('bot-a');
        sim.addClaw('bot-b');
        const run = await gateway.run(T, {
          'claw-id': 'bot-a, bot-b',
          ...(wrong ? { 'base-url': `${sim.url}/api/v2` } : {}),
        });
        if (wrong) {
          expect(run.exitCode).not.toBe(0);
          expect(run.errors).toHaveLength(1);
          expect(run.errors[0]).toMatch(/'base-url' .*\/api\/v2 looks wrong/);
          expect(github.repo.issues).toHaveLength(0);
          expect(github.repo.log(BRANCH)).toHaveLength(0);
        } else {
          expect(run.exitCode).toBe(0);
          expect(github.repo.log(BRANCH)).toHaveLength(1);
        }
      },
    );
});
