// compare --baseline-file against a large saved run, through the package's bin (dist/): a 4 MiB
// run of 1,160 checks × 100 timed attempts against a suite of 10 checks; wall time and peak memory
// (/usr/bin/time's maximum resident size when there, else the wall time alone). Measures; never fails.
// `node --import ./test/support/src-loader.ts test/bench/compare-saved-run.ts [path/to/claw-deploy.cjs]`
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { behavingClaw, questionsFile } from '../sim/behaviour.ts';
import { DEMO_KEY, Simulator } from '../sim/server.ts';
import { savedRun } from '../support/saved-run.ts';

export async function measureSavedRun(cli: string): Promise<string> {
  const sim = new Simulator({ speed: 20 });
  await sim.start(0);
  sim.addClaw('prod', behavingClaw({ passRates: [1] }));
  const cwd = mkdtempSync(join(tmpdir(), 'claw-saved-'));
  writeFileSync(join(cwd, 'checks.yml'), questionsFile(10, 3));
  writeFileSync(join(cwd, 'saved.json'), savedRun(1160, 100));
  const args = [cli, 'compare', '--base-url', `${sim.url}/v1`, '--poll-interval', '100ms', '--timeout', '300s'];
  args.push('--checks', 'checks.yml', '--claw-id', 'prod', '--baseline-file', 'saved.json');
  const timed = existsSync('/usr/bin/time');
  const started = performance.now();
  // Not spawnSync: the simulator answers from this process.
  const run = await new Promise<{ stderr: string; status: number | null }>((done) => {
    const child = spawn(timed ? '/usr/bin/time' : process.execPath, timed ? ['-v', process.execPath, ...args] : args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', CLAW_DEPLOY_API_KEY: DEMO_KEY },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.resume();
    child.on('close', (status) => done({ stderr, status }));
  });
  const ms = performance.now() - started;
  await sim.stop();
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1];
  return `compare --baseline-file, 4 MiB saved run (116,000 attempts) against 10 checks: exit ${run.status}, ${(ms / 1000).toFixed(1)} s${rss ? `, peak ${Math.round(Number(rss) / 1024)} MB` : ''}`;
}

if (import.meta.url === `file://${process.argv[1]}`)
  console.log(await measureSavedRun(resolve(process.argv[2] ?? 'bin/claw-deploy.cjs')));
