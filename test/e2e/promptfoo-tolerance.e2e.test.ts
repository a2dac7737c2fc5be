// A tolerance in a promptfoo config (`metadata.tolerance` on defaultTest, the suite's), through the
// bin over dist/: `claw-deploy compare` of two Claws on the simulator's behaviour mode, the
// candidate failing 8 of 20 questions. With no tolerance on the pass rate, a regression; with one
// wider than the drop, not; a mistake in it is one error naming the file and the line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { behavingClaw, failsFirst } from '../sim/behaviour.ts';
import { base, oneJsonObject, runCli } from './cli-run.ts';
import { simulatorPerTest } from './service.ts';

const start = simulatorPerTest();

/** A promptfoo config of questions q1…q20, 3 repeats each, passing on `PASS:`, with defaultTest's tolerance. */
const config = (tolerance: string) => `prompts: ['{{q}}']
evaluateOptions: {repeat: 3}
defaultTest:
  assert: [{type: starts-with, value: 'PASS:'}]
  metadata:
    owner: support
    tolerance: ${tolerance}
tests:
  - vars:
      q: [${Array.from({ length: 20 }, (_, i) => `q${i + 1}`).join(', ')}]
`;

describe('a tolerance in a promptfoo config', () => {
  it("decides the suite's verdict: regressed without one, not past one wider than the drop", async () => {
    // Each answer held 30 ms and latency may move 100%: the machine's jitter is never the Claw's.
    const sim = await start({ holdMs: 30 });
    sim.addClaw('prod', behavingClaw({ passRates: [1] }));
    sim.addClaw('next', behavingClaw({ passRates: failsFirst(8) }));
    const cwd = mkdtempSync(join(tmpdir(), 'claw-tolerance-'));
    const compare = async (tolerance: string) => {
      writeFileSync(join(cwd, 'promptfooconfig.yaml'), config(tolerance));
      const run = await runCli(
        [
          'compare',
          ...base(sim),
          '--checks',
          'promptfooconfig.yaml',
          '--claw-id',
          'next',
          '--baseline',
          'prod',
          '--json',
        ],
        { cwd },
      );
      const result = oneJsonObject(run);
      // A refused config compares nothing: no entries.
      const entries = (result.comparison ?? []) as { check: string; metric: string; verdict: string; high: number }[];
      return { run, result, suite: entries.find((e) => e.check === '*' && e.metric === 'pass-rate')! };
    };

    const strict = await compare('{latency: 100%}');
    expect(strict.run.code).toBe(1);
    expect(strict.result.behaviour).toBe('regressed');
    // Asked together in rounds: the 12 questions passing on both sides answer the same and are
    // asked once a side; the 8 that differ between the sides all 3 times. The suite's figure reads
    // one from every question, so those 8 weigh no more: the candidate passes 12 of 20.
    expect(strict.suite).toMatchObject({
      verdict: 'regressed',
      baseline: { value: 1, n: 20 },
      candidate: { value: 12 / 20, n: 20 },
    });

    // The same runs' drop (40 points) lies inside a 50-point tolerance: no longer a regression.
    const tolerant = await compare('{latency: 100%, passRate: 50%}');
    expect(tolerant.suite.verdict).not.toBe('regressed');
    expect(tolerant.suite.high).toBeGreaterThan(-0.5);
    expect(tolerant.result.behaviour).not.toBe('regressed');
    expect(tolerant.run.code).toBe(0);

    const wrong = await compare('{latency: 100%, pass-rate: 50%}');
    expect(wrong.run.code).toBe(2);
    expect(wrong.result.message).toBe(
      "promptfooconfig.yaml, line 7: unknown key 'pass-rate' in 'metadata.tolerance': did you mean 'passRate'? expected 'passRate', 'latency', 'unjudged', 'score'.",
    );
  });
});
