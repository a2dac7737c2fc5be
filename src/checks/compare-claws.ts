// promptfoo's select-best and max-score, across the Claws one run checks: promptfoo compares the
// outputs of one test from several providers; here the providers are the Claws that answered the
// test in this run (a fleet's Claws, or a production Claw beside its own preview). They run once
// every Claw of the group has answered, on each Claw's last reply, as promptfoo runs them after
// the eval (its evaluator.ts): select-best first, then max-score. A Claw not chosen fails, with a
// reason naming the Claw that was; the chosen one keeps its own verdict. A judge that cannot
// answer, or names no reply, makes the comparison an error for every Claw in it, never a pass.
// The replies are untrusted material: they go to the judge only inside promptfoo's prompt, each
// capped, and what comes back is read as an index and nothing else.
import type { Logger } from '../shared/clock.js';
import { clip } from '../shared/format.js';
import type { Check, CheckSuite, CompareAssertion } from './check.js';
import { type Judge, capText } from './judge.js';
import type { JudgeSpec } from './judge-spec.js';
import { SELECT_BEST_PROMPT } from './promptfoo/graders.js';
import { rubricMessages, stringified, tryParse } from './promptfoo/rubric.js';
import type { CheckEntry } from './result.js';
import type { Component, Grading } from './scoring.js';

export interface CompareTools {
  judgeFor?: (spec: JudgeSpec) => Judge;
  /** The step's deadline: the judge is asked by then. */
  deadline: number;
  log: Pick<Logger, 'info'>;
}

/** An entry whose last attempt answered every turn of the test: what a comparison reads. */
interface Answered {
  entry: CheckEntry;
  reply: string;
  grading: Grading;
}

/**
 * Decides the suite's select-best and max-score assertions for each group of Claws that compare
 * (the run's Claws, or each production Claw with its preview), changing the entries in place.
 */
export async function compareClaws(
  suite: CheckSuite,
  entries: CheckEntry[],
  groups: string[][],
  tools: CompareTools,
): Promise<void> {
  for (const check of suite.checks) {
    if (!check.compare?.length) continue;
    for (const group of groups) {
      const rows = group.flatMap((id) => entries.filter((e) => e.check === check.name && e.clawId === id));
      if (rows.length === 0) continue;
      // As promptfoo: select-best first, so max-score sees its result (and leaves it out).
      const ordered = [...check.compare].sort((a, b) => (a.type === b.type ? 0 : a.type === 'select-best' ? -1 : 1));
      for (const a of ordered) await compareOne(check, a, rows, tools);
    }
  }
}

async function compareOne(check: Check, a: CompareAssertion, rows: CheckEntry[], tools: CompareTools): Promise<void> {
  const answered = rows.flatMap((entry) => {
    const last = entry.last;
    const complete = last && !last.error && last.reply !== undefined && last.sent.length === check.turns.length;
    return complete && last.grading ? [{ entry, reply: last.reply!, grading: last.grading }] : [];
  });
  for (const row of answered) {
    // A test whose only assertions compare is, in promptfoo, an empty set of results before the
    // comparison: it passes with a score of 0 (a test with no assertion at all scores 1).
    const g = row.grading;
    if (g.components.length === 0 && g.reason === 'No assertions')
      Object.assign(g, { score: 0, reason: 'All assertions passed' });
  }
  if (answered.length < 2) {
    const who = answered.length === 1 ? `only ${answered[0].entry.clawId} answered it` : 'no Claw answered it';
    const reason = `${a.type} compares the replies of at least two Claws to this test, and ${who} in this run`;
    for (const row of answered) markError(row, a, reason, tools);
    return;
  }
  if (a.type === 'select-best') await selectBest(check, a, answered, tools);
  else maxScore(check, a, answered, tools);
}

/**
 * A reply as it stands among the others in promptfoo's prompt, each inside <Text index="n">…</Text>:
 * a reply that wrote those tags itself could close its own block and open one numbered as another
 * Claw's, so its tags are shown with a look-alike bracket (‹Text), which closes and opens nothing.
 */
function unforged(reply: string): string {
  // The full-width and small less-than signs and `&lt;` read as `<` to a model, so they are shown alike.
  return reply.replace(/(?:<|\uff1c|\ufe64|&lt;)(\s*\/?\s*text\b)/gi, '\u2039$1');
}

/** matchesSelectBest: the judge names the best reply by its index; that Claw passes, the others fail. */
async function selectBest(
  check: Check,
  a: Extract<CompareAssertion, { type: 'select-best' }>,
  answered: Answered[],
  tools: CompareTools,
): Promise<void> {
  const fail = (reason: string): void => answered.forEach((row) => markError(row, a, `select-best: ${reason}`, tools));
  const judge = tools.judgeFor?.(a.judge);
  if (!judge) return fail('judge unavailable: no judge was set up for this run');
  let messages;
  try {
    // promptfoo 0.123.1's context: the test's vars, then the criteria and the replies (JSON read
    // back as values), which no var can shadow.
    const context = {
      ...(check.origin?.vars ?? {}),
      criteria: a.criteria,
      outputs: answered.map((row) => tryParse(unforged(capText(row.reply)))),
    };
    messages = rubricMessages(a.rubricPrompt ?? SELECT_BEST_PROMPT, stringified(context));
  } catch (err) {
    return fail(`judge unavailable: its grading prompt: ${(err as Error).message}`);
  }
  const choice = await judge.select(messages, answered.length, tools.deadline);
  // The call is the comparison's, counted once: on the first Claw compared.
  const use = (answered[0].entry.judge ??= { calls: 0, cacheHits: 0, tokens: 0 });
  use.calls += choice.use.called ? 1 : 0;
  use.cacheHits += choice.use.cached ? 1 : 0;
  use.tokens += choice.use.tokens;
  use.model ??= choice.use.model;
  if (choice.kind === 'error') return fail(choice.reason);
  const winner = answered[choice.index].entry.clawId;
  tools.log.info(
    `⚖️ ${check.name}: select-best chose ${winner} among ${answered.map((r) => r.entry.clawId).join(', ')}`,
  );
  answered.forEach((row, index) => {
    const chosen = index === choice.index;
    const component: Component = {
      pass: chosen,
      score: chosen ? 1 : 0,
      reason: chosen ? `Output selected as the best: ${a.criteria}` : `Output not selected: ${a.criteria}`,
      assertion: a.written,
    };
    const criteria = JSON.stringify(clip(a.criteria, 80));
    merge(
      row,
      component,
      `select-best ${criteria} did not hold: the judge chose the reply of ${winner} as the best`,
      tools,
    );
  });
}

type MaxScore = Extract<CompareAssertion, { type: 'max-score' }>;

/** Each Claw's score over the test's other assertions, weighted by type, with what it was made of. */
function weightedScores(a: MaxScore, answered: Answered[]): { score: number; count: number; weights: number }[] {
  return answered.map((row) => {
    const relevant = row.grading.components.filter((c) => {
      const type = c.assertion.type;
      return type !== 'max-score' && type !== 'select-best';
    });
    let total = 0;
    let weights = 0;
    for (const c of relevant) {
      const weight = a.weights[String(c.assertion.type)] ?? 1;
      total += (c.score || 0) * weight;
      weights += weight;
    }
    const score = a.method === 'sum' ? total : weights > 0 ? total / weights : 0;
    return { score, count: relevant.length, weights };
  });
}

/** Why the scores rank nothing, when they do not: the error every Claw's max-score then gets. */
function unranked(answered: Answered[], scores: ReturnType<typeof weightedScores>): string | undefined {
  const missing = answered.find((_row, i) => scores[i].count === 0);
  if (missing) return `max-score: no other assertion of this test was scored for ${missing.entry.clawId}`;
  // Every weight 0: nothing was weighed, and promptfoo's score of 0 for each would hand the win
  // to the first Claw whatever the others scored.
  if (scores.every((sc) => sc.weights === 0))
    return "max-score: every assertion's weight is 0, so nothing was weighed: expected a weight above 0";
  // Weights as large as 1e308 add up past the largest number: a score of Infinity over Infinity
  // is NaN, which no comparison ranks, so the first Claw would win whatever it scored.
  const infinite = answered.find((_row, i) => !Number.isFinite(scores[i].score));
  if (infinite)
    return `max-score: the weighted score of ${infinite.entry.clawId} is ${scores[answered.indexOf(infinite)].score}, not a finite number: expected weights whose sum stays finite`;
  return undefined;
}

/** selectMaxScore: each Claw's score over the test's other assertions; the highest passes. */
function maxScore(check: Check, a: MaxScore, answered: Answered[], tools: CompareTools): void {
  const scores = weightedScores(a, answered);
  const problem = unranked(answered, scores);
  if (problem) {
    for (const row of answered) markError(row, a, problem, tools);
    return;
  }
  // promptfoo's tie-break: the first of the highest, in the run's order of the Claws.
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i].score > scores[best].score) best = i;
  const max = scores[best].score;
  const meets = a.threshold === undefined || max >= a.threshold;
  const winner = answered[best].entry.clawId;
  tools.log.info(
    `⚖️ ${check.name}: max-score ${meets ? `chose ${winner}` : `chose no Claw (the highest, ${max.toFixed(3)}, is below ${a.threshold})`} among ${answered.map((r, i) => `${r.entry.clawId} (${scores[i].score.toFixed(3)})`).join(', ')}`,
  );
  answered.forEach((row, index) => {
    const { score, count, weights } = scores[index];
    const chosen = index === best && meets;
    const below = score === max && !meets;
    const component: Component = {
      pass: chosen,
      score: chosen ? 1 : 0,
      reason: chosen
        ? `Selected as highest scoring output (score: ${score.toFixed(3)})`
        : below
          ? `Not selected - score ${score.toFixed(3)} below threshold ${a.threshold}`
          : `Not selected (score: ${score.toFixed(3)}, max: ${max.toFixed(3)})`,
      assertion: a.written,
      namedScores: { maxScore: score, assertionCount: count, totalWeight: weights },
    };
    const detail = below
      ? `max-score did not hold: the score ${score.toFixed(3)} is below the threshold ${a.threshold}`
      : score === max
        ? `max-score did not hold: the score ${score.toFixed(3)} ties with ${winner}'s, and the first of the highest in the run's order of the Claws is chosen`
        : `max-score did not hold: the score ${score.toFixed(3)} is below ${winner}'s ${max.toFixed(3)}`;
    merge(row, component, detail, tools);
  });
}

/**
 * A comparison's result merged into the Claw's, as promptfoo merges it: its component added, and
 * when it fails, the test fails with its reason and score.
 */
function merge(row: Answered, component: Component, detail: string, tools: CompareTools): void {
  const { entry, grading } = row;
  grading.components.push(component);
  if (component.namedScores) grading.namedScores = { ...grading.namedScores, ...component.namedScores };
  if (component.pass) return;
  // As promptfoo 0.123.1: select-best's reason always becomes the test's; max-score's only when
  // the test had passed until then.
  if (component.assertion.type !== 'max-score' || grading.pass) grading.reason = component.reason;
  grading.pass = false;
  grading.score = component.score;
  if (entry.passed) {
    entry.passed = false;
    entry.failures += 1;
    entry.failure = detail;
    tools.log.info(`❌ ${entry.clawId} · ${entry.check}: failed: ${detail}`);
  } else entry.failure ??= detail;
}

/** A comparison that could not be made: an error for the Claw, never its pass. */
function markError(row: Answered, a: CompareAssertion, reason: string, tools: CompareTools): void {
  const { entry, grading } = row;
  grading.components.push({ pass: false, score: 0, reason, assertion: a.written });
  grading.pass = false;
  grading.reason = reason;
  grading.score = 0;
  if (entry.passed) {
    entry.passed = false;
    entry.errors += 1;
    entry.failure = `error: ${reason}`;
    tools.log.info(`⚠️ ${entry.clawId} · ${entry.check}: error: ${reason}`);
  } else entry.failure ??= `error: ${reason}`;
}

/** The first comparison a suite asks for: what the one-Claw refusal names. */
export function firstCompare(suite: CheckSuite): CompareAssertion | undefined {
  return suite.checks.flatMap((c) => c.compare ?? [])[0];
}

/** The one error for a suite that compares Claws in a run that checks one Claw (`why` says where). */
export function oneClawRefusal(a: CompareAssertion, why: string): string {
  return `${a.where}: '${a.type}' compares the replies of several Claws to one test, and ${why}: only one Claw answers, so nothing is compared: expected llm-rubric with the criterion, or several Claws (a list of ids, '*', or a preview beside production).`;
}
