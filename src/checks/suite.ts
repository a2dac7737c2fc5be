// The native checks file: conversation checks a deployed Claw must pass. Read once, before any
// request; every mistake is one error naming the file, the line, the key and what was expected.
import type { Node } from 'yaml';
import { type Entry, YamlFile } from '../config/yaml-file.js';
import { aType } from '../shared/format.js';
import { nearest } from '../shared/nearest.js';
import { ID_EXPECTED, isValidId } from '../shared/identifiers.js';
import { ASSERTION_TYPES, type Assertion } from './assertions.js';
import { familyOf } from './assertion-types/registry.js';
import { JUDGE_EXPECTED, readJudge } from './judge-file.js';
import { type JudgeSpec, judgeIdentity } from './judge-spec.js';
import {
  type Check,
  type CheckSuite,
  DEFAULT_CHECK_TIMEOUT_MS,
  MAX_CHECKS,
  MAX_REPEAT,
  MAX_TURNS,
  type Turn,
} from './check.js';
import { readTolerance } from './tolerance.js';
import type { Tolerances } from '../compare/index.js';

const TOP_KEYS = ['defaults', 'judge', 'checks'] as const;
const DEFAULT_KEYS = ['timeout', 'repeat', 'min-pass', 'tolerance'] as const;
const CHECK_KEYS = [
  'name',
  'claws',
  'send',
  'assert',
  'turns',
  'timeout',
  'repeat',
  'min-pass',
  'judge',
  'tolerance',
] as const;
const TURN_KEYS = ['send', 'assert'] as const;
const ASSERT_KEYS = ['type', 'value', 'threshold', 'categories'] as const;
const TYPE_NAMES = [...ASSERTION_TYPES, ...ASSERTION_TYPES.filter((t) => t !== 'latency').map((t) => `not-${t}`)];

/** Where a check's parts come from: the file, the defaults, and the judge for model-graded assertions. */
interface Context {
  file: YamlFile;
  env: NodeJS.ProcessEnv;
  judge?: JudgeSpec;
  /** The event when the file may be a fork's: its judges read nothing from the environment. */
  forkEvent?: string;
}

/** Reads a native checks file (not a promptfoo config: load.ts tells them apart); `forkEvent` is the
 * event when the file may be a fork's (github/run.ts): its judges then read nothing from the environment. */
export function readChecks(file: YamlFile, env: NodeJS.ProcessEnv, forkEvent?: string): CheckSuite {
  const top = new Map(file.entries(file.doc.contents, 'the checks file', TOP_KEYS).map((e) => [e.key, e]));
  const judgeEntry = top.get('judge');
  const context: Context = { file, env, forkEvent, judge: judgeEntry && readJudge(file, judgeEntry, env, forkEvent) };
  const defaults = {
    timeoutMs: DEFAULT_CHECK_TIMEOUT_MS,
    repeat: 1,
    minPass: undefined as number | undefined,
    tolerance: undefined as Tolerances | undefined,
  };
  const defaultsEntry = top.get('defaults');
  if (defaultsEntry) {
    for (const entry of file.entries(defaultsEntry.value, "'defaults'", DEFAULT_KEYS)) {
      if (entry.key === 'timeout') defaults.timeoutMs = file.duration(entry);
      if (entry.key === 'repeat') defaults.repeat = file.count(entry, 1, MAX_REPEAT);
      if (entry.key === 'min-pass') defaults.minPass = file.count(entry, 1, MAX_REPEAT);
      if (entry.key === 'tolerance') defaults.tolerance = readTolerance(file, entry);
    }
    if (defaults.minPass !== undefined && defaults.minPass > defaults.repeat) {
      file.fail(
        defaultsEntry.value,
        `'min-pass' ${defaults.minPass} is above 'repeat' ${defaults.repeat}: expected at most ${defaults.repeat}`,
      );
    }
  }
  const checksEntry = top.get('checks');
  if (!checksEntry) file.fail(file.doc.contents, "the checks file has no 'checks': expected a list of checks");
  const items = file.list(checksEntry, 'a list of checks, each with a name and send or turns');
  if (items.length === 0) file.failValue(checksEntry, 'at least one check');
  if (items.length > MAX_CHECKS) {
    file.fail(
      checksEntry.value,
      `'checks' holds ${items.length} checks: expected at most ${MAX_CHECKS} (each runs on every Claw the step covers)`,
    );
  }
  const names = new Set<string>();
  const checks = items.map((node, i) => {
    const check = readCheck(context, node, i + 1, defaults);
    if (names.has(check.name))
      file.fail(node, `two checks are named ${JSON.stringify(check.name)}: expected unique names`);
    names.add(check.name);
    return check;
  });
  const judges = new Map<string, JudgeSpec>();
  for (const check of checks) {
    for (const a of check.turns.flatMap((t) => t.assert)) {
      if (a.type === 'llm-rubric' || a.type === 'factuality') judges.set(judgeIdentity(a.judge), a.judge);
    }
  }
  return {
    file: file.name,
    checks,
    judges: [...judges.values()],
    ...(defaults.tolerance ? { tolerance: defaults.tolerance } : {}),
  };
}

function readCheck(
  outer: Context,
  node: Node,
  number: number,
  defaults: { timeoutMs: number; repeat: number; minPass?: number },
): Check {
  const file: YamlFile = outer.file;
  const where = `check ${number}`;
  const entries = new Map(file.entries(node, where, CHECK_KEYS).map((e) => [e.key, e]));
  const ownJudge = entries.get('judge');
  const context = ownJudge ? { ...outer, judge: readJudge(file, ownJudge, outer.env, outer.forkEvent) } : outer;
  const nameEntry = entries.get('name');
  if (!nameEntry) file.fail(node, `${where} has no 'name': expected a name for the report`);
  const name = file.text(nameEntry, 'a name for the report');
  const label = `check ${JSON.stringify(name)}`;

  const send = entries.get('send');
  const turnsEntry = entries.get('turns');
  if (send && turnsEntry) file.fail(turnsEntry.pair, `${label} has both 'send' and 'turns': expected one of them`);
  if (!send && !turnsEntry)
    file.fail(node, `${label} has neither 'send' nor 'turns': expected a message to send, or a list of turns`);
  if (turnsEntry && entries.has('assert')) {
    file.fail(
      entries.get('assert')?.pair,
      `${label} has 'assert' beside 'turns': expected the assertions inside each turn`,
    );
  }
  let turns: Turn[];
  if (send) {
    turns = [{ send: file.text(send, 'a message to send'), assert: readAsserts(context, entries.get('assert')) }];
  } else {
    const items = file.list(turnsEntry!, 'a list of turns, each with send and optionally assert');
    if (items.length === 0) file.failValue(turnsEntry!, 'at least one turn');
    if (items.length > MAX_TURNS)
      file.fail(turnsEntry!.value, `${label} has ${items.length} turns: expected at most ${MAX_TURNS}`);
    turns = items.map((item, i) => {
      const turn = new Map(file.entries(item, `turn ${i + 1} of ${label}`, TURN_KEYS).map((e) => [e.key, e]));
      const message = turn.get('send');
      if (!message) file.fail(item, `turn ${i + 1} of ${label} has no 'send': expected a message to send`);
      return { send: file.text(message, 'a message to send'), assert: readAsserts(context, turn.get('assert')) };
    });
  }

  const clawsEntry = entries.get('claws');
  const claws = clawsEntry
    ? file.list(clawsEntry, 'a list of Claw ids').map((item) => {
        const id = file.text({ key: 'claws', pair: clawsEntry.pair, value: item }, `a Claw id: ${ID_EXPECTED}`);
        if (!isValidId(id)) file.fail(item, `'claws' holds ${JSON.stringify(id)}: expected ${ID_EXPECTED}`);
        return id;
      })
    : undefined;
  const repeatEntry = entries.get('repeat');
  const repeat = repeatEntry ? file.count(repeatEntry, 1, MAX_REPEAT) : defaults.repeat;
  const minPassEntry = entries.get('min-pass');
  const minPass = minPassEntry ? file.count(minPassEntry, 1, MAX_REPEAT) : (defaults.minPass ?? repeat);
  if (minPass > repeat) {
    file.fail(
      minPassEntry?.value ?? repeatEntry?.value ?? node,
      `${label}: 'min-pass' ${minPass} is above 'repeat' ${repeat}: expected at most ${repeat}`,
    );
  }
  const timeoutEntry = entries.get('timeout');
  const toleranceEntry = entries.get('tolerance');
  return {
    name,
    claws,
    turns,
    repeat,
    minPass,
    timeoutMs: timeoutEntry ? file.duration(timeoutEntry) : defaults.timeoutMs,
    ...(toleranceEntry ? { tolerance: readTolerance(file, toleranceEntry) } : {}),
  };
}

function readAsserts(context: Context, entry: Entry | undefined): Assertion[] {
  if (!entry) return [];
  return context.file.list(entry, 'a list of assertions, each with a type').map((node) => readAssert(context, node));
}

function readAssert(context: Context, node: Node): Assertion {
  const file: YamlFile = context.file;
  const entries = new Map(file.entries(node, 'an assertion', ASSERT_KEYS).map((e) => [e.key, e]));
  const typeEntry = entries.get('type');
  if (!typeEntry) file.fail(node, `an assertion has no 'type': expected one of ${TYPE_NAMES.join(', ')}`);
  const written = file.text(typeEntry, `one of ${TYPE_NAMES.join(', ')}`);
  if (!TYPE_NAMES.includes(written)) {
    // A typo is named with the type it nearly is, as the promptfoo reader does, not the whole list.
    const near = nearest(written, TYPE_NAMES);
    file.failValue(
      typeEntry,
      near ? `one of the ${TYPE_NAMES.length} types; did you mean '${near}'?` : `one of ${TYPE_NAMES.join(', ')}`,
    );
  }
  const negate = written.startsWith('not-');
  const type = negate ? written.slice(4) : written;
  const reader = familyOf(type).native!;
  const value = entries.get('value');
  const threshold = entries.get('threshold');
  const categories = entries.get('categories');

  if (threshold && !reader.threshold) {
    file.fail(
      threshold.pair,
      `'threshold' belongs to a latency, levenshtein or llm-rubric assertion, not '${written}'`,
    );
  }
  if (categories && !reader.categories)
    file.fail(categories.pair, `'categories' belongs to a factuality assertion, not '${written}'`);
  const expected = reader.expected ?? 'a string';
  if (value && reader.value === 'none') file.fail(value.pair, `${aType(written)} assertion takes no 'value'`);
  if (!value && reader.value === 'required')
    file.fail(node, `${aType(written)} assertion has no 'value': expected ${expected}`);
  return reader.read({
    file,
    node,
    written,
    type,
    negate,
    value,
    threshold,
    categories,
    text: () => file.text(value!, expected),
    judge: () => judgeOf(context, node, written),
  }) as Assertion;
}

function judgeOf(context: Context, node: Node, written: string): JudgeSpec {
  if (!context.judge) {
    context.file.fail(
      node,
      `${aType(written)} assertion needs a judge: expected a 'judge:' block at the top of the file or in the check (${JUDGE_EXPECTED})`,
    );
  }
  return context.judge;
}
