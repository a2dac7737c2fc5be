// JavaScript that the repository wrote (promptfoo's `javascript` assertions and `transform`s), run
// as promptfoo runs it: a function of the output and a context, inline or from a file. Here each
// call runs in a worker thread of its own, under the check's deadline (terminated when it passes),
// with no environment variables. The Claw's reply only ever reaches it as data, the first argument,
// never as code; the code itself comes from the checks file, read before any request.
import { Worker } from 'node:worker_threads';

/** A script: an inline function body, or a function a file exports. */
export type Script =
  | {
      kind: 'inline';
      /** The function's body, built as promptfoo builds it from the expression written. */
      body: string;
      /** As written, for messages (cut when long). */
      label: string;
    }
  | { kind: 'file'; path: string; functionName?: string; label: string };

export type ScriptResult =
  /** What the function returned (structured-cloned out of the worker; undefined as such). */
  | { kind: 'returned'; value: unknown }
  /** It threw (or could not be loaded): promptfoo's "Custom function threw error". */
  | { kind: 'threw'; message: string }
  /** It did not finish before the deadline, or the worker died: no verdict. */
  | { kind: 'unfinished'; message: string };

/** Runs a script: `(input, context, process)`, in a worker, within `timeoutMs`. */
export type ScriptRunner = (
  script: Script,
  input: unknown,
  context: object,
  timeoutMs: number,
) => Promise<ScriptResult>;

// The worker: loads the function, calls it, posts back what it returned. It is a string so the
// bundle carries it whole; it imports a file by its URL, so CommonJS and ES modules both work.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
const pick = (mod, name) => {
  if (name) {
    const fn = mod[name] ?? mod.default?.[name];
    if (typeof fn === 'function') return fn;
    throw new Error('the file exports no function named ' + JSON.stringify(name));
  }
  if (typeof mod.default === 'function') return mod.default;
  if (typeof mod === 'function') return mod;
  throw new Error('the file exports no function: expected module.exports = (output, context) => …, or a default export');
};
(async () => {
  const { script, input, context } = workerData;
  const fn = script.kind === 'inline'
    ? new Function(script.param, 'context', 'process', script.body)
    : pick(await import(pathToFileURL(script.path).href), script.functionName);
  const value = await fn(input, context, process);
  try {
    parentPort.postMessage({ kind: 'returned', value });
  } catch (err) {
    parentPort.postMessage({ kind: 'threw', message: 'it returned a value that cannot leave the worker (' + err.message + ')' });
  }
})().catch((err) => {
  parentPort.postMessage({ kind: 'threw', message: err instanceof Error ? err.message : String(err) });
});
`;

/** The most heap one script may use. */
const MAX_SCRIPT_HEAP_MB = 512;

/** The parameter an inline script's first argument is named by: `output`, as promptfoo names it. */
const PARAM = 'output';

export const runScript: ScriptRunner = (script, input, context, timeoutMs) =>
  new Promise((resolve) => {
    if (timeoutMs <= 0) {
      resolve({ kind: 'unfinished', message: `${script.label} was not run: the check's time was up` });
      return;
    }
    let settled = false;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { script: { ...script, param: PARAM }, input, context },
      // The run's secrets stay out of process.env (the code is still the repository's, with the
      // runner's rights: it is refused under an event where it may be a fork's: config/fork.ts).
      env: {},
      // One assertion's memory is bounded: past it the worker ends, and the run goes on.
      resourceLimits: { maxOldGenerationSizeMb: MAX_SCRIPT_HEAP_MB },
      stdout: true,
      stderr: true,
    });
    // What the script prints is dropped: it may echo the reply, and the log is no place for it.
    worker.stdout.resume();
    worker.stderr.resume();
    const finish = (result: ScriptResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    };
    const timer = setTimeout(
      () =>
        finish({
          kind: 'unfinished',
          message: `${script.label} did not finish within ${Math.ceil(timeoutMs / 1000)}s`,
        }),
      timeoutMs,
    );
    worker.once('message', (message: ScriptResult) => finish(message));
    worker.once('error', (err) =>
      finish(
        (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { kind: 'unfinished', message: `${script.label} used more than ${MAX_SCRIPT_HEAP_MB} MB of memory` }
          : { kind: 'threw', message: err instanceof Error ? err.message : String(err) },
      ),
    );
    worker.once('exit', (code) =>
      finish({ kind: 'unfinished', message: `${script.label} ended (exit code ${code}) without an answer` }),
    );
  });

/**
 * An inline `javascript` assertion's body, as promptfoo builds it: a multi-line value is the body
 * itself; one line is an expression to return, after any leading declarations.
 */
export function assertionBody(code: string): string {
  const text = code.trimEnd();
  if (text.includes('\n')) return text;
  const trimmed = text.trim().replace(/;+\s*$/, '');
  if (/^(const|let|var)\s/.test(trimmed)) {
    const last = lastStatementSemicolon(trimmed);
    if (last !== -1) {
      const expression = trimmed.slice(last + 1).trim();
      if (expression) return `${trimmed.slice(0, last + 1)} return ${expression}`;
    }
    return trimmed;
  }
  return `return ${trimmed}`;
}

/** An inline `transform`'s body, as promptfoo builds it: several lines as they are, one line returned. */
export function transformBody(code: string): string {
  return code.includes('\n') ? code : `return ${code}`;
}

/** The last `;` outside string literals, or -1. */
function lastStatementSemicolon(code: string): number {
  let quote: string | undefined;
  let last = -1;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === ';') last = i;
  }
  return last;
}
