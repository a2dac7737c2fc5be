// Health over time, measured: GitHub API calls per run (the history read and write, incidents and
// the page) for N Claws, the service's requests, and the page's size. Figures, never pass or fail.
import { FakeGitHub } from '../sim/github.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { runAction } from '../e2e/harness.ts';

interface HealthFigures {
  n: number;
  firstCalls: number;
  steadyCalls: number;
  incidentCalls: number;
  serviceRequests: number;
  pageKiB: number;
  jsonKiB: number;
  steadyMs: number;
}

async function measure(n: number): Promise<HealthFigures> {
  const sim = new Simulator();
  await sim.start();
  for (let i = 1; i <= n; i++)
    sim.addClaw(`claw-${String(i).padStart(3, '0')}`, { chat: { mode: 'sync', reply: 'pong' } });
  const github = new FakeGitHub();
  await github.start();
  let runId = 0;
  const run = async () => {
    const before = { github: github.requests.length, sim: sim.requests.length };
    const done = await runAction(
      {
        command: 'health',
        'api-key': DEMO_KEY,
        'base-url': `${sim.url}/v1`,
        'claw-id': '*',
        'probe-message': 'ping',
        'probe-expect': 'pong',
        incidents: 'true',
        confirm: '1',
        'status-page': 'true',
      },
      { env: { GITHUB_API_URL: github.url, GITHUB_RUN_ID: String(++runId) } },
    );
    return {
      github: github.requests.length - before.github,
      sim: sim.requests.length - before.sim,
      ms: done.ms,
    };
  };
  const first = await run();
  const steady = await run();
  sim.claws.get('claw-001')!.status = 'offline';
  const incident = await run();
  const size = (path: string) => Buffer.byteLength(github.repo.file('claw-health', path) ?? '') / 1024;
  const figures = {
    n,
    firstCalls: first.github,
    steadyCalls: steady.github,
    incidentCalls: incident.github,
    serviceRequests: steady.sim,
    pageKiB: size('index.html'),
    jsonKiB: size('status.json'),
    steadyMs: steady.ms,
  };
  await sim.stop();
  await github.stop();
  return figures;
}

export async function measureHealthOverTime(sizes = [1, 20, 100]): Promise<string[]> {
  const rows: HealthFigures[] = [];
  for (const n of sizes) {
    process.stderr.write(`health over time: ${n} Claw(s)…\n`);
    rows.push(await measure(n));
  }
  return [
    '| Claws | GitHub calls: first run (creates the branch) | a steady run | a run that opens an incident | service requests per run | index.html | status.json | a steady run, wall time |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (f) =>
        `| ${f.n} | ${f.firstCalls} | ${f.steadyCalls} | ${f.incidentCalls} | ${f.serviceRequests} | ${f.pageKiB.toFixed(1)} KiB | ${f.jsonKiB.toFixed(1)} KiB | ${(f.steadyMs / 1000).toFixed(2)} s |`,
    ),
  ];
}

interface IncidentFigures {
  run: string;
  calls: number;
  issuePages: number;
  issueWrites: number;
  open: number;
  ms: number;
}

/**
 * Incidents at scale: `n` Claws down with `n` open incidents. A first run opens them all
 * (`max-new-incidents` n), then a steady run finds every one again (every page) and writes none.
 */
export async function measureIncidentsAtScale(n = 1000): Promise<string[]> {
  process.stderr.write(`incidents: ${n} Claws with ${n} open incidents…\n`);
  const sim = new Simulator({ pageSize: 500 });
  await sim.start();
  for (let i = 1; i <= n; i++) sim.addClaw(`claw-${String(i).padStart(4, '0')}`, { status: 'offline' });
  const github = new FakeGitHub();
  await github.start();
  let runId = 0;
  const run = async (name: string, extra: Record<string, string> = {}): Promise<IncidentFigures> => {
    const before = github.requests.length;
    const done = await runAction(
      {
        command: 'health',
        'api-key': DEMO_KEY,
        'base-url': `${sim.url}/v1`,
        'claw-id': '*',
        incidents: 'true',
        confirm: '1',
        'status-page': 'true',
        timeout: '5m',
        ...extra,
      },
      { env: { GITHUB_API_URL: github.url, GITHUB_RUN_ID: String(++runId) }, killAfterMs: 600_000 },
    );
    const calls = github.requests.slice(before);
    const issues = calls.filter((r) => /\/issues(\/|\?|$)/.test(r.path));
    return {
      run: name,
      calls: calls.length,
      issuePages: issues.filter((r) => r.method === 'GET').length,
      issueWrites: issues.filter((r) => r.method !== 'GET').length,
      open: github.repo.issues.filter((i) => i.state === 'open').length,
      ms: done.ms,
    };
  };
  const rows = [await run(`opens ${n} (max-new-incidents ${n})`, { 'max-new-incidents': String(n) })];
  rows.push(await run('steady: all still down'));
  rows.push(await run('steady, default max-new-incidents (20)'));
  await sim.stop();
  await github.stop();
  return [
    `| ${n} Claws down | GitHub calls | issue reads (pages) | issue writes | open issues after | wall time |`,
    '|---|---|---|---|---|---|',
    ...rows.map(
      (f) =>
        `| ${f.run} | ${f.calls} | ${f.issuePages} | ${f.issueWrites} | ${f.open} | ${(f.ms / 1000).toFixed(2)} s |`,
    ),
  ];
}
