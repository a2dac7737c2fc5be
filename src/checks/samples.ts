// What a comparison keeps of each attempt (result.ts's AttemptSample), built by the gate: which
// judge answered (a hash of the grading prompt beside the model it named), and the attempts a run
// never made, counted as unjudged so n stays the check's `repeat` on each side.
import { createHash } from 'node:crypto';
import type { GradedAssertion, RecipeAssertion } from './assertions.js';
import { TEMPLATE_VERSION } from './judge.js';
import { judgeIdentity } from './judge-spec.js';
import type { AttemptSample, CheckEntry } from './result.js';

/**
 * A short hash of what the judge is asked besides the reply: the template's version, the judge's
 * identity (address, model, parameters; never its key) and the assertion as written. Two sides
 * graded under different hashes were graded by different judges.
 */
export function gradingPromptHash(assertion: GradedAssertion | RecipeAssertion): string {
  const { judge, ...asked } = assertion;
  const material = JSON.stringify({ template: TEMPLATE_VERSION, judge: judgeIdentity(judge), asked });
  return createHash('sha256').update(material).digest('hex').slice(0, 16);
}

/**
 * Attempts a comparison's run planned and never made (a cancel, the deadline, a failing chat):
 * unjudged, never a pass. `planned` is `repeat` unless the run asked in rounds planned fewer.
 */
export function padSamples(entry: CheckEntry, planned = entry.repeat): void {
  const samples = (entry.samples ??= []);
  while (samples.length < planned) samples.push({ outcome: 'unjudged' });
}

/** The sample of one attempt that ended. */
export function sampleOf(
  kind: 'pass' | 'failure' | 'error',
  latency: { latencyMs: number; latencyLowMs: number } | undefined,
  judged: { score?: number; model?: string; promptHash?: string },
): AttemptSample {
  const outcome = kind === 'pass' ? 'pass' : kind === 'failure' ? 'fail' : 'unjudged';
  const timed = latency !== undefined && outcome !== 'unjudged';
  return {
    outcome,
    ...(timed ? { latencyMs: latency.latencyMs } : {}),
    // A task's reply came between the two: kept only when they differ (a synchronous reply is exact).
    ...(timed && latency.latencyLowMs < latency.latencyMs ? { latencyLowMs: latency.latencyLowMs } : {}),
    ...(judged.score !== undefined ? { score: judged.score } : {}),
    ...(judged.promptHash
      ? { judge: { promptHash: judged.promptHash, ...(judged.model ? { model: judged.model } : {}) } }
      : {}),
  };
}
