// A Claw's behaviour as a set of chances: each question passes with its own probability and each
// reply takes a log-normally distributed time, from a seed. The simulator answers by it (a
// deployment can bring a new profile) and the comparison benchmark draws attempts from it.
import lognormal from '@stdlib/random-base-lognormal';
import { seededUniform } from '../../src/compare/distributions.ts';
import type { Attempt, CheckRun } from '../../src/compare/types.ts';

export interface BehaviourProfile {
  /** The chance each question passes, by question number (cycled when there are more questions). */
  passRates: number[];
  /** The median reply time and the spread of its logarithm (sigma). */
  latencyMs: number;
  latencySigma: number;
  /** The chance an attempt cannot be judged (an error or a timeout). */
  unjudgedRate?: number;
}

/** The benchmark's reference: 80% of questions near-certain (0.99), 20% flaky (0.54): 0.90 overall. */
export function referenceBehaviour(drop = 0, latencyMs = 800): BehaviourProfile {
  const rates = [0.99, 0.99, 0.99, 0.99, 0.54].map((p) => p * (1 - drop));
  return { passRates: rates, latencyMs, latencySigma: 0.5 };
}

/** One Claw's draws: whether question q passes, how long a reply takes. */
export function behaving(profile: BehaviourProfile, seed: number) {
  const uniform = seededUniform(seed);
  const latency = lognormal.factory(Math.log(profile.latencyMs), profile.latencySigma, { prng: uniform });
  return {
    passes: (question: number) => uniform() < profile.passRates[question % profile.passRates.length],
    unjudged: () => uniform() < (profile.unjudgedRate ?? 0),
    latencyMs: () => latency(),
  };
}

/** A check's attempts drawn from a profile: `questions` × `repeats`, every attempt made. */
export function drawCheck(
  check: string,
  profile: BehaviourProfile,
  questions: number,
  repeats: number,
  seed: number,
): CheckRun {
  const claw = behaving(profile, seed);
  const attempts: Attempt[] = [];
  for (let q = 0; q < questions; q++)
    for (let r = 0; r < repeats; r++) {
      const latencyMs = claw.latencyMs();
      if (claw.unjudged()) attempts.push({ question: `q${q}`, outcome: 'unjudged' });
      else attempts.push({ question: `q${q}`, outcome: claw.passes(q) ? 'pass' : 'fail', latencyMs });
    }
  return { check, attempts };
}
