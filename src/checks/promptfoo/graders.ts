// promptfoo's graders beyond llm-rubric and factuality, as promptfoo 0.123.1 runs them: its
// prompts (copied from promptfoo's src/prompts/index.ts, src/prompts/grading.ts and
// src/external/prompts/ragas.ts), its answer reading, scoring and default thresholds (from its
// src/matchers/llmGrading.ts, src/matchers/rag.ts, src/matchers/similarity.ts,
// src/matchers/moderation.ts and src/assertions/*.ts). Each recipe returns the grader's verdict
// before `not-` (scoring.ts applies it, as promptfoo does). An answer that cannot be read is an
// error, never a verdict: the Claw is not failed for its grader's mistake.
import type { RubricPrompt } from '../rubric.js';
import { type RubricMessage, rubricMessages, stringified, tryParse } from './rubric.js';
import { afterThinking, firstBracedOnLine } from '../json-in-text.js';

/** What a recipe reads of its assertion (assertions.ts's RecipeAssertion, which the judge holds). */
export interface RecipeAssertion {
  type: 'model-graded-closedqa' | 'g-eval' | 'answer-relevance' | 'similar' | 'moderation';
  value: string | string[];
  threshold?: number;
  rubricPrompt?: RubricPrompt;
  /** g-eval's own prompts (promptfoo's `rubricPrompt: {steps, evaluate}`), each a template in place of promptfoo's. */
  gEvalPrompts?: GEvalPrompts;
}

/** g-eval's two templates as the config gives them (files loaded); a missing one is promptfoo's. */
export interface GEvalPrompts {
  steps?: string;
  evaluate?: string;
}

/** What a recipe may ask of its grader: a chat answer, embeddings, a moderation. Errors throw. */
export interface GraderTools {
  ask(messages: RubricMessage[]): Promise<{ text: string } | { problem: string }>;
  embed(texts: string[]): Promise<{ vectors: number[][] } | { problem: string }>;
  moderate(text: string): Promise<{ flags: string[] } | { problem: string }>;
}

export interface RecipeMaterial {
  /** The reply graded (after any transform). */
  output: string;
  /** The last message sent (promptfoo's rendered prompt). */
  input: string;
  /** The test's vars. */
  vars: Record<string, unknown>;
}

export type RecipeVerdict =
  { kind: 'pass' | 'fail'; reason: string; score: number } | { kind: 'error'; reason: string };

/** promptfoo's OPENAI_CLOSED_QA_PROMPT (src/prompts/grading.ts). */
export const CLOSED_QA_PROMPT = JSON.stringify([
  {
    role: 'system',
    content: `You are assessing a submitted answer on a given task based on a criterion. Here is the data:
[BEGIN DATA]
***
[Task]: {{input}}
***
[Submission]: {{completion}}
***
[Criterion]: {{criteria}}
***
[END DATA]
Does the submission meet the criterion? First, write out in a step by step manner your reasoning about the criterion to be sure that your conclusion is correct. Avoid simply stating the correct answers at the outset. Then print only the single character "Y" or "N" (without quotes or punctuation) on its own line corresponding to the correct answer. At the end, repeat just the letter again by itself on a new line.

    Reasoning:`,
  },
]);

/** promptfoo's GEVAL_PROMPT_STEPS (src/prompts/index.ts). */
const GEVAL_PROMPT_STEPS = `
Given evaluation criteria that outline how you should judge a piece of text, generate 3-4 concise evaluation steps applicable to any text based on the criteria below and designed to check whether the criteria are satisfied by the text.

**EVALUATION CRITERIA**
{{criteria}}

**OUTPUT FORMAT**
IMPORTANT:
- Return output ONLY as a minified JSON object (no code fences).
- The JSON object must contain a single key, "steps", whose value is a list of strings.
- Each string must represent one evaluation step.
- Do NOT include any explanations, commentary, extra text, or additional formatting.

Format:
{"steps": <list_of_strings>}

Example:
{"steps":["<Evaluation Step 1>","<Evaluation Step 2>","<Evaluation Step 3>","<Evaluation Step 4>"]}

Here are the 3-4 concise evaluation steps, formatted as required in a minified JSON:
JSON:
`;

/** promptfoo's GEVAL_PROMPT_EVALUATE (src/prompts/index.ts). */
const GEVAL_PROMPT_EVALUATE = `
You will be given one Reply for a Prompt below. Your task is to rate the Reply on one metric.
Please make sure you read and understand these instructions carefully. Please keep this document open while reviewing, and refer to it as needed.

**Evaluation Criteria**
{{criteria}}

**Evaluation Steps**
- {{steps}}
Given the evaluation steps, return a JSON with two keys: 
  1) a "score" key that MUST be an integer from 0 to {{maxScore}}, where {{maxScore}} indicates that the condition described by the Evaluation Criteria is fully and clearly observed in the Reply according to the Evaluation Steps, and 0 indicates that it is not observed at all;
  2) a "reason" key, a reason for the given score, but DO NOT QUOTE THE SCORE in your reason. Please mention specific information from Prompt and Reply in your reason, but be very concise with it!

**Prompt**
{{input}}

**Reply**
{{output}}

**OUTPUT FORMAT**
IMPORTANT: 
- Return output ONLY as a minified JSON object (no code fences).
- The JSON object must contain exactly two keys: "score" and "reason".
- No additional words, explanations, or formatting are needed.
- Absolutely no additional text, explanations, line breaks, or formatting outside the JSON object are allowed.

Example JSON:
{"score":0,"reason":"The text of reply does not follow the evaluation criteria provided."}

Here is the final evaluation in the required minified JSON format:
JSON:
`;

/** promptfoo's ANSWER_RELEVANCY_GENERATE (src/external/prompts/ragas.ts). */
const ANSWER_RELEVANCY_GENERATE = `Generate question for the given answer.
Answer:\nThe PSLV-C56 mission is scheduled to be launched on Sunday, 30 July 2023 at 06:30 IST / 01:00 UTC. It will be launched from the Satish Dhawan Space Centre, Sriharikota, Andhra Pradesh, India
Question: When is the scheduled launch date and time for the PSLV-C56 mission, and where will it be launched from?

Answer:{{answer}}
Question:`;

/** promptfoo's default thresholds. */
export const DEFAULT_THRESHOLD: Partial<Record<RecipeAssertion['type'], number>> = {
  similar: 0.75,
  'g-eval': 0.7,
  'answer-relevance': 0.5,
};

const render = (template: string, context: Record<string, unknown>): RubricMessage[] =>
  rubricMessages(template, stringified(context));

/** The first grading messages of a recipe that asks a model: what its cache key is made of. */
export function recipeMessages(a: RecipeAssertion, m: RecipeMaterial): RubricMessage[] {
  if (a.type === 'model-graded-closedqa') {
    const context = { ...m.vars, input: m.input, criteria: a.value, completion: tryParse(m.output) };
    return a.rubricPrompt
      ? a.rubricPrompt.render({ output: m.output, value: String(a.value), input: m.input })
      : render(CLOSED_QA_PROMPT, context);
  }
  return [];
}

export async function runRecipe(a: RecipeAssertion, m: RecipeMaterial, tools: GraderTools): Promise<RecipeVerdict> {
  switch (a.type) {
    case 'model-graded-closedqa':
      return closedQa(a, m, tools);
    case 'g-eval':
      return gEval(a, m, tools);
    case 'answer-relevance':
      return answerRelevance(a, m, tools);
    case 'similar':
      return similar(a, m, tools);
    case 'moderation':
      return moderation(a, m, tools);
  }
}

const error = (reason: string): RecipeVerdict => ({ kind: 'error', reason });

/** matchesClosedQa: the answer ends with Y (pass) or N (fail). */
async function closedQa(a: RecipeAssertion, m: RecipeMaterial, tools: GraderTools): Promise<RecipeVerdict> {
  const answer = await tools.ask(recipeMessages(a, m));
  if ('problem' in answer) return error(answer.problem);
  const text = answer.text.trimEnd();
  if (text.endsWith('Y'))
    return { kind: 'pass', score: 1, reason: `The submission meets the criterion:\n${answer.text}` };
  if (text.endsWith('N'))
    return { kind: 'fail', score: 0, reason: `The submission does not meet the criterion:\n${answer.text}` };
  return error(`its answer ends with neither Y nor N: ${JSON.stringify(text.slice(-200))}`);
}

/**
 * matchesGEval, per criterion (a list is averaged): steps first, then a score from 0 to 10. The
 * steps prompt is given the criterion only, the evaluation prompt the criterion, the steps, the
 * highest score, the message sent and the reply: never the test's vars, as in promptfoo.
 */
async function gEval(a: RecipeAssertion, m: RecipeMaterial, tools: GraderTools): Promise<RecipeVerdict> {
  const criteria = Array.isArray(a.value) ? a.value : [a.value];
  const threshold = a.threshold ?? DEFAULT_THRESHOLD['g-eval']!;
  const scores: number[] = [];
  const reasons: string[] = [];
  for (const [index, criterion] of criteria.entries()) {
    const which = criteria.length > 1 ? `criterion ${index + 1}/${criteria.length}: ` : '';
    const stepsAnswer = await tools.ask(render(a.gEvalPrompts?.steps ?? GEVAL_PROMPT_STEPS, { criteria: criterion }));
    if ('problem' in stepsAnswer) return error(`${which}${stepsAnswer.problem}`);
    const stepsMatch = firstBracedOnLine(stepsAnswer.text, '{"steps"');
    let steps: unknown;
    try {
      steps = stepsMatch ? (JSON.parse(stepsMatch) as { steps?: unknown }).steps : undefined;
    } catch {
      steps = undefined;
    }
    if (!Array.isArray(steps) || steps.length === 0 || !steps.every((s) => typeof s === 'string' && s.trim() !== ''))
      return error(
        `${which}its evaluation steps are not {"steps": [...]}: ${JSON.stringify(stepsAnswer.text.slice(0, 200))}`,
      );
    const evaluation = await tools.ask(
      render(a.gEvalPrompts?.evaluate ?? GEVAL_PROMPT_EVALUATE, {
        criteria: criterion,
        steps: (steps as string[]).join('\n- '),
        maxScore: '10',
        input: tryParse(m.input),
        output: tryParse(m.output),
      }),
    );
    if ('problem' in evaluation) return error(`${which}${evaluation.problem}`);
    let result: { score?: unknown; reason?: unknown } = {};
    try {
      const found = firstBracedOnLine(evaluation.text, '{');
      result = found ? (JSON.parse(found) as typeof result) : {};
    } catch {
      result = {};
    }
    const raw =
      typeof result.score === 'number'
        ? result.score
        : typeof result.score === 'string' && result.score.trim() !== ''
          ? Number(result.score)
          : NaN;
    if (!Number.isFinite(raw) || raw < 0 || raw > 10 || typeof result.reason !== 'string' || !result.reason.trim())
      return error(
        `${which}its evaluation is not {"score": 0 to 10, "reason": …}: ${JSON.stringify(evaluation.text.slice(0, 200))}`,
      );
    scores.push(raw / 10);
    reasons.push(result.reason);
  }
  const score = scores.reduce((x, y) => x + y, 0) / scores.length;
  return { kind: score >= threshold ? 'pass' : 'fail', score, reason: reasons.join('\n\n') };
}

function cosine(x: number[], y: number[]): number {
  let dot = 0;
  let nx = 0;
  let ny = 0;
  for (let i = 0; i < x.length; i++) {
    dot += x[i] * y[i];
    nx += x[i] * x[i];
    ny += y[i] * y[i];
  }
  return dot / (Math.sqrt(nx) * Math.sqrt(ny));
}

function vectorsProblem(vectors: number[][], n: number): string | undefined {
  if (vectors.length !== n) return `it returned ${vectors.length} embeddings for ${n} texts`;
  const size = vectors[0]?.length ?? 0;
  if (size === 0 || vectors.some((v) => v.length !== size || v.some((x) => !Number.isFinite(x))))
    return 'its embeddings are not vectors of one length';
  return undefined;
}

/** handleSimilar with matchesSimilarity (cosine): the first expected text close enough passes; else the closest score. */
async function similar(a: RecipeAssertion, m: RecipeMaterial, tools: GraderTools): Promise<RecipeVerdict> {
  const expected = Array.isArray(a.value) ? a.value : [a.value];
  const threshold = a.threshold ?? DEFAULT_THRESHOLD.similar!;
  const got = await tools.embed([m.output, ...expected]);
  if ('problem' in got) return error(got.problem);
  const problem = vectorsProblem(got.vectors, expected.length + 1);
  if (problem) return error(problem);
  const [output, ...others] = got.vectors;
  const similarities = others.map((v) => cosine(output, v));
  const first = similarities.find((s) => s >= threshold - Number.EPSILON);
  const score = first ?? Math.max(...similarities);
  const said =
    first === undefined
      ? `Similarity ${score.toFixed(2)} is less than threshold ${threshold}`
      : `Similarity ${score.toFixed(2)} is greater than or equal to threshold ${threshold}`;
  return { kind: first === undefined ? 'fail' : 'pass', score, reason: said };
}

/** matchesAnswerRelevance: three questions the reply answers, each compared with the question asked. */
async function answerRelevance(a: RecipeAssertion, m: RecipeMaterial, tools: GraderTools): Promise<RecipeVerdict> {
  const input = typeof m.vars.query === 'string' ? m.vars.query : m.input;
  const threshold = a.threshold ?? DEFAULT_THRESHOLD['answer-relevance']!;
  const messages = render(ANSWER_RELEVANCY_GENERATE, { answer: tryParse(m.output) });
  const questions: string[] = [];
  for (let i = 0; i < 3; i++) {
    const answer = await tools.ask(messages);
    if ('problem' in answer) return error(answer.problem);
    questions.push(answer.text);
  }
  const got = await tools.embed([input, ...questions]);
  if ('problem' in got) return error(got.problem);
  const problem = vectorsProblem(got.vectors, 4);
  if (problem) return error(problem);
  const [asked, ...generated] = got.vectors;
  const score = generated.map((v) => cosine(asked, v)).reduce((x, y) => x + y, 0) / generated.length;
  const pass = score >= threshold - Number.EPSILON;
  const reason = `Relevance ${score.toFixed(2)} is ${pass ? 'greater' : 'less'} than threshold ${threshold}`;
  return { kind: pass ? 'pass' : 'fail', score, reason };
}

/** matchesModeration: the reply's flags, those of `value`'s categories when it names some. */
async function moderation(a: RecipeAssertion, m: RecipeMaterial, tools: GraderTools): Promise<RecipeVerdict> {
  if (!m.output) return { kind: 'pass', score: 1, reason: 'No output to moderate' };
  const got = await tools.moderate(m.output);
  if ('problem' in got) return error(got.problem);
  if (got.flags.length === 0) return { kind: 'pass', score: 1, reason: 'No moderation flags detected' };
  const categories = Array.isArray(a.value) ? a.value : [];
  const counted = categories.length ? got.flags.filter((f) => categories.includes(f)) : got.flags;
  if (counted.length) return { kind: 'fail', score: 0, reason: `Moderation flags detected: ${counted.join(', ')}` };
  return { kind: 'pass', score: 1, reason: 'No relevant moderation flags detected' };
}

/**
 * promptfoo's SELECT_BEST_PROMPT (src/prompts/grading.ts), rendered with `criteria`, the replies
 * as `outputs` and the test's vars: the judge answers with the index of the best reply.
 */
export const SELECT_BEST_PROMPT = JSON.stringify([
  {
    role: 'system',
    content: `You are comparing multiple pieces of text to see which best fits the following criteria: {{criteria}}

Here are the pieces of text:

{% for output in outputs %}
<Text index="{{ loop.index0 }}">
{{ output }}
</Text>
{% endfor %}

Output the index of the text that best fits the criteria. You must output a single integer.`,
  },
]);

/**
 * matchesSelectBest's reading of the judge's answer, after a leading `<think>` block: the one
 * number it names, which must be a whole index of one of the `count` replies. promptfoo reads the
 * first run of digits, so "-1" or "1e3" named reply 1, "0.9" reply 0, "%0A" reply 0, and "Text 0
 * is dull; 1 is best" reply 0; here each is a problem, never a choice: every number-like word of
 * the answer must be the same plain index ("1", "1.", "index 1", "<Text index=\"1\">").
 */
/** The word without the dots it ends with (by hand: `/\.+$/` is quadratic over a long run of dots). */
function withoutTrailingDots(word: string): string {
  let end = word.length;
  while (end > 0 && word[end - 1] === '.') end--;
  return word.slice(0, end);
}

export function selectBestIndex(answer: string, count: number): { index: number } | { problem: string } {
  const problem = {
    problem: `its select-best answer names no reply (expected an index from 0 to ${count - 1}): ${JSON.stringify(answer.trim().slice(0, 200))}`,
  };
  const thought = afterThinking(answer);
  if ('problem' in thought) return problem;
  // Every word holding a digit, with the signs, points and letters around it (split, not one
  // pattern: a pattern that backtracks over a long word would take quadratic time).
  const words = thought.text
    .split(/[^\p{L}\p{N}_.+-]+/u)
    .filter((w) => /\p{N}/u.test(w))
    .map(withoutTrailingDots);
  if (words.length === 0 || words.some((w) => !/^[0-9]+$/.test(w))) return problem;
  const index = Number.parseInt(words[0], 10);
  if (words.some((w) => Number.parseInt(w, 10) !== index) || index >= count) return problem;
  return { index };
}
