// The realistic suite the comparison bench draws from (issue 47): per-question pass rates from a
// mixture (7 in 10 near-certain at 0.98, 2 in 10 flaky at 0.6, 1 in 10 near-never at 0.05), a
// per-question day-to-day noise on each side (a Claw better or worse at a question on a given day:
// its rate moved by a normal draw of spread `noise` on the log-odds scale), and reply times
// log-normal around a median of 800 ms, each question's median spread by `spread` on the log scale
// (the same question as slow on both sides), repeats spread by `sigma`. Seeded: one seed, one draw.
import { seededUniform } from '../../src/compare/distributions.ts';
import type { Attempt, Side } from '../../src/compare/types.ts';

export interface SuiteShape {
  questions: number;
  repeats: number;
  /** The spread of a repeat's log reply time (default 0.5). */
  sigma?: number;
  /** The spread of questions' median log reply times (default 0). */
  spread?: number;
  /** The per-question, per-side noise on the log-odds of passing (default 0). */
  noise?: number;
  /** The relative drop of every question's pass rate (0.2: 20% lower). */
  drop?: number;
  /** Reply times multiplied by this (1.1: 10% slower). */
  slower?: number;
  /** The candidate's repeats when they differ from the baseline's. */
  candidateRepeats?: number;
}

/** The mixture's rate of question q. */
export function questionRate(q: number): number {
  const k = q % 10;
  return k === 0 ? 0.05 : k <= 2 ? 0.6 : 0.98;
}

function normal(uniform: () => number): () => number {
  return () => {
    const u = Math.max(uniform(), 1e-300);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
}

const logit = (p: number) => Math.log(p / (1 - p));
const expit = (x: number) => 1 / (1 + Math.exp(-x));

/** One side of the suite: `changed` applies the drop and the slowdown. */
export function suiteSide(label: string, shape: SuiteShape, seed: number, changed = false): Side {
  const draw = normal(seededUniform(seed));
  const uniform = seededUniform(seed + 7_919);
  const questionMedian = normal(seededUniform(4_242));
  const attempts: Attempt[] = [];
  const repeats = changed && shape.candidateRepeats ? shape.candidateRepeats : shape.repeats;
  for (let q = 0; q < shape.questions; q++) {
    const medianMs = 800 * Math.exp((shape.spread ?? 0) * questionMedian()) * (changed ? (shape.slower ?? 1) : 1);
    const rate = questionRate(q) * (changed ? 1 - (shape.drop ?? 0) : 1);
    const today = expit(logit(rate) + (shape.noise ?? 0) * draw());
    for (let r = 0; r < repeats; r++) {
      const latencyMs = medianMs * Math.exp((shape.sigma ?? 0.5) * draw());
      attempts.push({ question: `q${q}`, outcome: uniform() < today ? 'pass' : 'fail', latencyMs });
    }
  }
  return { label, checks: [{ check: 'suite', attempts }] };
}

/** The per-question pass rates of the suite (before any drop): what the power line is given. */
export const suiteRates = (questions: number): number[] => Array.from({ length: questions }, (_, q) => questionRate(q));
