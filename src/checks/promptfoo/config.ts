// A promptfoo config used as a checks file, told apart from the native format by its keys. The
// Claw is the provider: each test (after defaultTest, scenarios and the expansion of list vars)
// runs with each prompt, rendered with Nunjucks from the test's vars, as one check of one turn,
// scored as promptfoo scores it (scoring.ts). Keys that only steer promptfoo's own running are
// ignored with one notice; what this project cannot honour is refused, each with the file, the
// line and what to write instead. Everything is read now, before any request.
import { YamlFile } from '../../config/yaml-file.js';
import type { JudgeSpec } from '../judge-spec.js';
import type { TurnAssertion } from '../scoring.js';
import type { Check, CheckSuite, CompareAssertion } from '../check.js';
import type { Tolerances } from '../../compare/index.js';
import type { AssertContext } from './assert-context.js';
import { readAssertion, readTransform } from './asserts.js';
import { readCompare } from './compare-asserts.js';
import type { CaseOrigin, PromptfooPrompt } from './case.js';
import { ConfigFiles } from './files.js';
import { type Obj, Places, isObj, show } from './located.js';
import { OutOfTime, RenderError, render, withinTime } from './render.js';
import { type Sources, readPrompts, readTests } from './sources.js';
import { chatMessages, userTurns } from './chat.js';
import { readDerivedMetrics } from './derived.js';
import { readMetadataTolerance } from './tolerance.js';
import { nearest } from '../../shared/nearest.js';

/** Keys that say a file is a promptfoo config, and keys that say it is a native checks file. */
const PROMPTFOO_KEYS = ['prompts', 'tests', 'defaultTest', 'providers', 'scenarios', 'description'];
const NATIVE_KEYS = ['checks', 'defaults', 'judge'];

/** Read and used. */
const TOP_KEYS = [
  'description',
  'prompts',
  'providers',
  'tests',
  'defaultTest',
  'scenarios',
  'evaluateOptions',
  'assertionTemplates',
  'derivedMetrics',
];
/** Only steer promptfoo's own runs, its web view or its sharing: ignored, with one notice. */
const IGNORED_TOP = [
  'providers',
  'outputPath',
  'sharing',
  'tags',
  'metadata',
  'writeLatestResults',
  'commandLineOptions',
  'tracing',
  '$schema',
  'vars',
];
/** What to write instead of a top-level key this project cannot honour. */
const REFUSED_TOP: Record<string, string> = {
  env: "it sets variables for promptfoo's providers: set them in the step's environment (env: on the step) instead",
  nunjucksFilters: 'custom filters are code this project does not load: use the built-in filters',
  extensions: 'extension hooks are code this project does not run: remove them',
  redteam: 'red-team generation runs in promptfoo: generate the tests there and list them here',
};
const TEST_KEYS = [
  'description',
  'vars',
  'assert',
  'options',
  'threshold',
  'metadata',
  'prompts',
  'providers',
  'provider',
];
const OPTION_KEYS = [
  'provider',
  'rubricPrompt',
  'transform',
  'postprocess',
  'prefix',
  'suffix',
  'factuality',
  'disableVarExpansion',
  'disableDefaultAsserts',
  'repeat',
  'runSerially',
  'disableConversationVar',
];
const REFUSED_OPTIONS: Record<string, string> = {
  transformVars: 'it runs a script over the vars: write the vars as they should be sent',
  storeOutputAs: 'one test never feeds another here: write the conversation as turns of a native checks file',
};
const EVALUATE_KEYS = [
  'repeat',
  'timeoutMs',
  'maxConcurrency',
  'delay',
  'cache',
  'showProgressBar',
  'interactiveProviders',
];

export const DEFAULT_TIMEOUT_MS = 60_000;

export interface PromptfooContext {
  workspace: string;
  /** How messages name the workspace: the entry's words ('the workspace', 'the current folder'). */
  folder?: string;
  env: NodeJS.ProcessEnv;
  /** The event when the files may be a fork's (github/run.ts): no code from the file runs. */
  forkEvent?: string;
}

/** Whether a checks file is a promptfoo config (by its top-level keys); both kinds of keys at once are a mistake. */
export function isPromptfooConfig(file: YamlFile): boolean {
  const contents = file.doc.contents as { items?: { key?: { value?: unknown } }[] } | null;
  const keys = (contents?.items ?? []).map((pair) => String(pair.key?.value ?? ''));
  const promptfoo = keys.filter((k) => PROMPTFOO_KEYS.includes(k));
  const native = keys.filter((k) => NATIVE_KEYS.includes(k));
  if (promptfoo.length && native.length) {
    file.fail(
      file.doc.contents,
      `the checks file has ${native.map((k) => `'${k}'`).join(', ')} (a checks file) beside ${promptfoo.map((k) => `'${k}'`).join(', ')} (a promptfoo config): expected one format`,
    );
  }
  return promptfoo.length > 0;
}

/** The longest reading a config may take: its templates render here, and a few nested loops never end. */
export const MAX_READ_MS = 5000;

export function readPromptfooConfig(file: YamlFile, context: PromptfooContext): CheckSuite {
  try {
    return withinTime(MAX_READ_MS, () => readConfig(file, context));
  } catch (err) {
    if (!(err instanceof OutOfTime)) throw err;
    return file.fail(
      file.doc.contents,
      `reading the promptfoo config took more than ${MAX_READ_MS / 1000}s (templates that loop, or tests by the thousand): expected templates that render at once, and at most a few hundred tests`,
    );
  }
}

/** What reading one config gathers as it goes: the checks so far, their names, judges and notices. */
interface Reading {
  context: PromptfooContext;
  words: YamlFile['words'];
  src: Sources;
  prompts: PromptfooPrompt[];
  evaluate: { repeat: number; timeoutMs: number };
  templates: Obj | undefined;
  defaultTest: Obj;
  ignored: string[];
  judges: Map<string, JudgeSpec>;
  checks: Check[];
  /** Names taken, each with the vars of the test that took it. */
  names: Map<string, Obj>;
  testIdx: number;
}

function readConfig(file: YamlFile, context: PromptfooContext): CheckSuite {
  const places = new Places();
  const top = places.fromYaml(file);
  if (!isObj(top))
    return file.fail(file.doc.contents, 'a promptfoo config is a mapping: expected prompts, tests and the rest');
  const src: Sources = { places, files: new ConfigFiles(context.workspace, file.name, context.folder) };
  const ignored: string[] = [];
  checkTopKeys(top, places, ignored);
  const description = top.description === undefined ? undefined : String(top.description);
  const prompts = readPrompts(top.prompts, top, src, ignored);
  const derivedMetrics = readDerivedMetrics(top, places);
  const evaluate = readEvaluateOptions(top, places, ignored);
  const templates = top.assertionTemplates;
  if (templates !== undefined && !isObj(templates))
    places.fail(top, 'assertionTemplates', "'assertionTemplates' is not a mapping of names to assertions");
  const defaultTest = readDefaultTest(top, prompts, src, ignored);
  const tolerance = readMetadataTolerance(defaultTest, places);
  const reading: Reading = {
    context,
    words: file.words,
    src,
    prompts,
    evaluate,
    templates: templates as Obj | undefined,
    defaultTest,
    ignored,
    judges: new Map(),
    checks: [],
    names: new Map(),
    testIdx: 0,
  };
  const tests = readTests(top.tests, top, src);
  const scenarios = readScenarios(top, places, src);
  const all: { test: unknown; at: object }[] = [...tests.map((test) => ({ test, at: test as object })), ...scenarios];
  if (all.length === 0) all.push({ test: {}, at: top });
  for (const { test, at } of all) readTest(reading, test, at);
  if (reading.checks.length === 0)
    file.fail(file.doc.contents, 'no test runs with any prompt: expected tests whose prompts filter names a prompt');
  const notices = ignored.length
    ? [`${file.name} is a promptfoo config; ignored here: ${[...new Set(ignored)].join(', ')}.`]
    : [];
  return {
    file: file.name,
    checks: reading.checks,
    judges: [...reading.judges.values()],
    promptfoo: {
      description,
      prompts,
      config: withoutSecrets(top) as Record<string, unknown>,
      ...(derivedMetrics.length ? { derivedMetrics } : {}),
    },
    notices,
    ...(tolerance ? { tolerance } : {}),
  };
}

/** Refuses the top-level keys this project cannot honour and names the ignored ones. */
function checkTopKeys(top: Obj, places: Places, ignored: string[]): void {
  for (const key of Object.keys(top)) {
    if (Object.hasOwn(REFUSED_TOP, key)) places.fail(top, key, `'${key}' is refused: ${REFUSED_TOP[key]}`);
    if (IGNORED_TOP.includes(key)) ignored.push(key === 'providers' ? 'providers (the Claws under test answer)' : key);
    else if (!TOP_KEYS.includes(key)) {
      places.fail(
        top,
        key,
        `unknown key '${key}' in a promptfoo config: expected ${TOP_KEYS.filter((k) => k !== 'providers')
          .map((k) => `'${k}'`)
          .join(', ')}`,
      );
    }
  }
}

/** `defaultTest`, inline or from a file, checked as a test is; `{}` when there is none. */
function readDefaultTest(top: Obj, prompts: PromptfooPrompt[], src: Sources, ignored: string[]): Obj {
  if (top.defaultTest === undefined) return {};
  const places = src.places;
  const value = typeof top.defaultTest === 'string' ? readTests(top.defaultTest, top, src)[0] : top.defaultTest;
  if (!isObj(value))
    places.fail(top, 'defaultTest', "'defaultTest' is not a mapping: expected vars, assert and options for every test");
  const defaultTest = value as Obj;
  checkTest(defaultTest, places, ignored, 'defaultTest');
  checkPromptRefs(defaultTest, prompts, places);
  return defaultTest;
}

/** One test (or scenario test): merged under defaultTest, expanded over its list vars, a check per prompt. */
function readTest(reading: Reading, test: unknown, at: object): void {
  const { places } = reading.src;
  if (!isObj(test)) places.fail(at, undefined, `a test is ${show(test)}: expected a mapping with vars and assert`);
  checkTest(test as Obj, places, reading.ignored, 'a test');
  checkPromptRefs(test as Obj, reading.prompts, places);
  // The test's own tolerance (a scenario's config with it); defaultTest's is the suite's.
  const tolerance = readMetadataTolerance(test as Obj, places);
  const merged = mergeDefault(reading.defaultTest, test as Obj, places);
  const repeat = readRepeat(merged.options as Obj, places) ?? reading.evaluate.repeat;
  for (const vars of expandVars(merged, places)) {
    readCase(reading, { test: test as Obj, merged, vars, repeat, tolerance });
    reading.testIdx += 1;
  }
}

/** A test with one choice of its vars: a check for each prompt it runs with. */
function readCase(
  reading: Reading,
  one: { test: Obj; merged: Obj; vars: Obj; repeat: number; tolerance: Tolerances | undefined },
): void {
  const { test, merged, vars, repeat, tolerance } = one;
  const { places, files } = reading.src;
  const { prompts } = reading;
  const loaded = loadVars(vars, reading.src);
  const ctx: AssertContext = {
    places,
    files,
    env: reading.context.env,
    vars: loaded,
    options: merged.options as Obj,
    forkEvent: reading.context.forkEvent,
    judges: reading.judges,
    templates: reading.templates,
    words: reading.words,
    ignored: reading.ignored,
  };
  const { assert, compare, written } = readAsserts(merged, ctx);
  // promptfoo reads options.provider only for a grader: one no assertion of the test grades with
  // (a test of plain assertions under defaultTest's) is named once for the file, never refused.
  if ((merged.options as Obj).provider !== undefined && !ctx.providerUsed)
    reading.ignored.push(
      'options.provider where no model-graded assertion of the test uses it (it names the grader only)',
    );
  const transform = readTransform(merged.options as Obj, ctx);
  const threshold = readThreshold(merged, places);
  const testCase = caseOf(merged, vars, written);
  prompts.forEach((prompt, promptIdx) => {
    if (!promptAllowed(prompt, merged.prompts)) return;
    const sends = renderPrompt(prompt, merged, loaded, test, places);
    const last = sends.length - 1;
    const origin: CaseOrigin = { testIdx: reading.testIdx, promptIdx, vars: loaded, testCase };
    const name = unique(reading.names, nameOf(merged, vars, prompts.length > 1 ? prompt : undefined), vars);
    reading.checks.push({
      name,
      // A chat prompt's earlier user messages are turns that only need a reply; the test grades the last.
      turns: sends.map((send, i) =>
        i < last
          ? { send, assert: [] }
          : {
              send,
              assert,
              ...(threshold === undefined ? {} : { threshold }),
              ...(transform ? { transform } : {}),
              // max-score compares every assertion's score, as promptfoo grades them all.
              ...(compare.some((c) => c.type === 'max-score') ? { gradeAll: true } : {}),
            },
      ),
      repeat,
      minPass: repeat,
      timeoutMs: reading.evaluate.timeoutMs,
      origin,
      ...(compare.length ? { compare } : {}),
      ...(tolerance ? { tolerance } : {}),
    });
  });
}

function readEvaluateOptions(top: Obj, places: Places, ignored: string[]): { repeat: number; timeoutMs: number } {
  const options = top.evaluateOptions;
  const out = { repeat: 1, timeoutMs: DEFAULT_TIMEOUT_MS };
  if (options === undefined) return out;
  if (!isObj(options)) return places.fail(top, 'evaluateOptions', "'evaluateOptions' is not a mapping");
  for (const key of Object.keys(options)) {
    if (!EVALUATE_KEYS.includes(key))
      places.fail(
        options,
        key,
        `unknown key '${key}' in 'evaluateOptions': expected ${EVALUATE_KEYS.map((k) => `'${k}'`).join(', ')}`,
      );
    if (key !== 'repeat' && key !== 'timeoutMs')
      ignored.push(`evaluateOptions.${key} (the gate paces and runs the checks)`);
  }
  const repeat = readRepeat(options, places);
  if (repeat !== undefined) out.repeat = repeat;
  if (options.timeoutMs !== undefined) {
    if (typeof options.timeoutMs !== 'number' || !(options.timeoutMs > 0))
      places.fail(
        options,
        'timeoutMs',
        `'timeoutMs' is ${show(options.timeoutMs)}: expected milliseconds, such as 60000`,
      );
    out.timeoutMs = options.timeoutMs as number;
  }
  return out;
}

function readRepeat(options: Obj | undefined, places: Places): number | undefined {
  if (!options || options.repeat === undefined) return undefined;
  const n = options.repeat;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 100)
    places.fail(
      options,
      'repeat',
      `'repeat' is ${show(n)}: expected a whole number from 1 to 100 (every run must pass)`,
    );
  return n as number;
}

function checkTest(test: Obj, places: Places, ignored: string[], what: string): void {
  for (const key of Object.keys(test)) {
    if (key === 'assertScoringFunction')
      places.fail(
        test,
        key,
        "'assertScoringFunction' is a script this project does not run: use weights and 'threshold'",
      );
    if (key === 'providerOutput')
      places.fail(test, key, "'providerOutput' supplies a recorded output; here the Claw answers: remove it");
    if (!TEST_KEYS.includes(key)) {
      const near = nearest(key, TEST_KEYS);
      places.fail(
        test,
        key,
        `unknown key '${key}' in ${what}: ${near ? `did you mean '${near}'? ` : ''}expected ${TEST_KEYS.map((k) => `'${k}'`).join(', ')}`,
      );
    }
    if (key === 'provider' || key === 'providers') ignored.push(`a test's ${key} (the Claws under test answer)`);
  }
  if (test.vars !== undefined && !isObj(test.vars))
    places.fail(test, 'vars', "'vars' is not a mapping of names to values");
  if (test.assert !== undefined && !Array.isArray(test.assert))
    places.fail(test, 'assert', "'assert' is not a list of assertions");
  if (test.options !== undefined) {
    if (!isObj(test.options)) places.fail(test, 'options', "'options' is not a mapping");
    for (const key of Object.keys(test.options as Obj)) {
      if (Object.hasOwn(REFUSED_OPTIONS, key))
        places.fail(test.options, key, `'${key}' is refused: ${REFUSED_OPTIONS[key]}`);
      if (!OPTION_KEYS.includes(key)) {
        // promptfoo hands a test's other options to its own provider (response_format, …): they steer
        // a model call a Claw does not make, so they are ignored, named, as promptfoo takes them.
        const near = nearest(key, OPTION_KEYS);
        ignored.push(
          `options.${key} (it steers promptfoo's own provider${near && near !== key ? `; did you mean '${near}'?` : ''})`,
        );
      }
      if (key === 'runSerially' || key === 'disableConversationVar') ignored.push(`options.${key}`);
    }
  }
  if (test.metadata !== undefined && !isObj(test.metadata))
    places.fail(test, 'metadata', "'metadata' is not a mapping");
}

/** promptfoo's merge: defaultTest's vars, options and metadata under the test's; its asserts first. */
function mergeDefault(defaultTest: Obj, test: Obj, places: Places): Obj {
  // The merged mappings keep the places of what they merge, for errors.
  const options = places.merged(
    { ...((defaultTest.options as Obj) ?? {}), ...((test.options as Obj) ?? {}) },
    test,
    defaultTest.options,
    test.options,
  );
  const vars = places.merged(
    { ...((defaultTest.vars as Obj) ?? {}), ...((test.vars as Obj) ?? {}) },
    test,
    defaultTest.vars,
    test.vars,
  );
  const ownAsserts = (test.assert as unknown[]) ?? [];
  return {
    ...test,
    description: test.description,
    vars,
    assert: [
      ...((test.options as Obj)?.disableDefaultAsserts === true ? [] : ((defaultTest.assert as unknown[]) ?? [])),
      ...ownAsserts,
    ],
    options,
    threshold: test.threshold ?? defaultTest.threshold,
    metadata: { ...((defaultTest.metadata as Obj) ?? {}), ...((test.metadata as Obj) ?? {}) },
    prompts: test.prompts ?? defaultTest.prompts,
  };
}

function readScenarios(top: Obj, places: Places, src: Sources): { test: unknown; at: object }[] {
  if (top.scenarios === undefined) return [];
  if (!Array.isArray(top.scenarios)) return places.fail(top, 'scenarios', "'scenarios' is not a list");
  // A scenario may sit in a file of its own (a scenario, or a list of them), as promptfoo allows.
  const listed = (top.scenarios as unknown[]).flatMap((item) =>
    typeof item === 'string' ? readTests([item], top.scenarios as Obj, src) : [item],
  );
  return listed.flatMap((scenario) => {
    if (!isObj(scenario))
      return places.fail(top.scenarios, undefined, 'a scenario is not a mapping: expected config and tests');
    const extra = Object.keys(scenario).filter((k) => !['description', 'config', 'tests'].includes(k));
    if (extra.length)
      places.fail(
        scenario,
        extra[0],
        `unknown key '${extra[0]}' in a scenario: expected 'description', 'config', 'tests'`,
      );
    if (!Array.isArray(scenario.config) || scenario.config.length === 0)
      places.fail(
        scenario,
        'config',
        "a scenario's 'config' is not a list: expected a list of vars (and asserts) to run the tests with",
      );
    const tests = scenario.tests === undefined ? [{}] : readTests(scenario.tests, scenario, src);
    return (scenario.config as unknown[]).flatMap((data) => {
      if (!isObj(data)) return places.fail(scenario, 'config', 'a scenario config entry is not a mapping');
      return tests.map((test) => {
        if (!isObj(test)) return places.fail(scenario, 'tests', `a test is ${show(test)}: expected a mapping`);
        const merged: Obj = {
          ...data,
          ...test,
          vars: places.merged(
            { ...((data.vars as Obj) ?? {}), ...((test.vars as Obj) ?? {}) },
            data,
            data.vars,
            test.vars,
          ),
          options: places.merged(
            { ...((data.options as Obj) ?? {}), ...((test.options as Obj) ?? {}) },
            data,
            data.options,
            test.options,
          ),
          assert: [...((data.assert as unknown[]) ?? []), ...((test.assert as unknown[]) ?? [])],
          metadata: places.merged(
            { ...((data.metadata as Obj) ?? {}), ...((test.metadata as Obj) ?? {}) },
            data,
            data.metadata,
            test.metadata,
          ),
        };
        const at = places.where(test) ?? places.where(data);
        if (at) places.set(merged, at);
        return { test: merged, at: merged };
      });
    });
  });
}

/** promptfoo's expansion: a var holding a list of strings runs the test once per value. */
function expandVars(test: Obj, places: Places): Obj[] {
  const vars = test.vars as Obj;
  if ((test.options as Obj).disableVarExpansion === true) return [vars];
  let combos: Obj[] = [places.merged({}, vars)];
  for (const [key, value] of Object.entries(vars)) {
    const values = Array.isArray(value) && typeof value[0] === 'string' ? value : [value];
    combos = combos.flatMap((combo) => values.map((v) => places.merged({ ...combo, [key]: v }, vars)));
    if (combos.length > 1000)
      places.fail(test, 'vars', 'the vars expand to more than 1000 tests: expected fewer values');
  }
  return combos;
}

const MEDIA = /\.(png|jpe?g|gif|webp|bmp|svg|tiff?|ico|avif|heic|heif|mp4|mov|avi|webm|mkv|mp3|wav|ogg|m4a|flac|pdf)$/i;

/** Vars as promptfoo hands them to templates: file:// contents loaded, one trailing newline dropped, {{refs}} resolved. */
function loadVars(vars: Obj, src: Sources): Obj {
  const out: Obj = { ...vars };
  const holder = vars;
  for (const [key, value] of Object.entries(out)) {
    if (!ConfigFiles.isRef(value)) continue;
    const file = src.files.resolve(value);
    if ('problem' in file)
      src.places.fail(holder, key, `var '${key}' is ${show(value)}, which cannot be used: ${file.problem}`);
    const path = (file as { path: string }).path;
    if (/\.(js|cjs|mjs|ts|py|rb)$/.test(path))
      src.places.fail(
        holder,
        key,
        `var '${key}' is computed by a script in promptfoo, which this project does not run: expected its value, or a text, JSON or YAML file`,
      );
    if (MEDIA.test(path))
      src.places.fail(
        holder,
        key,
        `var '${key}' is ${show(value)}: a Claw takes text messages: expected a text, JSON or YAML file`,
      );
    const read = src.files.read(file as { path: string; written: string });
    if ('problem' in read)
      src.places.fail(holder, key, `var '${key}' is ${show(value)}, which cannot be read: ${read.problem}`);
    const text = (read as { text: string }).text;
    if (/\.ya?ml$/.test(path)) {
      // A YAML var is handed over as its JSON, as promptfoo does.
      const name = src.files.display(file as { path: string; written: string });
      out[key] = JSON.stringify(src.places.fromYaml(YamlFile.parse(name, text, 'vars file')));
    } else out[key] = text.trim();
  }
  for (const [key, value] of Object.entries(out)) if (typeof value === 'string') out[key] = value.replace(/\n$/, '');
  // promptfoo resolves a var that is exactly another's {{name}} before rendering (at most 5 rounds).
  for (let round = 0; round < 5; round++) {
    let changed = false;
    for (const [key, value] of Object.entries(out)) {
      if (typeof value !== 'string') continue;
      const m = /\{\{\s*(\w+)\s*\}\}/.exec(value);
      if (m && out[m[1]] !== undefined && m[1] !== key) {
        out[key] = value.replace(m[0], String(out[m[1]]));
        changed = true;
      }
    }
    if (!changed) break;
  }
  return out;
}

function readThreshold(test: Obj, places: Places): number | undefined {
  const t = test.threshold;
  if (t === undefined) return undefined;
  if (typeof t !== 'number' || !Number.isFinite(t))
    return places.fail(
      test,
      'threshold',
      `'threshold' is ${show(t)}: expected a number, the weighted score that passes (0 to 1)`,
    );
  return t;
}

/** promptfoo's match of a test's `prompts` entry: a label or an id, exactly, `Group:*`, or `Group` for `Group:…`. */
function promptMatches(ref: string, prompt: PromptfooPrompt): boolean {
  const ids = [prompt.label, ...(prompt.id === undefined ? [] : [prompt.id])];
  return ids.some(
    (name) => name === ref || (ref.endsWith('*') && name.startsWith(ref.slice(0, -1))) || name.startsWith(`${ref}:`),
  );
}

/** Whether a test runs with a prompt: every prompt without a filter, none with an empty one. */
function promptAllowed(prompt: PromptfooPrompt, filter: unknown): boolean {
  if (!Array.isArray(filter)) return true;
  return (filter as string[]).some((ref) => promptMatches(ref, prompt));
}

/** A test's `prompts` names prompts there are, as promptfoo checks when it reads the config. */
function checkPromptRefs(test: Obj, prompts: PromptfooPrompt[], places: Places): void {
  const filter = test.prompts;
  if (filter === undefined) return;
  if (!Array.isArray(filter) || filter.some((f) => typeof f !== 'string'))
    places.fail(test, 'prompts', "a test's 'prompts' is not a list of prompt labels or ids");
  for (const ref of filter as string[]) {
    if (prompts.some((p) => promptMatches(ref, p))) continue;
    const names = [...new Set(prompts.flatMap((p) => [p.label, ...(p.id === undefined ? [] : [p.id])]))];
    const near = nearest(ref, names);
    places.fail(
      test,
      'prompts',
      `a test's 'prompts' names ${show(ref)}, which no prompt has as its label or id: ${near ? `did you mean ${show(near)}? ` : ''}expected one of ${names.map((n) => show(n)).join(', ')}, or a prefix with '*'`,
    );
  }
}

/**
 * The messages sent: the prompt (with prefix and suffix) rendered with the vars, as promptfoo
 * renders it; one message, or a chat prompt's user messages in order (chat.ts).
 */
function renderPrompt(prompt: PromptfooPrompt, test: Obj, vars: Obj, at: Obj, places: Places): string[] {
  const options = test.options as Obj;
  const raw = `${String(options.prefix ?? '')}${prompt.raw}${String(options.suffix ?? '')}`;
  const fail = (message: string): never =>
    places.fail(at, 'vars', `the prompt ${show(prompt.label)} ${message}`, places.where(at));
  try {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined && typeof parsed === 'object' && parsed !== null) {
      const rendered = renderDeep(parsed, vars);
      const messages = chatMessages(JSON.stringify(rendered));
      return messages ? userTurns(messages) : [JSON.stringify(rendered, null, 2)];
    }
    const renderedVars = Object.fromEntries(
      Object.entries(vars).map(([k, v]) => [k, typeof v === 'string' ? render(v, vars) : v]),
    );
    return [render(raw, renderedVars)];
  } catch (err) {
    if (err instanceof RenderError) return fail(`cannot be rendered for this test: ${err.message}`);
    throw err;
  }
}

function renderDeep(value: unknown, vars: Obj): unknown {
  if (typeof value === 'string') return render(value, vars);
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, vars));
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, vars)]));
  return value;
}

/** The check's name: the test's description, or its vars; the prompt's label when there are several. */
function nameOf(test: Obj, vars: Obj, prompt: PromptfooPrompt | undefined): string {
  const described =
    typeof test.description === 'string' && test.description.trim() ? test.description.trim() : undefined;
  const base =
    described ??
    (Object.keys(vars).length
      ? Object.entries(vars)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(', ')
      : 'test');
  const short = (text: string, n: number): string => (text.length > n ? `${text.slice(0, n)}…` : text);
  return prompt ? `${short(base, 100)} [${short(prompt.label, 40)}]` : short(base, 140);
}

/**
 * A name no check has yet: a test expanded over vars (scenarios, defaultTest) is told apart by the
 * vars that differ from the first of its name, "Hello (language=French)"; a number only when none do.
 */
function unique(names: Map<string, Obj>, name: string, vars: Obj): string {
  const first = names.get(name);
  if (first === undefined) {
    names.set(name, vars);
    return name;
  }
  const shown = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
  const differ = Object.entries(vars)
    .filter(([k, v]) => shown(first[k]) !== shown(v))
    .map(([k, v]) => `${k}=${shown(v)}`)
    .join(', ');
  let candidate = differ ? `${name} (${differ.length > 100 ? `${differ.slice(0, 100)}…` : differ})` : name;
  for (let n = 2; names.has(candidate); n++) candidate = `${name} (${n})`;
  names.set(candidate, vars);
  return candidate;
}

/**
 * A test's assertions: those of each Claw's reply, and select-best and max-score, which compare
 * the Claws (one of each, as promptfoo runs the first); the written forms in the file's order.
 */
function readAsserts(
  test: Obj,
  ctx: AssertContext,
): { assert: TurnAssertion[]; compare: CompareAssertion[]; written: Record<string, unknown>[] } {
  const assert: TurnAssertion[] = [];
  const compare: CompareAssertion[] = [];
  const written: Record<string, unknown>[] = [];
  let maxScoreAt: unknown;
  for (const raw of test.assert as unknown[]) {
    const c = readCompare(raw, ctx);
    if (!c) {
      const a = readAssertion(raw, ctx);
      assert.push(a);
      written.push(a.written ?? { type: a.type });
      continue;
    }
    written.push(c.written);
    if (compare.some((x) => x.type === c.type))
      ctx.ignored?.push(`a second '${c.type}' in one test (promptfoo runs the first only), at ${c.where}`);
    else {
      compare.push(c);
      if (c.type === 'max-score') maxScoreAt = raw;
    }
  }
  if (maxScoreAt !== undefined && assert.length === 0)
    ctx.places.fail(
      maxScoreAt,
      undefined,
      "'max-score' picks the Claw whose other assertions of the test score highest, and this test has none: expected other assertions beside it (such as contains or llm-rubric)",
    );
  return { assert, compare, written };
}

/** The test as the output file shows it. */
function caseOf(test: Obj, vars: Obj, written: Record<string, unknown>[]): Record<string, unknown> {
  return {
    ...(typeof test.description === 'string' ? { description: test.description } : {}),
    vars,
    assert: written,
    options: withoutSecrets(test.options ?? {}),
    ...(test.threshold === undefined ? {} : { threshold: test.threshold }),
    metadata: test.metadata ?? {},
  };
}

/** A copy without API keys (the redactor removes them too; this keeps them out of the file's shape). */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (isObj(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, /^api[-_]?key$/i.test(k) ? '[redacted]' : withoutSecrets(v)]),
    );
  }
  return value;
}
