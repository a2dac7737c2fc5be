// promptfoo's assertions, read into the model the gate runs: the native set (equals … latency,
// llm-rubric, factuality) plus javascript, assert-set, weight, metric, threshold and transform.
// Values are rendered with the test's vars now, when the file is read; what this project does not
// run is refused by name, with what to write instead.
import { parseYamlValue } from '../../config/yaml-file.js';
import { FACTUALITY_CATEGORIES, type FactualityCategory, type RecipeType } from '../assertions.js';
import { valueShown } from '../assertion-types/family.js';
import { PROMPTFOO_ALIASES, PROMPTFOO_TYPES, familyOf } from '../assertion-types/registry.js';
import { type EndpointJudgeSpec, type JudgeSpec, judgeIdentity } from '../judge-spec.js';
import { nearest } from '../../shared/nearest.js';
import type { Scoring, TurnAssertion } from '../scoring.js';
import { type Script, assertionBody, transformBody } from '../script.js';
import { forkRefusal } from '../../config/fork.js';
import { ConfigFiles } from './files.js';
import { type GraderKind, readGrader } from './grader.js';
import { aType } from '../../shared/format.js';
import { type Obj, isObj, show } from './located.js';
import { RenderError, render } from './render.js';
import { type AssertContext, SCRIPT_EXTENSIONS } from './assert-context.js';
import { readGEvalPrompts, readRubricPrompt } from './grading-prompts.js';

const SUPPORTED = PROMPTFOO_TYPES;
const KEYS = [
  'type',
  'value',
  'threshold',
  'weight',
  'metric',
  'provider',
  'rubricPrompt',
  'transform',
  'config',
  'assert',
];

/** What to write instead of a promptfoo assertion this project does not run. */
const INSTEAD: Record<string, string> = {
  python: 'a Claw check runs no Python: write the function as a javascript assertion',
  ruby: 'a Claw check runs no Ruby: write the function as a javascript assertion',
  classifier: 'it needs a HuggingFace classifier, which the judge does not call: use llm-rubric',
  'context-faithfulness': 'a Claw reply carries no retrieved context: use llm-rubric',
  'context-recall': 'a Claw reply carries no retrieved context: use llm-rubric',
  'context-relevance': 'a Claw reply carries no retrieved context: use llm-rubric',
  'conversation-relevance': 'use turns of a native checks file with llm-rubric',
  cost: 'a Claw reply carries no cost',
  perplexity: 'a Claw reply carries no log probabilities',
  'perplexity-score': 'a Claw reply carries no log probabilities',
  'select-best':
    "it compares the Claws' replies to a whole test: expected it in the test's own 'assert', not inside an assert-set",
  'max-score':
    "it compares the Claws' scores for a whole test: expected it in the test's own 'assert', not inside an assert-set",
  webhook: 'write the check as a javascript assertion',
  'is-valid-function-call': 'a Claw reply carries no tool calls',
  'is-valid-openai-function-call': 'a Claw reply carries no tool calls',
  'is-valid-openai-tools-call': 'a Claw reply carries no tool calls',
  'finish-reason': 'a Claw reply carries no finish reason',
  pi: 'it needs an external scoring service: use llm-rubric',
};

/** One assertion of a test (`holder` is where it sits, for errors). */
export function readAssertion(raw: unknown, ctx: AssertContext): TurnAssertion {
  const { places } = ctx;
  if (isObj(raw) && typeof raw.$ref === 'string') raw = resolveRef(raw, ctx);
  const a: Obj = isObj(raw)
    ? raw
    : places.fail(raw, undefined, `an assertion is ${show(raw)}: expected a mapping with a type`);
  const fail: (key: string | undefined, message: string) => never = (key, message) => places.fail(a, key, message);
  const unknown = Object.keys(a).find((k) => !KEYS.includes(k));
  if (unknown) {
    const why = unknown === 'contextTransform' ? ': a Claw reply carries no context' : '';
    fail(unknown, `unknown key '${unknown}' in an assertion${why}: expected ${KEYS.map((k) => `'${k}'`).join(', ')}`);
  }
  if (typeof a.type !== 'string') fail('type', `an assertion has no 'type': expected one of ${SUPPORTED.join(', ')}`);
  const written = a.type as string;
  const negate = written.startsWith('not-');
  const unaliased = negate ? written.slice(4) : written;
  // Own names only: a type named after Object.prototype's members (`constructor`) is no alias.
  const type = Object.hasOwn(PROMPTFOO_ALIASES, unaliased) ? PROMPTFOO_ALIASES[unaliased] : unaliased;
  if (!SUPPORTED.includes(type)) {
    const instead = Object.hasOwn(INSTEAD, type) ? INSTEAD[type] : undefined;
    if (instead) fail('type', `'${written}' is a promptfoo assertion this project does not run: ${instead}`);
    if (type.startsWith('similar:'))
      fail(
        'type',
        `'${written}' measures ${type.slice(8)} distance, which is not run here: expected 'similar' (cosine)`,
      );
    const near = nearest(written, [...SUPPORTED, ...SUPPORTED.map((t) => `not-${t}`), ...Object.keys(INSTEAD)]);
    fail(
      'type',
      near
        ? `'type' is ${show(written)}: did you mean '${near}'?`
        : `'type' is ${show(written)}: expected one of ${SUPPORTED.join(', ')} (each but assert-set with a not- form)`,
    );
  }
  if ((type === 'assert-set' || type === 'latency') && negate)
    fail('type', `'${written}' has no not- form: expected '${type}'`);
  if (a.assert !== undefined && type !== 'assert-set')
    fail('assert', `'assert' belongs to an assert-set, not '${written}'`);

  const scoring: Scoring = {};
  if (a.weight !== undefined) {
    if (typeof a.weight !== 'number' || !Number.isFinite(a.weight) || a.weight < 0)
      fail('weight', `'weight' is ${show(a.weight)}: expected a number of at least 0 (default 1)`);
    scoring.weight = a.weight;
  }
  if (a.metric !== undefined) {
    if (typeof a.metric !== 'string' || !a.metric.trim())
      fail('metric', `'metric' is ${show(a.metric)}: expected a name`);
    scoring.metric = renderAt(a, 'metric', a.metric, ctx);
  }
  if (a.transform !== undefined) scoring.transform = readScript(a, 'transform', a.transform, ctx, 'transform');
  const threshold = a.threshold;
  if (threshold !== undefined && (typeof threshold !== 'number' || !Number.isFinite(threshold)))
    fail('threshold', `'threshold' is ${show(threshold)}: expected a number`);
  const value = renderValue(a, ctx);
  scoring.written = writtenForm(a, value);

  const assertion = build(type, negate, value, a, ctx);
  return { ...assertion, ...scoring } as TurnAssertion;
}

export { valueShown };

function build(type: string, negate: boolean, value: unknown, a: Obj, ctx: AssertContext): TurnAssertion {
  const fail: (key: string | undefined, message: string) => never = (key, message) => ctx.places.fail(a, key, message);
  const read = familyOf(type).promptfoo!({
    type,
    negate,
    value,
    a,
    ctx,
    threshold: a.threshold as number | undefined,
    fail,
    text: (expected) => {
      if (typeof value === 'string' && value !== '') return value;
      if (typeof value === 'number') return String(value);
      return fail('value', `${aType(a.type as string)} assertion's ${valueShown(value)}: expected ${expected}`);
    },
    graded: (graderType, text) => graded(graderType, negate, text, a, ctx),
    recipe: (recipeType, recipeValue) => recipe(recipeType as RecipeType, negate, recipeValue, a, ctx),
    javascript: (code) => readScript(a, 'value', code, ctx, 'javascript'),
    assertion: (inner) => readAssertion(inner, ctx),
  });
  return read as TurnAssertion;
}

/**
 * `value`, rendered with the test's vars (strings, and the strings of a list); a file's contents for
 * file://, alone or as an entry of a list (`[file://refund.txt, sorry]`), as promptfoo's
 * runAssertion loads them: never rendered.
 */
export function renderValue(a: Obj, ctx: AssertContext): unknown {
  const value = a.value;
  if (a.type === 'javascript' || a.type === 'not-javascript') return value;
  if (ConfigFiles.isRef(value)) return fileValue(a, value, ctx);
  if (typeof value === 'string') return renderAt(a, 'value', value, ctx);
  if (Array.isArray(value))
    return value.map((v, i) =>
      ConfigFiles.isRef(v) ? listFileValue(a, v, i, ctx) : typeof v === 'string' ? renderAt(a, 'value', v, ctx) : v,
    );
  return value;
}

/**
 * A file's value, as promptfoo's processFileReference reads it: JSON and YAML parsed, a `.txt`
 * file's text trimmed (as promptfoo trims it), any other text file as it is. A script computes the
 * value in promptfoo; here only a javascript assertion runs one.
 */
function loadValueFile(a: Obj, ref: string, what: string, ctx: AssertContext): unknown {
  const file = ctx.files.resolve(ref);
  if ('problem' in file)
    return ctx.places.fail(a, 'value', `${what} is ${show(ref)}, which cannot be read: ${file.problem}`);
  if (SCRIPT_EXTENSIONS.test(file.path) || /\.(py|rb)$/.test(file.path)) {
    return ctx.places.fail(
      a,
      'value',
      `${what} is ${show(ref)}: a script computes this value in promptfoo; here only a javascript assertion runs a script: expected the value itself, or a text, JSON or YAML file`,
    );
  }
  const read = ctx.files.read(file);
  if ('problem' in read)
    return ctx.places.fail(a, 'value', `${what} is ${show(ref)}, which cannot be read: ${read.problem}`);
  if (/\.(json|ya?ml)$/.test(file.path)) {
    try {
      return parseYamlValue(read.text) as unknown;
    } catch (err) {
      return ctx.places.fail(
        a,
        'value',
        `${show(ref)} is not valid ${/\.json$/.test(file.path) ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`,
      );
    }
  }
  return /\.txt$/.test(file.path) ? read.text.trim() : read.text;
}

function fileValue(a: Obj, ref: string, ctx: AssertContext): unknown {
  return loadValueFile(a, ref, "'value'", ctx);
}

/** A list's `file://` entry: one text (or number) in the list, as promptfoo compares it. */
function listFileValue(a: Obj, ref: string, index: number, ctx: AssertContext): unknown {
  const what = `'value' entry ${index + 1}`;
  const loaded = loadValueFile(a, ref, what, ctx);
  if (typeof loaded === 'string' || typeof loaded === 'number') return loaded;
  return ctx.places.fail(
    a,
    'value',
    `${what} is ${show(ref)}, which holds ${Array.isArray(loaded) ? 'a list' : show(loaded ?? null)}: expected one text per entry (promptfoo would compare the list's text, "a,b", as one); name each file in the list, or write the entries themselves`,
  );
}

function renderAt(holder: Obj, key: string, template: string, ctx: AssertContext): string {
  try {
    return render(template, ctx.vars);
  } catch (err) {
    if (err instanceof RenderError) ctx.places.fail(holder, key, `'${key}' cannot be rendered: ${err.message}`);
    throw err;
  }
}

/** A test's `options.transform` (or `postprocess`): applied to the reply before every assertion. */
export function readTransform(options: Obj, ctx: AssertContext): Script | undefined {
  const key =
    options.transform !== undefined ? 'transform' : options.postprocess !== undefined ? 'postprocess' : undefined;
  return key ? readScript(options, key, options[key], ctx, 'transform') : undefined;
}

function readScript(
  holder: Obj,
  key: string,
  code: unknown,
  ctx: AssertContext,
  what: 'javascript' | 'transform',
): Script {
  const fail: (message: string) => never = (message) => ctx.places.fail(holder, key, message);
  if (typeof code !== 'string' || !code.trim())
    return fail(`'${key}' is ${show(code)}: expected JavaScript, or file://path.js`);
  if (ctx.forkEvent) {
    fail(
      `a ${what} runs the repository's JavaScript, ${forkRefusal(ctx.forkEvent, 'run the checks on pull_request, or after the merge')}`,
    );
  }
  if (ConfigFiles.isRef(code)) {
    const file = ctx.files.resolve(code, { functions: true });
    if ('problem' in file) return fail(`'${key}' is ${show(code)}, which cannot be used: ${file.problem}`);
    if (!SCRIPT_EXTENSIONS.test(file.path))
      return fail(`'${key}' is ${show(code)}: expected a JavaScript file (.js, .cjs, .mjs or .ts)`);
    return { kind: 'file', path: file.path, functionName: file.functionName, label: ctx.files.display(file) };
  }
  const label = code.trim().replace(/\s+/g, ' ');
  const body = what === 'javascript' ? assertionBody(code) : transformBody(code);
  try {
    // Compiled, never called, so a syntax error is a mistake in the file, found before any request.
    new Function('output', 'context', 'process', body);
  } catch (err) {
    return fail(`'${key}' is not valid JavaScript (${(err as Error).message})`);
  }
  return { kind: 'inline', body, label: label.length > 60 ? `${label.slice(0, 60)}…` : label };
}

/** The judge for an assertion's grader (its `provider`, or the test's `options.provider`), each judge once. */
export function judgeOf(a: Obj, ctx: AssertContext, kind: GraderKind = 'text'): JudgeSpec {
  const provider = a.provider ?? ctx.options.provider;
  if (a.provider === undefined && ctx.options.provider !== undefined) ctx.providerUsed = true;
  const read = readGrader(provider, ctx.env, ctx.words, ctx.forkEvent, kind);
  if ('problem' in read) {
    // At the provider that is at fault; with none named, at the assertion that needs one.
    const at = a.provider !== undefined || ctx.options.provider === undefined ? a : ctx.options;
    return ctx.places.fail(
      at,
      a.provider !== undefined || ctx.options.provider !== undefined ? 'provider' : undefined,
      read.problem,
      ctx.places.where(a),
    );
  }
  ctx.ignored?.push(...(read.ignored ?? []));
  const identity = judgeIdentity(read.spec);
  const judge = ctx.judges.get(identity) ?? read.spec;
  ctx.judges.set(identity, judge);
  return judge;
}

/** One of promptfoo's other graders (graders.ts): the judge of the kind it needs, its threshold. */
function recipe(
  type: RecipeType,
  negate: boolean,
  value: string | string[],
  a: Obj,
  ctx: AssertContext,
): TurnAssertion {
  let judge = judgeOf(a, ctx, type === 'similar' ? 'embedding' : type === 'moderation' ? 'moderation' : 'text');
  if (type === 'answer-relevance') {
    // promptfoo asks a chat model for questions and an embedding model to compare them: one endpoint here.
    const embedder = judgeOf(a, ctx, 'embedding');
    if (judge.kind !== 'endpoint' || embedder.kind !== 'endpoint' || embedder.url !== judge.url)
      ctx.places.fail(
        a,
        a.provider !== undefined ? 'provider' : undefined,
        "'answer-relevance' asks a chat model and an embedding model, here at one endpoint: expected both at the same apiBaseUrl",
      );
    const both = { ...judge, embeddingModel: (embedder as EndpointJudgeSpec).embeddingModel };
    judge = ctx.judges.get(judgeIdentity(both)) ?? both;
    ctx.judges.set(judgeIdentity(judge), judge);
  }
  const rubricPrompt = type === 'model-graded-closedqa' ? readRubricPrompt(a, type, ctx) : undefined;
  const gEvalPrompts = type === 'g-eval' ? readGEvalPrompts(a, ctx) : undefined;
  const threshold = a.threshold as number | undefined;
  return {
    type,
    negate,
    value,
    judge,
    ...(threshold === undefined ? {} : { threshold }),
    ...(rubricPrompt ? { rubricPrompt } : {}),
    ...(gEvalPrompts ? { gEvalPrompts } : {}),
  };
}

function graded(
  type: 'llm-rubric' | 'factuality',
  negate: boolean,
  value: string,
  a: Obj,
  ctx: AssertContext,
): TurnAssertion {
  const judge = judgeOf(a, ctx);
  const rubricPrompt = readRubricPrompt(a, type, ctx);
  const base = { negate, value, judge, ...(rubricPrompt ? { rubricPrompt } : {}) };
  if (type === 'llm-rubric') {
    const threshold = a.threshold as number | undefined;
    return { type, ...base, ...(threshold === undefined ? {} : { gradeThreshold: threshold }) };
  }
  return { type, ...base, categories: factualityCategories(ctx) };
}

/** options.factuality: which categories score above 0, and so pass (promptfoo's score lookup). */
function factualityCategories(ctx: AssertContext): FactualityCategory[] {
  const lookup = ctx.options.factuality;
  if (lookup === undefined) return ['A', 'B', 'C', 'E'];
  const names: Record<string, FactualityCategory> = {
    subset: 'A',
    superset: 'B',
    agree: 'C',
    disagree: 'D',
    differButFactual: 'E',
  };
  if (!isObj(lookup))
    return ctx.places.fail(ctx.options, 'factuality', "'factuality' is not a mapping of categories to scores");
  const scores: Record<FactualityCategory, number> = { A: 1, B: 1, C: 1, D: 0, E: 1 };
  for (const [key, score] of Object.entries(lookup)) {
    if (!Object.hasOwn(names, key) || typeof score !== 'number') {
      ctx.places.fail(
        lookup,
        key,
        `'factuality' has ${show(key)}: expected scores for ${Object.keys(names).join(', ')}`,
      );
    }
    scores[names[key]] = score as number;
  }
  return FACTUALITY_CATEGORIES.filter((c) => scores[c] > 0);
}

export function resolveRef(raw: Obj, ctx: AssertContext): unknown {
  const ref = raw.$ref as string;
  const match = /^#\/assertionTemplates\/(.+)$/.exec(ref);
  const template = match && ctx.templates ? ctx.templates[match[1]] : undefined;
  if (!template)
    ctx.places.fail(
      raw,
      '$ref',
      `'$ref' is ${show(ref)}: expected #/assertionTemplates/<name> of a template the file defines`,
    );
  const extra = Object.keys(raw).filter((k) => k !== '$ref');
  if (extra.length) ctx.places.fail(raw, extra[0], `'$ref' stands alone: expected no other keys beside it`);
  return template;
}

/** The assertion as the output file shows it: its keys, the value rendered, no provider secrets. */
export function writtenForm(a: Obj, value: unknown): Record<string, unknown> {
  const form: Record<string, unknown> = { type: a.type };
  if (value !== undefined) form.value = value;
  for (const key of ['threshold', 'weight', 'metric', 'transform']) if (a[key] !== undefined) form[key] = a[key];
  if (typeof a.provider === 'string') form.provider = a.provider;
  else if (isObj(a.provider) && typeof a.provider.id === 'string') form.provider = a.provider.id;
  return form;
}
