// Nunjucks, as promptfoo renders prompts, vars and assertion values: `{{ var }}`, filters (with
// promptfoo's `load`, JSON.parse), `{% if %}`, `{% for %}`, no HTML escaping. Two differences, both
// deliberate: a variable the test does not set is a mistake (promptfoo prints nothing; here the
// file is refused, so `{{var}}` never goes out literally or empty by accident), and templates
// cannot read the environment (`env`). Templates come from the repository, never from a reply: a
// Claw's reply is only ever a value handed to one (a rubricPrompt's `output`). A template reads no
// file (`{% include %}`, `{% import %}` and `{% extends %}` find nothing: Nunjucks' default loader
// would read the folder `views` and follow its links anywhere), and its time is bounded, since a
// few nested loops need no function call to outlast any step. A template is data, whoever wrote
// it: Nunjucks is no sandbox (`range.constructor('…')()` runs code), so a template reaches its vars
// and the filters only: no calls of values, no lookups of `constructor`, `prototype` or
// `__proto__`, and at run time no lookup past a value's own properties.
import { Script, createContext } from 'node:vm';
import nunjucks from 'nunjucks';

// No loaders: `null` would give Nunjucks' FileSystemLoader, relative to the working folder.
const environment = new nunjucks.Environment([], { autoescape: false, throwOnUndefined: true });
environment.addFilter('load', (text: string) => JSON.parse(text) as unknown);

// At grading time, where the template was already rendered once when the file was read.
const lenient = new nunjucks.Environment([], { autoescape: false });
lenient.addFilter('load', (text: string) => JSON.parse(text) as unknown);

/** The longest one rendering may take at grading time (a rubricPrompt looping over a long reply). */
export const RENDER_MS = 2000;

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

/** Nunjucks' parser, node classes and runtime (untyped in @types/nunjucks). */
const internals = nunjucks as unknown as {
  parser: { parse(src: string, extensions: unknown[], options: object): unknown };
  nodes: { Node: new (...args: unknown[]) => object };
  runtime: { memberLookup(obj: unknown, key: unknown): unknown };
};

// Every `a.b` and `a[b]` a compiled template evaluates: a value's own properties only, so no key
// computed at run time (`x['__pro' ~ 'to__']`) reaches a prototype or a method to bind.
const memberLookup = internals.runtime.memberLookup;
internals.runtime.memberLookup = (obj, key) =>
  obj === undefined || obj === null || !Object.prototype.hasOwnProperty.call(Object(obj), key as PropertyKey)
    ? undefined
    : memberLookup(obj, key);

/** Renders `template` with `vars`; a template that will not render throws RenderError saying why. */
export function render(template: string, vars: Record<string, unknown>): string {
  refuseCode(template);
  try {
    return environment.renderString(wrapPartial(template), vars);
  } catch (err) {
    throw new RenderError(explain(template, vars, err));
  }
}

/**
 * Renders a template already known to render (a rubricPrompt at grading time); one that fails
 * gives its own text, one that runs out of time (looping over a long reply) throws RenderError.
 */
export function renderLenient(template: string, vars: Record<string, unknown>): string {
  refuseCode(template);
  try {
    return withinTime(RENDER_MS, () => lenient.renderString(wrapPartial(template), vars));
  } catch (err) {
    if (err instanceof OutOfTime) throw new RenderError(`the template did not render: ${err.message}`);
    return template;
  }
}

/** promptfoo's rule: a template with an unclosed tag (`{{` alone) is text, not a template. */
function wrapPartial(template: string): string {
  const partial = /({%[^%]*$|{{[^}]*$|{#[^#]*$)/m.test(template);
  const wrapped = /{%\s*raw\s*%}/.test(template) && /{%\s*endraw\s*%}/.test(template);
  return partial && !wrapped ? `{% raw %}${template}{% endraw %}` : template;
}

/** Nunjucks' message, with the variable named when one is missing. */
function explain(template: string, vars: Record<string, unknown>, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/null or undefined value/.test(message)) {
    const missing = variablesOf(template).filter((name) => vars[name.split(/[.[]/)[0]] === undefined);
    if (missing.length > 0) {
      return `it uses ${missing.map((m) => `{{${m}}}`).join(', ')}, which the test does not set: expected it in the test's vars (or defaultTest's)`;
    }
    return 'it prints a value that is not set (null or missing): expected every printed value set';
  }
  if (/template not found/.test(message)) {
    return 'it includes, imports or extends another template, which would read a file: expected the text in the prompt itself (or a var given as file://)';
  }
  const reason = message
    .replace(/^\(unknown path\)\s*/, '')
    .replace(/\s+/g, ' ')
    .trim();
  return `it is not a template Nunjucks can render (${reason})`;
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

/** Names that lead into JavaScript's objects rather than a template's data, alone or in a dotted path. */
const OBJECT_INTERNALS = /(?:^|\.)(constructor|prototype|__proto__)(?:\.|$)/;

/** A template that would run code: RenderError naming what it holds. */
function refuseCode(template: string): void {
  const problem = beyondData(template);
  if (problem)
    throw new RenderError(
      `it holds ${problem}: expected variables and filters only (a template is data: no calls, no lookups of constructor, prototype or __proto__)`,
    );
}

/**
 * What in a template goes beyond its vars and filters, or undefined: Nunjucks can call any function
 * a value reaches (`range.constructor(…)()` runs code), so calls (a filter is not one) and lookups
 * of `constructor`, `prototype` or `__proto__` are refused, whoever wrote the template.
 */
export function beyondData(template: string): string | undefined {
  let ast: unknown;
  try {
    ast = internals.parser.parse(wrapPartial(template), [], {});
  } catch {
    return undefined; // it will fail to render, with its own message
  }
  let problem: string | undefined;
  const walk = (node: unknown): void => {
    if (problem || !(node instanceof internals.nodes.Node)) return;
    const n = node as { typename: string; fields: string[]; value?: unknown } & Record<string, unknown>;
    if (n.typename === 'FunCall' || n.typename === 'Caller' || n.typename === 'CallExtension') {
      problem = 'a function call';
      return;
    }
    // Also inside a dotted name a filter follows (`groupby("constructor.constructor")`).
    const named = (n.typename === 'Literal' || n.typename === 'Symbol') && OBJECT_INTERNALS.exec(String(n.value));
    if (named) {
      problem = `'${named[1]}'`;
      return;
    }
    for (const field of n.fields as string[]) {
      const value = n[field];
      if (Array.isArray(value)) value.forEach(walk);
      else walk(value);
    }
  };
  walk(ast);
  return problem;
}
