// promptfoo's templates (prompts, vars, assertion values, metric names, rubricPrompt, the grading
// prompts) rendered as promptfoo renders them with Nunjucks, by an evaluator of our own over
// Nunjucks' parsed tree (template.ts): a template is data, whoever wrote it, and only the grammar
// promptfoo configs use is accepted (anything else, a call, a macro, an include, is refused with
// its line). No HTML escaping, as promptfoo. One difference, deliberate: a variable the test does
// not set is a mistake (promptfoo prints nothing; here the file is refused, so `{{var}}` never goes
// out literally or empty by accident), and templates cannot read the environment (`env`).
// Templates come from the repository, never from a reply: a Claw's reply is only ever a value
// handed to one (a rubricPrompt's `output`).
import { Script, createContext } from 'node:vm';
import type { Deadline } from './template-data.js';
import { type Template, TemplateError, evaluate, parseTemplate } from './template.js';

export class RenderError extends Error {}

/** Synchronous work that ran out of its time (withinTime). */
export class OutOfTime extends Error {}

// Synchronous code cannot be stopped by a timer; the vm module's watchdog can stop whatever runs
// inside its call, the host's own functions included.
const sandbox = createContext({ work: undefined as (() => unknown) | undefined });
const callWork = new Script('work()');

/** Runs synchronous `work`, stopped after `ms` with OutOfTime. */
export function withinTime<T>(ms: number, work: () => T): T {
  const previous = sandbox.work;
  sandbox.work = work;
  try {
    return callWork.runInContext(sandbox, { timeout: ms }) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new OutOfTime(`it took more than ${ms / 1000}s`);
    }
    throw err;
  } finally {
    sandbox.work = previous;
  }
}

// Parsed templates, by their text: a long grading template is parsed once (at load, under the
// read watchdog) and rendered per grading from its tree, so no grading parses it again outside a
// bound (Nunjucks' parser is quadratic on some texts). A short one parses in well under a
// millisecond; the cache holds at most the configs' own text.
const parsed = new Map<string, Template>();
const PARSE_ONCE_FROM = 1024;
const MAX_PARSED_CHARS = 32 * 1024 * 1024;
let parsedChars = 0;

function parsedTemplate(source: string): Template {
  if (source.length < PARSE_ONCE_FROM) return parseTemplate(source);
  let template = parsed.get(source);
  if (!template) {
    template = parseTemplate(source);
    for (const [old] of parsed) {
      if (parsedChars + source.length <= MAX_PARSED_CHARS) break;
      parsed.delete(old);
      parsedChars -= old.length;
    }
    parsed.set(source, template);
    parsedChars += source.length;
  }
  return template;
}

/** Renders `template` with `vars`; a template that will not render throws RenderError saying why. */
export function render(template: string, vars: Record<string, unknown>): string {
  try {
    return evaluate(parsedTemplate(wrapPartial(template)), vars, { strict: true });
  } catch (err) {
    throw new RenderError(explain(template, vars, err));
  }
}

/**
 * Renders a template already known to render (a rubricPrompt at grading time, given the reply);
 * one that fails gives its own text, one that passes its bounds (its work, what it holds, or
 * `deadline`) throws RenderError naming the template's line.
 */
export function renderLenient(template: string, vars: Record<string, unknown>, deadline?: Deadline): string {
  try {
    return evaluate(parsedTemplate(wrapPartial(template)), vars, { strict: false, deadline });
  } catch (err) {
    if (err instanceof TemplateError && err.kind === 'limit')
      throw new RenderError(
        `the template did not render: ${err.message}${err.line === undefined ? '' : ` (the template's line ${err.line})`}`,
      );
    return template;
  }
}

/** promptfoo's rule: a template with an unclosed tag (`{{` alone) is text, not a template. */
function wrapPartial(template: string): string {
  const partial = /({%[^%]*$|{{[^}]*$|{#[^#]*$)/m.test(template);
  const wrapped = /{%\s*raw\s*%}/.test(template) && /{%\s*endraw\s*%}/.test(template);
  return partial && !wrapped ? `{% raw %}${template}{% endraw %}` : template;
}

/** The evaluator's message, with the variable named when one is missing, and the template's line when it has several. */
function explain(template: string, vars: Record<string, unknown>, err: unknown): string {
  if (!(err instanceof TemplateError)) {
    // Not the evaluator's own refusal (a bug, or the stack): still one line, never a crash.
    return `it did not render (${err instanceof Error ? err.message : String(err)})`;
  }
  const at = err.line !== undefined && template.includes('\n') ? ` (the template's line ${err.line})` : '';
  if (err.kind === 'unset') {
    const missing = variablesOf(template).filter((name) => vars[name.split(/[.[]/)[0]] === undefined);
    if (missing.length > 0) {
      return `it uses ${missing.map((m) => `{{${m}}}`).join(', ')}, which the test does not set: expected it in the test's vars (or defaultTest's)`;
    }
    return `it prints a value that is not set (null or missing)${at}: expected every printed value set`;
  }
  return `${err.message}${at}`;
}

/** The variables a template prints or tests (roughly, as promptfoo finds them), loop variables left out. */
export function variablesOf(template: string): string[] {
  const found = new Set<string>();
  const text = template.replace(/\{#[\s\S]*?#\}/g, '');
  for (const m of text.matchAll(/\{\{\s*([^{}\s|(]+)\s*(?:\|[^}]+)?\}\}|\{%\s*(?:if|for)\s+([^{}\s]+)\s*.*?%\}/g)) {
    found.add(m[1] ?? m[2]);
  }
  for (const m of text.matchAll(/\{%\s*for\s+(\w+)\s+in\s+(\w+)\s*%\}/g)) {
    found.delete(m[1]);
    found.add(m[2]);
  }
  return [...found];
}
