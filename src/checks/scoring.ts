// A turn's verdict, scored as promptfoo scores a test case: each assertion gives a pass and a score
// (0..1), weighted (`weight`, default 1; a weight of 0 never fails); the turn's score is the
// weighted mean; it passes when every assertion passes, or, with a `threshold`, when the score
// reaches it. `assert-set` groups assertions the same way, with a threshold of its own; `metric`
// names scores. A checks file in the native format has none of these, and its verdicts are what
// they were: every assertion must hold. The judge is asked only while its verdict can still
// change the outcome (a turn that has failed for certain costs no judge call, unless a max-score
// beside it compares every score: `gradeAll`); a judge or a script that cannot answer makes the
// turn an error, never a failure.
import {
  type Assertion,
  type GradedAssertion,
  type PlainAssertion,
  type RecipeAssertion,
  assertionName,
  describeAssertion,
  holds,
  isModelGraded,
  measured,
} from './assertions.js';
import type { Script, ScriptResult, ScriptRunner } from './script.js';
import { clip } from '../shared/format.js';
import type { ReplyLatency } from '../conversation/ask.js';

/** What promptfoo adds to any assertion. */
export interface Scoring {
  /** The assertion's share of the turn's score (default 1); 0 records a score and never fails. */
  weight?: number;
  /** A name the score is reported under. */
  metric?: string;
  /** Applied to the reply before this assertion sees it. */
  transform?: Script;
  /** promptfoo's `threshold` on an `llm-rubric`: the judge's pass and a score of at least this. */
  gradeThreshold?: number;
  /** The assertion as the file wrote it (values rendered), for the output file. */
  written?: Record<string, unknown>;
}

/** `javascript`: a function of the reply returns a boolean, a score, or {pass, score, reason}. */
export interface ScriptAssertion {
  type: 'javascript';
  negate: boolean;
  script: Script;
  /** A returned number passes at this or above (default: above 0). */
  threshold?: number;
  /** promptfoo's `config`, handed to the function as `context.config`. */
  config?: Record<string, unknown>;
}

/** `assert-set`: assertions scored together, passing by all of them or by `threshold`. */
export interface AssertSet {
  type: 'assert-set';
  negate: false;
  assert: TurnAssertion[];
  threshold?: number;
}

export type TurnAssertion = (Assertion | ScriptAssertion | AssertSet) & Scoring;

/** One assertion's result (an assert-set's holds its members'). */
export interface Component {
  pass: boolean;
  score: number;
  reason: string;
  /** The assertion, as written or as described. */
  assertion: Record<string, unknown>;
  components?: Component[];
  namedScores?: Record<string, number>;
  namedScoreWeights?: Record<string, number>;
}

/** The turn's whole grading: what promptfoo calls a GradingResult. */
export interface Grading {
  pass: boolean;
  score: number;
  reason: string;
  namedScores: Record<string, number>;
  namedScoreWeights: Record<string, number>;
  components: Component[];
}

/** A judge's verdict on one graded assertion (`passed` already inverted by `not-`). */
export type GradeOutcome =
  | { kind: 'error'; reason: string }
  | { kind: 'verdict'; passed: boolean; reason: string; figures: string; score?: number };

export interface ScoreTools {
  /** Asks the judge about the reply as `text` (a transformed reply, when the assertion transforms). */
  grade(assertion: GradedAssertion | RecipeAssertion, text: string): Promise<GradeOutcome>;
  runScript: ScriptRunner;
  /** Milliseconds left of the attempt: a script's own timeout. */
  remainingMs(): number;
  /** What a script's `context` holds besides `config`: prompt, vars, test. */
  context: Record<string, unknown>;
}

export interface ScoredTurn {
  assert: TurnAssertion[];
  threshold?: number;
  transform?: Script;
  /** Every assertion graded, as promptfoo grades them, even once the turn has failed (for max-score). */
  gradeAll?: boolean;
}

export type TurnOutcome =
  | { kind: 'pass'; grading: Grading }
  | { kind: 'failure'; detail: string; grading: Grading }
  | { kind: 'error'; detail: string; grading?: Grading };

/** A leaf's result, with the line a failure reports. */
type Leaf = Component & { detail: string };
type Lookup = (a: TurnAssertion) => Leaf | 'pending' | undefined;

const PASSED = 'Assertion passed';

/** Scores the reply to one turn. */
export async function scoreTurn(
  turn: ScoredTurn,
  reply: string,
  latency: number | ReplyLatency,
  tools: ScoreTools,
): Promise<TurnOutcome> {
  let output: unknown = reply.trim();
  if (turn.transform) {
    const transformed = await transform(turn.transform, output, tools);
    if ('error' in transformed) return { kind: 'error', detail: transformed.error };
    output = transformed.value;
  }
  const leaves = new Map<TurnAssertion, Leaf | 'pending'>();
  const inputs = new Map<TurnAssertion, unknown>();
  // Everything but the judge, in order; a transform or script that cannot finish is an error.
  for (const a of flatten(turn.assert)) {
    let input = output;
    if (a.transform) {
      const transformed = await transform(a.transform, output, tools);
      if ('error' in transformed) return { kind: 'error', detail: transformed.error };
      input = transformed.value;
    }
    inputs.set(a, input);
    if (isModelGraded(a as Assertion)) {
      leaves.set(a, 'pending');
      continue;
    }
    const leaf = await runLeaf(a, input, latency, tools);
    if ('error' in leaf) return { kind: 'error', detail: leaf.error };
    leaves.set(a, leaf);
  }
  // Then the judge, one assertion at a time, while its verdict can still change the outcome (or all, for max-score).
  for (const [a, state] of leaves) {
    if (state !== 'pending') continue;
    const best = aggregate(turn.assert, turn.threshold, (x) => {
      const s = leaves.get(x);
      return s === 'pending' ? BEST_CASE : s;
    });
    if (!best.pass && !turn.gradeAll) break;
    const graded = a as (GradedAssertion | RecipeAssertion) & Scoring;
    const verdict = await tools.grade(graded, asText(inputs.get(a)));
    if (verdict.kind === 'error') return { kind: 'error', detail: verdict.reason };
    leaves.set(a, gradedLeaf(graded, verdict));
  }
  const lookup: Lookup = (x) => {
    const s = leaves.get(x);
    return s === 'pending' ? undefined : s;
  };
  if (turn.assert.length === 0) {
    // promptfoo's "No assertions": a reply is all such a turn asks for.
    const grading = {
      pass: true,
      score: 1,
      reason: 'No assertions',
      namedScores: {},
      namedScoreWeights: {},
      components: [],
    };
    return { kind: 'pass', grading };
  }
  const result = aggregate(turn.assert, turn.threshold, lookup);
  const grading: Grading = {
    pass: result.pass,
    score: result.score,
    reason: result.reason,
    namedScores: result.namedScores ?? {},
    namedScoreWeights: result.namedScoreWeights ?? {},
    components: result.components ?? [],
  };
  return result.pass ? { kind: 'pass', grading } : { kind: 'failure', detail: result.detail, grading };
}

/** Every assertion, sets opened, in order. */
function flatten(list: TurnAssertion[]): TurnAssertion[] {
  return list.flatMap((a) => (a.type === 'assert-set' ? flatten(a.assert) : [a]));
}

/** Whether the turn has anything beyond the native format's "every assertion holds". */
export function usesJudge(list: TurnAssertion[]): boolean {
  return flatten(list).some((a) => isModelGraded(a as Assertion));
}

/** Text for a string assertion: a transformed value that is not text is compared as its JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}

async function transform(
  script: Script,
  input: unknown,
  tools: ScoreTools,
): Promise<{ value: unknown } | { error: string }> {
  const result = await tools.runScript(script, input, { ...tools.context }, tools.remainingMs());
  if (result.kind === 'unfinished') return { error: `transform ${script.label}: ${result.message}` };
  if (result.kind === 'threw') return { error: `transform ${script.label} failed: ${result.message}` };
  if (result.value === null || result.value === undefined)
    return { error: `transform ${script.label} returned nothing: expected the value the assertions check` };
  return { value: result.value };
}

async function runLeaf(
  a: TurnAssertion,
  input: unknown,
  latency: number | ReplyLatency,
  tools: ScoreTools,
): Promise<Leaf | { error: string }> {
  const written = a.written ?? describe(a);
  let leaf: Leaf;
  if (a.type === 'javascript') {
    const result = await tools.runScript(
      a.script,
      input,
      { ...tools.context, ...(a.config ? { config: a.config } : {}) },
      tools.remainingMs(),
    );
    if (result.kind === 'unfinished') return { error: `javascript ${a.script.label}: ${result.message}` };
    leaf = scriptLeaf(a, result, written);
  } else {
    const plain = a as PlainAssertion;
    const text = asText(input);
    const pass = holds(plain, text, latency);
    const detail = `${describeAssertion(plain)} did not hold${measured(plain, text, latency)}`;
    leaf = { pass, score: pass ? 1 : 0, reason: pass ? PASSED : detail, assertion: written, detail };
  }
  return a.weight === 0 ? { ...leaf, pass: true } : leaf;
}

/** A script's answer, read as promptfoo reads it: a boolean, a score, or a GradingResult. */
function scriptLeaf(a: ScriptAssertion, result: ScriptResult, written: Record<string, unknown>): Leaf {
  const name = `${a.negate ? 'not-' : ''}javascript ${a.script.label}`;
  const failed = (reason: string): Leaf => ({
    pass: false,
    score: 0,
    reason,
    assertion: written,
    detail: `${name}: ${reason}`,
  });
  if (result.kind !== 'returned')
    return failed(`Custom function threw error: ${result.kind === 'threw' ? clip(result.message, MAX_REASON) : ''}`);
  const value = result.value;
  const returned = (raw: boolean): string => `Custom function returned ${raw}`;
  if (typeof value === 'boolean') {
    const pass = value !== a.negate;
    return {
      pass,
      score: pass ? 1 : 0,
      reason: pass ? PASSED : returned(value),
      assertion: written,
      detail: `${name} did not hold (it returned ${value})`,
    };
  }
  if (typeof value === 'number') {
    const raw = a.threshold === undefined ? value > 0 : value >= a.threshold;
    const pass = raw !== a.negate;
    return {
      pass,
      score: value,
      reason: pass ? PASSED : returned(raw),
      assertion: written,
      detail: `${name} did not hold (it returned ${value})`,
    };
  }
  if (isGradingResult(value)) {
    const pass = value.pass !== a.negate;
    const reason = pass === value.pass ? clip(value.reason, MAX_REASON) : pass ? PASSED : returned(value.pass);
    return {
      pass,
      score: value.score,
      reason,
      assertion: written,
      detail: `${name} did not hold: ${JSON.stringify(reason)}`,
    };
  }
  return failed(
    `Custom function threw error: Custom function must return a boolean, number, or GradingResult object. Got type ${typeof value}: ${JSON.stringify(value)?.slice(0, 200)}`,
  );
}

/** The most of a script's own reason (or error) kept: it lands in the summary, JUnit and the output. */
const MAX_REASON = 2000;

function isGradingResult(value: unknown): value is { pass: boolean; score: number; reason: string } {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.pass === 'boolean' && typeof v.score === 'number' && typeof v.reason === 'string';
}

/** A judge's verdict as promptfoo scores it: `not-` inverts the score too; a threshold needs pass and score. */
function gradedLeaf(
  a: (GradedAssertion | RecipeAssertion) & Scoring,
  verdict: Extract<GradeOutcome, { kind: 'verdict' }>,
): Leaf {
  const raw = a.negate ? !verdict.passed : verdict.passed;
  let rawScore = verdict.score ?? (raw ? 1 : 0);
  if (a.type === 'factuality') rawScore = raw ? 1 : 0;
  const rawPass = a.gradeThreshold === undefined ? raw : raw && rawScore >= a.gradeThreshold;
  const pass = a.weight === 0 || rawPass !== a.negate;
  const score = a.negate ? Math.min(1, Math.max(0, 1 - rawScore)) : rawScore;
  const figures =
    a.gradeThreshold === undefined ? verdict.figures : ` (score ${rawScore}, threshold ${a.gradeThreshold})`;
  const detail = `${describeAssertion(a)} did not hold${figures}: ${verdict.reason}`;
  return { pass, score, reason: verdict.reason, assertion: a.written ?? describe(a), detail };
}

/** A pending judge's best outcome: what "can it still pass?" assumes. */
const BEST_CASE: Leaf = { pass: true, score: 1, reason: '', assertion: {}, detail: '' };

interface Aggregate extends Leaf {
  namedScores?: Record<string, number>;
  namedScoreWeights?: Record<string, number>;
  components?: Component[];
}

/** promptfoo's AssertionsResult: the weighted mean, pass by all or by threshold, named scores. */
function aggregate(list: TurnAssertion[], threshold: number | undefined, lookup: Lookup): Aggregate {
  let total = 0;
  let weights = 0;
  const sums: Record<string, number> = {};
  const sumWeights: Record<string, number> = {};
  const components: Component[] = [];
  let failed: Leaf | undefined;
  // A judge never asked (the turn had already failed) fails nothing of its own: the failure named
  // is the first assertion that did fail, wherever it is listed.
  let ungraded: Leaf | undefined;
  for (const a of list) {
    const found = a.type === 'assert-set' ? setResult(a, lookup) : lookup(a);
    const result: Leaf =
      !found || found === 'pending'
        ? { pass: false, score: 0, reason: 'not graded', assertion: {}, detail: '' }
        : found;
    if (found && found !== 'pending') components.push(strip(result));
    const weight = a.weight ?? 1;
    total += result.score * weight;
    weights += weight;
    if (a.metric) {
      sums[a.metric] = (sums[a.metric] ?? 0) + result.score * weight;
      sumWeights[a.metric] = (sumWeights[a.metric] ?? 0) + weight;
    }
    const inner = result as Aggregate;
    for (const [name, score] of Object.entries(inner.namedScores ?? {})) {
      if (name === a.metric) continue;
      const w = (inner.namedScoreWeights?.[name] ?? 1) * weight;
      sums[name] = (sums[name] ?? 0) + score * w;
      sumWeights[name] = (sumWeights[name] ?? 0) + w;
    }
    if (!result.pass && result.detail) failed ??= result;
    else if (!result.pass) ungraded ??= result;
  }
  failed ??= ungraded;
  const score = weights > 0 ? total / weights : 0;
  let pass = !failed;
  let reason = failed?.reason ?? 'All assertions passed';
  let detail = failed?.detail ?? '';
  if (typeof threshold === 'number') {
    pass = score >= threshold;
    reason = `Aggregate score ${score.toFixed(2)} ${pass ? '≥' : '<'} ${threshold} threshold`;
    detail = `the weighted score ${round(score)} is below the threshold ${threshold}${failed ? ` (${failed.detail})` : ''}`;
  }
  const namedScores = Object.fromEntries(
    Object.entries(sums).map(([name, sum]) => [name, sumWeights[name] > 0 ? sum / sumWeights[name] : 0]),
  );
  return {
    pass,
    score,
    reason,
    detail,
    assertion: {},
    namedScores,
    ...(Object.keys(sumWeights).length > 0 ? { namedScoreWeights: sumWeights } : {}),
    components,
  };
}

function setResult(set: AssertSet & Scoring, lookup: Lookup): Aggregate {
  const inner = aggregate(set.assert, set.threshold, lookup);
  const detail = set.threshold === undefined ? inner.detail : `assert-set: ${inner.detail}`;
  return { ...inner, detail, assertion: set.written ?? describe(set) };
}

function strip(leaf: Leaf): Component {
  const component: Component & { detail?: string } = { ...leaf };
  delete component.detail;
  return component;
}

const round = (n: number): number => Math.round(n * 100) / 100;

/** An assertion as the output file shows it, when the file did not say (the native format). */
function describe(a: TurnAssertion): Record<string, unknown> {
  if (a.type === 'assert-set')
    return { type: 'assert-set', ...(a.threshold === undefined ? {} : { threshold: a.threshold }) };
  if (a.type === 'javascript') return { type: `${a.negate ? 'not-' : ''}javascript`, value: a.script.label };
  return {
    type: assertionName(a as Assertion),
    value: describeAssertion(a as Assertion)
      .slice(assertionName(a as Assertion).length)
      .trim(),
  };
}
