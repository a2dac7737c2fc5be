// The checks' results as the comparison engine reads them (src/compare/): each check's samples on
// one side, its tolerances from the checks file; and what a comparison's verdict means for a step
// (`fail-on`). One adapter for every user: deploy with a baseline, previews and the command line.
import {
  type Comparison,
  type Detectable,
  type MetricResult,
  type Side,
  type Tolerances,
  type Verdict,
  compareSides,
  detectableDrop,
  estimatedRate,
  worstVerdict,
} from '../compare/index.js';
import type { CheckSuite } from './check.js';
import { type AnswerPair, type ShowAnswers, answersOf } from './answers.js';
import type { CheckEntry, ChecksResult } from './result.js';

/** One Claw's checks, run for a comparison (every attempt kept), as one side. */
export function sideOf(label: string, entries: CheckEntry[], suite?: CheckSuite): Side {
  const tolerances = new Map(suite?.checks.map((c) => [c.name, c.tolerance]) ?? []);
  return {
    label,
    checks: entries
      .filter((e) => e.samples !== undefined)
      .map((e) => {
        const tolerance = tolerances.get(e.check);
        return {
          check: e.check,
          ...(tolerance ? { tolerance } : {}),
          // A judge that named no model is named '' on both sides alike.
          attempts: e.samples!.map(({ judge, ...s }) => ({
            question: e.check,
            ...s,
            ...(judge ? { judge: { model: judge.model ?? '', promptHash: judge.promptHash } } : {}),
          })),
        };
      }),
  };
}

/** A Claw's entries of a run. */
export function entriesOf(result: ChecksResult, clawId: string): CheckEntry[] {
  return result.entries.filter((e) => e.clawId === clawId);
}

/**
 * Compares a baseline run with a candidate run. A run cut short (a cancel) is no evidence of
 * anything: nothing is compared, said in `reason`. `answers`: the replies side by side, for the
 * questions found worse (or every one, `show: 'all'`).
 */
export function compareRuns(
  baseline: { label: string; entries: CheckEntry[]; cancelled?: boolean },
  candidate: { label: string; entries: CheckEntry[]; cancelled?: boolean },
  suite?: CheckSuite,
  options: { level?: number; show?: ShowAnswers; timesApart?: string } = {},
): Compared {
  if (baseline.cancelled || candidate.cancelled) {
    const which = baseline.cancelled ? `the baseline (${baseline.label})` : `the candidate (${candidate.label})`;
    return { behaviour: '', metrics: [], reason: `${which} was cancelled before its checks ended: nothing compared` };
  }
  const compared = compareSides(
    sideOf(baseline.label, baseline.entries, suite),
    sideOf(candidate.label, candidate.entries, suite),
    {
      ...(suite?.tolerance ? { tolerance: suite.tolerance } : {}),
      ...(options.level === undefined ? {} : { level: options.level }),
      ...(options.timesApart ? { timesApart: options.timesApart } : {}),
    },
  );
  const answers = answersOf(compared.metrics, baseline, candidate, options.show ?? 'worse');
  return answers.length ? { ...compared, answers } : compared;
}

/** The worst of several comparisons' verdicts (a fleet's wave, several previews). */
export function worstBehaviour(behaviours: (Verdict | '')[]): Verdict | '' {
  return worstVerdict(behaviours.filter((b): b is Verdict => b !== ''));
}

/** `fail-on` read for a comparison: regression fails on `regressed`, inconclusive on either. */
export function comparisonFails(behaviour: Verdict | '', failOn: string): boolean {
  if (failOn === 'regression') return behaviour === 'regressed';
  if (failOn === 'inconclusive') return behaviour === 'regressed' || behaviour === 'inconclusive';
  return false;
}

/**
 * What the suite can find, said once before the first request: its questions and their repeats,
 * and, when a baseline run is at hand (a saved run), from that run's own rate for each check
 * (a check it lacks at the suite's average), never a fixed profile.
 */
export function suitePower(suite: CheckSuite, clawId?: string, baseline?: CheckEntry[]): Detectable {
  const checks = suite.checks.filter((c) => !clawId || !c.claws || c.claws.includes(clawId));
  // Different repeats per check: the fewest, so the line never promises more than the suite gives.
  const repeats = Math.min(...checks.map((c) => c.repeat));
  const tolerance = suite.tolerance?.passRate;
  const rates =
    baseline &&
    ratesOf(
      checks.map((c) => c.name),
      baseline,
    );
  return detectableDrop(checks.length, repeats, {
    ...(tolerance === undefined ? {} : { tolerance }),
    ...(rates ? { rates } : {}),
  });
}

/** Each check's rate in a baseline run (passes over judged attempts, never certain on a few); undefined when it has none of them. */
function ratesOf(names: string[], entries: CheckEntry[]): number[] | undefined {
  const byName = new Map(entries.filter((e) => e.samples?.length).map((e) => [e.check, e.samples!]));
  const known = names.map((name) => {
    const judged = (byName.get(name) ?? []).filter((s) => s.outcome !== 'unjudged');
    return judged.length ? estimatedRate(judged.filter((s) => s.outcome === 'pass').length, judged.length) : undefined;
  });
  const found = known.filter((r): r is number => r !== undefined);
  if (!found.length) return undefined;
  const average = found.reduce((a, b) => a + b, 0) / found.length;
  return known.map((r) => r ?? average);
}

/** `fail-on` as a comparison reads it (the preview's words, plus `inconclusive`). */
export type ComparisonFailOn = 'regression' | 'failure' | 'inconclusive' | 'never';

/** One side of a comparison as a command holds it: a run's entries for one Claw. */
export interface RunSide {
  label: string;
  entries: CheckEntry[];
  cancelled?: boolean;
}

export type Compared = Comparison & { reason?: string; answers?: AnswerPair[] };

/** One Claw's comparison; `clawId` is named in the outputs when a run compares several. */
export interface ClawComparison {
  clawId: string;
  compared: Compared;
}

/**
 * deploy with `baseline: before`: the checks run for a comparison on both sides, compared with the
 * suite's tolerances, and `fail-on` deciding what fails the gate. Built once by the run.
 */
export interface BehaviourGate {
  failOn: ComparisonFailOn;
  /** `level`: a look's share of the level (sequential.ts); the whole level by default. */
  compare(baseline: RunSide, candidate: RunSide, options?: { level?: number; timesApart?: string }): Compared;
  /** The suite's tolerances, for a look that may stop `unchanged`. */
  tolerance?: Tolerances;
}

/** Whether the gate fails: by the comparison, or (`failure`) by the checks' absolute rule. */
export function gateFails(failOn: ComparisonFailOn, passed: boolean, compared: Compared): boolean {
  if (failOn === 'failure') return !passed;
  return comparisonFails(compared.behaviour, failOn);
}

/** One line for the log and a step's message: the verdict and the metrics behind it. */
export function describeComparison(compared: Compared): string {
  if (compared.behaviour === '') return compared.reason ?? 'nothing was compared';
  // The rows that made the verdict: a suite-wide secondary row that could not tell (the p95 short of
  // replies, times measured apart) is shown in the table but never decides `behaviour`.
  const decides = (m: MetricResult) => m.primary || m.check !== '*' || m.verdict !== 'inconclusive';
  const named = compared.metrics
    .filter((m) => m.verdict === compared.behaviour && m.verdict !== 'unchanged' && decides(m))
    .slice(0, 3)
    .map(
      (m) =>
        `${m.check === '*' ? 'the suite' : JSON.stringify(m.check)}'s ${m.metric}${m.reason ? ` (${m.reason})` : ''}`,
    );
  return `behaviour ${compared.behaviour}${named.length ? `: ${named.join(', ')}` : ''}`;
}
