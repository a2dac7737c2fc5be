// A baseline saved once: `check --output before.json` on today's release, then `compare
// --baseline-file before.json` on the next, through the installed package's bin as a user runs it.
// The saved file keeps every attempt (no early stop), so the comparison counts the same n a side.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { behavingClaw, failsFirst, questionsFile } from '../sim/behaviour.ts';
import { DEMO_KEY } from '../sim/server.ts';
import { installPacked, runPacked } from './packed.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

describe('a baseline saved by check', () => {
  it('check --output before.json, then compare --baseline-file before.json finds the regression', async () => {
    const { bin, folder } = installPacked();
    const s = await start();
    const env = { CLAW_DEPLOY_API_KEY: DEMO_KEY, CLAW_DEPLOY_BASE_URL: `${s.url}/v1` };
    s.addClaw('prod', behavingClaw({ passRates: [1] }));
    s.addClaw('next', behavingClaw({ passRates: failsFirst(8) }));
    // min-pass 1: a check that stopped at its first pass would keep one attempt of three.
    writeFileSync(join(folder, 'checks.yml'), questionsFile(20, 3, '  min-pass: 1\n  tolerance:\n    latency: 100%\n'));

    const saved = await runPacked(
      bin,
      ['check', '--claw-id', 'prod', '--checks', 'checks.yml', '--output', 'before.json', '--timeout', '20s'],
      folder,
      env,
    );
    expect(saved.exitCode, saved.stderr).toBe(0);
    expect(saved.stderr).toContain('Every attempt of each check is made and kept: before.json can be');
    const file = JSON.parse(readFileSync(join(folder, 'before.json'), 'utf8')) as {
      results: { results: { metadata: { clawDeploy: { samples?: { outcome: string; latencyMs?: number }[] } } }[] };
    };
    for (const r of file.results.results) {
      expect(r.metadata.clawDeploy.samples).toHaveLength(3);
      for (const sample of r.metadata.clawDeploy.samples!)
        expect(sample).toMatchObject({ outcome: 'pass', latencyMs: expect.any(Number) });
    }

    const compare = await runPacked(
      bin,
      [
        'compare',
        '--claw-id',
        'next',
        '--baseline-file',
        'before.json',
        '--checks',
        'checks.yml',
        '--timeout',
        '20s',
        '--json',
      ],
      folder,
      env,
    );
    expect(compare.exitCode, compare.stderr).toBe(1);
    const compared = JSON.parse(compare.stdout) as {
      behaviour: string;
      message: string;
      comparison: Record<string, unknown>[];
    };
    expect(compared.behaviour).toBe('regressed');
    expect(compared.message).toContain('compared with the run saved in before.json (Claw prod)');
    // No question's answers vary on either side: the candidate is asked each once against the
    // saved answers, and each side compared once a question (the file still keeps all 3).
    expect(compared.comparison.find((e) => e.check === '*' && e.metric === 'pass-rate')).toMatchObject({
      baseline: { value: 1, n: 20 },
      candidate: { value: 0.6, n: 20 },
      verdict: 'regressed',
    });
    // Only the candidate was asked, each question once: the baseline came from the file.
    expect(s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/prod/messages')).toHaveLength(60);
    expect(s.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/next/messages')).toHaveLength(20);
  }, 60_000);
});
