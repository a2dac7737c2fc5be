// What a user installs, not the repository: `npm pack`, that tarball installed into an empty
// folder with no registry to reach (so the package must carry its whole program), then the
// installed `claw-deploy` run through its bin: --version, one deploy and one compare against the
// simulator.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { behavingClaw, failsFirst, questionsFile } from '../sim/behaviour.ts';
import { DEMO_KEY } from '../sim/server.ts';
import { installPacked, runPacked as run } from './packed.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

describe('the package as a user installs it', () => {
  it('installs from its tarball alone and runs: --version, then a deploy and a compare against the simulator', async () => {
    const { bin, folder, files } = installPacked();
    // Only what runs: the bin, the bundle, and npm's own (package.json, README, LICENSE).
    expect(files.filter((f) => !/^(bin|dist)\//.test(f)).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
    const installed = JSON.parse(readFileSync(join(folder, 'node_modules', 'claw-deploy', 'package.json'), 'utf8'));
    expect(installed.dependencies ?? {}).toEqual({});
    // Nothing else came with it.
    expect(readdirSync(join(folder, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['claw-deploy']);

    const version = await run(bin, ['--version'], folder);
    expect(version.exitCode).toBe(0);
    expect(version.stdout).toBe(`claw-deploy ${installed.version}\n`);

    const s = await start();
    s.addClaw('c1', { plan: [['pending', 500], ['live']] });
    const deploy = await run(
      bin,
      ['deploy', '--claw-id', 'c1', '--poll-interval', '100ms', '--timeout', '20s', '--json'],
      folder,
      { CLAW_DEPLOY_API_KEY: DEMO_KEY, CLAW_DEPLOY_BASE_URL: `${s.url}/v1` },
    );
    expect(deploy.exitCode, deploy.stderr).toBe(0);
    expect(JSON.parse(deploy.stdout)).toMatchObject({ outcome: 'succeeded', status: 'live' });
    expect(s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/deployments')).toHaveLength(1);

    // compare, from the tarball alone, on the simulator's behaviour mode: the candidate fails 8 of
    // 20 questions. Latency may move 100%: the machine's jitter is never the Claw's.
    s.addClaw('prod', behavingClaw({ passRates: [1] }));
    s.addClaw('next', behavingClaw({ passRates: failsFirst(8) }));
    writeFileSync(join(folder, 'checks.yml'), questionsFile(20, 3, '  tolerance:\n    latency: 100%\n'));
    const compare = await run(
      bin,
      ['compare', '--claw-id', 'next', '--baseline', 'prod', '--checks', 'checks.yml', '--timeout', '20s', '--json'],
      folder,
      { CLAW_DEPLOY_API_KEY: DEMO_KEY, CLAW_DEPLOY_BASE_URL: `${s.url}/v1` },
    );
    expect(compare.exitCode, compare.stderr).toBe(1);
    const compared = JSON.parse(compare.stdout) as { behaviour: string; comparison: Record<string, unknown>[] };
    expect(compared.behaviour).toBe('regressed');
    for (const entry of compared.comparison) {
      expect(Object.keys(entry)).toEqual(
        expect.arrayContaining(['check', 'metric', 'baseline', 'candidate', 'change', 'low', 'high', 'verdict']),
      );
    }
    // Asked together in rounds: the 12 questions passing on both sides answer the same and are
    // asked once a side; the 8 that differ between the sides all 3 times: 12 + 8 × 3 = 36 a side.
    // The suite's figure reads the same number from every question (one each), so the 8 asked more
    // often weigh no more: the candidate passes 12 of its 20 questions.
    expect(compared.comparison.find((e) => e.check === '*' && e.metric === 'pass-rate')).toMatchObject({
      baseline: { value: 1, n: 20 },
      candidate: { value: 12 / 20, n: 20 },
      verdict: 'regressed',
    });

    // On a Node.js older than engines says: one line naming both versions, not a syntax error.
    const older = join(folder, 'older-node.cjs');
    writeFileSync(
      older,
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '18.20.8' } });\n",
    );
    const old = await run(bin, ['deploy', '--json'], folder, { NODE_OPTIONS: `--require ${older}` });
    expect(old.exitCode).toBe(3);
    expect(old.stderr).toBe(
      `error: claw-deploy needs Node.js ${installed.engines.node.slice(2)} or later; this is Node.js 18.20.8.\n`,
    );
    expect(JSON.parse(old.stdout)).toMatchObject({ outcome: 'error', 'exit-code': 3 });
  }, 60_000);
});
