// The simulator's behaviour mode: a Claw whose reply to each question passes with a set chance,
// each reply taking a log-normally distributed time, and deployments that change both. One mode
// for the simulator (server.ts answers by it over HTTP), the tests, the benchmark (which draws
// attempts from it directly) and users (`npm run sim`, docs/comparing.md).
//
//   sim.addClaw('c1', behavingClaw({ passRates: [0.9] }));          // every question passes 9 times in 10
//   sim.deployBrings('c1', { passRates: [0.8], latencyMs: 1200 });  // the next triggered deployment changes that
//   sim.liveBehaviour('c1');                                        // what the Claw answers by now
//
// A deployment's change takes effect once that deployment has finished (not while it runs, not if
// it failed) and lasts until it is rolled back. Everything is seeded: the same seed, the same run.
import lognormal from '@stdlib/random-base-lognormal';
import { seededUniform } from '../../src/compare/distributions.ts';
import type { Attempt, CheckRun } from '../../src/compare/types.ts';
import type { SimClaw } from './server.ts';

export interface BehaviourProfile {
  /**
   * The chance (0 to 1) that the reply to a question passes: a list cycled over the questions by
   * their number (the digits ending the question, `q7` is 7; a hash of the text when none do), or
   * a function of the question's text.
   */
  passRates: number[] | ((question: string) => number);
  /** The median reply time (ms; default 800) and the spread of its logarithm (sigma; default 0.5). */
  latencyMs?: number;
  latencySigma?: number;
  /** The chance an attempt cannot be judged: its task ends `failed` (task mode) or its answer is a 500 (sync). */
  unjudgedRate?: number;
  /** The seed of the draws (default 1). */
  seed?: number;
}

/** What a deployment brings: the fields it changes of the profile live when it was triggered. */
export type BehaviourChange = Partial<BehaviourProfile>;

export const DEFAULT_LATENCY_MS = 800;
export const DEFAULT_LATENCY_SIGMA = 0.5;

/** The benchmark's reference: 80% of questions near-certain (0.99), 20% flaky (0.54): 0.90 overall. */
export function referenceBehaviour(
  drop = 0,
  latencyMs = DEFAULT_LATENCY_MS,
): BehaviourProfile & { passRates: number[] } {
  const rates = [0.99, 0.99, 0.99, 0.99, 0.54].map((p) => p * (1 - drop));
  return { passRates: rates, latencyMs, latencySigma: 0.5 };
}

/**
 * A Claw in behaviour mode, for `sim.addClaw`: it answers by `profile`, and its deployments
 * triggered through the API bring `changes` in turn (the first deployment the first change...).
 * `sync` (the default) answers at once; `task` through a task lasting the drawn reply time.
 */
export function behavingClaw(
  profile: BehaviourProfile,
  changes: BehaviourChange[] = [],
  mode: 'sync' | 'task' = 'sync',
): Partial<SimClaw> {
  return { chat: { mode, behaviour: profile }, nextBehaviours: [...changes] };
}

/** The chance a question passes: by the number ending its text (or its hash), or the profile's function of it. */
export function chanceOf(profile: BehaviourProfile, question: string | number): number {
  const rates = profile.passRates;
  if (typeof rates === 'function') return rates(typeof question === 'number' ? `q${question}` : question);
  return rates[questionNumber(question) % rates.length];
}

function questionNumber(question: string | number): number {
  if (typeof question === 'number') return question;
  let end = question.length;
  while (end > 0 && question.charCodeAt(end - 1) >= 48 && question.charCodeAt(end - 1) <= 57) end--;
  const digits = question.slice(end);
  return digits && digits.length <= 9 ? Number(digits) : hashOf(question);
}

/** FNV-1a of a text: a question's or a stream's stable number. */
export function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** One stream of draws: whether a question passes, whether an attempt is unjudged, how long a reply takes. */
export function behaving(profile: BehaviourProfile, seed: number) {
  const uniform = seededUniform(seed);
  const median = profile.latencyMs ?? DEFAULT_LATENCY_MS;
  const latency = lognormal.factory(Math.log(median), profile.latencySigma ?? DEFAULT_LATENCY_SIGMA, {
    prng: uniform,
  });
  return {
    passes: (question: string | number) => uniform() < chanceOf(profile, question),
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

/** A checks file of `questions` checks (`q1`…), each `repeat` times, passing on a reply that starts `PASS:`. */
export function questionsFile(questions: number, repeat: number, extra = ''): string {
  const checks = Array.from(
    { length: questions },
    (_, i) =>
      `  - name: q${i + 1}\n    send: q${i + 1}\n    assert:\n      - type: starts-with\n        value: 'PASS:'\n`,
  ).join('');
  return `defaults:\n  timeout: 10s\n  repeat: ${repeat}\n${extra}checks:\n${checks}`;
}

/** The questions from `q1` to `q<n>` fail for sure, the rest pass: a release that broke n of them. */
export const failsFirst =
  (n: number) =>
  (question: string): number =>
    Number(question.slice(1)) <= n ? 0 : 1;
