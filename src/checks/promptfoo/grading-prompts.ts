// promptfoo's grading prompts as a config writes them: `rubricPrompt` (an assertion's own, or the
// test's options'), as text, chat messages or a file, checked by rendering it once with stand-ins
// before any request; and g-eval's own `{steps, evaluate}`.
import type { RubricPrompt } from '../rubric.js';
import { nearest } from '../../shared/nearest.js';
import { type AssertContext, SCRIPT_EXTENSIONS } from './assert-context.js';
import { ConfigFiles } from './files.js';
import type { GEvalPrompts } from './graders.js';
import { type Obj, isObj, show } from './located.js';
import { RenderError } from './render.js';
import { rubricMessages, stringified, tryParse } from './rubric.js';

/** `rubricPrompt` (the assertion's, or the test's options'): text or chat messages, with {{output}}, {{rubric}}… */
export function readRubricPrompt(
  a: Obj,
  type: 'llm-rubric' | 'factuality' | 'model-graded-closedqa',
  ctx: AssertContext,
): RubricPrompt | undefined {
  const holder = a.rubricPrompt !== undefined ? a : ctx.options;
  const source = rubricSource(a, ctx);
  if (source === undefined) return undefined;
  const vars = ctx.vars;
  // Each grader's names, as promptfoo gives them: the test's vars first, its own names over them
  // (llm-rubric: output, rubric; factuality: input, ideal, completion; closedqa: input, criteria, completion).
  const context = (m: { output: string; value: string; input: string }): Record<string, unknown> =>
    stringified(
      type === 'llm-rubric'
        ? { ...vars, output: tryParse(m.output), rubric: m.value }
        : type === 'factuality'
          ? { ...vars, input: m.input, ideal: m.value, completion: tryParse(m.output) }
          : { ...vars, input: m.input, criteria: m.value, completion: tryParse(m.output) },
    );
  // At grading, a rendering past its bounds (or the step's deadline) is that grading's error, named
  // by the file and line the template came from.
  const at = ctx.places.where(holder, 'rubricPrompt');
  const prompt: RubricPrompt = {
    render: (m, deadline) => {
      try {
        return rubricMessages(source, context(m), false, deadline);
      } catch (err) {
        if (err instanceof RenderError && at)
          throw new RenderError(`${at.file}, line ${at.line}: 'rubricPrompt': ${err.message}`);
        throw err;
      }
    },
  };
  try {
    // Rendered once now with stand-in material, so a template that cannot render is found before any request.
    rubricMessages(source, context({ output: 'output', value: 'value', input: 'input' }), true);
  } catch (err) {
    const names =
      type === 'llm-rubric'
        ? '{{output}} and {{rubric}}'
        : type === 'factuality'
          ? '{{input}}, {{ideal}} and {{completion}}'
          : '{{input}}, {{criteria}} and {{completion}}';
    ctx.places.fail(
      holder,
      'rubricPrompt',
      `'rubricPrompt' cannot be rendered: ${(err as Error).message} (a '${type}' grading prompt is given the test's vars and ${names}${holder === a ? '' : `; this one is the test's options.rubricPrompt, which promptfoo hands to every model-graded assertion of the test: give the '${type}' a rubricPrompt of its own`})`,
    );
  }
  return prompt;
}

/** The text of `rubricPrompt` (the assertion's, or the test's options'): inline, JSON messages, or a file's. */
export function rubricSource(a: Obj, ctx: AssertContext): string | undefined {
  const holder = a.rubricPrompt !== undefined ? a : ctx.options;
  if (holder.rubricPrompt === undefined) return undefined;
  return loadTemplate(holder, 'rubricPrompt', holder.rubricPrompt, ctx);
}

/** A grading template as promptfoo's loadRubricPrompt reads it: text, a file's text, or JSON of a list or mapping. */
function loadTemplate(holder: Obj, key: string, template: unknown, ctx: AssertContext): string {
  const what = key === 'rubricPrompt' ? "'rubricPrompt'" : `'rubricPrompt.${key}'`;
  if (ConfigFiles.isRef(template)) {
    const file = ctx.files.resolve(template);
    if ('problem' in file)
      return ctx.places.fail(holder, key, `${what} is ${show(template)}, which cannot be read: ${file.problem}`);
    if (SCRIPT_EXTENSIONS.test(file.path))
      return ctx.places.fail(
        holder,
        key,
        `${what} from a script: expected the template as text, JSON messages, or a text or JSON file`,
      );
    const read = ctx.files.read(file);
    if ('problem' in read) return ctx.places.fail(holder, key, `${what} cannot be read: ${read.problem}`);
    return read.text;
  }
  return typeof template === 'string' ? template : JSON.stringify(template);
}

/**
 * g-eval's own prompts, as promptfoo's matchesGEval reads `rubricPrompt`: a mapping whose `steps`
 * and `evaluate` each replace promptfoo's template (one left out, or empty, keeps promptfoo's). A
 * rubricPrompt that is text or a list is not g-eval's (promptfoo's g-eval uses its own prompts).
 */
export function readGEvalPrompts(a: Obj, ctx: AssertContext): GEvalPrompts | undefined {
  const holder = a.rubricPrompt !== undefined ? a : ctx.options;
  const given = holder.rubricPrompt;
  if (given === undefined || given === null || given === '') return undefined;
  if (!isObj(given)) {
    // The test's may serve an llm-rubric beside it; an assertion's own is for this g-eval alone.
    if (holder === a)
      ctx.ignored?.push(
        "a g-eval assertion's rubricPrompt that is not {steps, evaluate} (promptfoo's g-eval then uses its own prompts)",
      );
    return undefined;
  }
  const keys = ['steps', 'evaluate'];
  for (const key of Object.keys(given)) {
    if (!keys.includes(key)) {
      const near = nearest(key, keys);
      ctx.places.fail(
        given,
        key,
        `unknown key '${key}' in g-eval's 'rubricPrompt': ${near ? `did you mean '${near}'? ` : ''}expected 'steps' (the prompt that asks for evaluation steps) and 'evaluate' (the prompt that scores the reply)`,
      );
    }
  }
  const prompts: GEvalPrompts = {};
  // What each prompt is given (matchesGEval): never the test's vars.
  const stand: Record<'steps' | 'evaluate', Record<string, unknown>> = {
    steps: { criteria: 'criteria' },
    evaluate: { criteria: 'criteria', steps: 'step', maxScore: '10', input: 'input', output: 'output' },
  };
  for (const key of ['steps', 'evaluate'] as const) {
    const value = given[key];
    // promptfoo's loadRubricPrompt: nothing, or an empty mapping, is its own template.
    if (value === undefined || value === null || value === '' || (isObj(value) && Object.keys(value).length === 0))
      continue;
    const source = loadTemplate(given, key, value, ctx);
    try {
      rubricMessages(source, stand[key], true);
    } catch (err) {
      ctx.places.fail(
        given,
        key,
        `'rubricPrompt.${key}' cannot be rendered: ${(err as Error).message} (g-eval's ${key} prompt is given ${key === 'steps' ? '{{criteria}} only' : '{{criteria}}, {{steps}}, {{maxScore}}, {{input}} and {{output}}'}, never the test's vars)`,
      );
    }
    prompts[key] = source;
  }
  return prompts.steps !== undefined || prompts.evaluate !== undefined ? prompts : undefined;
}
