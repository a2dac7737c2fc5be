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
