// The checks file: conversation checks a deployed Claw must pass. Read once, before any request;
// every mistake is one error naming the file, the line, the key and what was expected.
import type { Node } from 'yaml';
import { type Entry, YamlFile } from '../config/yaml-file.js';
import { ID_EXPECTED, isValidId } from '../identifiers.js';
import { PATTERN_EXPECTED, type ReplyPattern, patternProblem } from '../pattern.js';
import {
  ASSERTION_TYPES,
  type Assertion,
  type AssertionType,
  LIST_TYPES,
  NO_VALUE_TYPES,
  compileRegex,
} from './assertions.js';

export interface Turn {
  send: string;
  /** Empty: the turn only needs a reply (a setup turn). */
  assert: Assertion[];
}

export interface Check {
  name: string;
  /** Only these Claws; undefined: every Claw the step covers. */
  claws?: string[];
  turns: Turn[];
  repeat: number;
  minPass: number;
  /** Per attempt: every turn, task polls included. */
  timeoutMs: number;
}

export interface CheckSuite {
  /** The file, as the user named it. */
  file: string;
  checks: Check[];
}

export const DEFAULT_CHECK_TIMEOUT_MS = 60_000;

const TOP_KEYS = ['defaults', 'checks'] as const;
const DEFAULT_KEYS = ['timeout', 'repeat', 'min-pass'] as const;
const CHECK_KEYS = ['name', 'claws', 'send', 'assert', 'turns', 'timeout', 'repeat', 'min-pass'] as const;
const TURN_KEYS = ['send', 'assert'] as const;
const ASSERT_KEYS = ['type', 'value', 'threshold'] as const;
const TYPE_NAMES = [...ASSERTION_TYPES, ...ASSERTION_TYPES.filter((t) => t !== 'latency').map((t) => `not-${t}`)];

/** Reads the checks file at `path` (relative to `workspace`). */
export async function loadChecks(path: string, workspace: string): Promise<CheckSuite> {
  return readChecks(await YamlFile.read(path, workspace, 'checks file'));
}

/** Parses a checks file's text (the file name is for messages). */
export function parseChecks(name: string, text: string): CheckSuite {
  return readChecks(YamlFile.parse(name, text, 'checks file'));
}

function readChecks(file: YamlFile): CheckSuite {
  const top = new Map(file.entries(file.doc.contents, 'the checks file', TOP_KEYS).map((e) => [e.key, e]));
  const defaults = { timeoutMs: DEFAULT_CHECK_TIMEOUT_MS, repeat: 1, minPass: undefined as number | undefined };
  const defaultsEntry = top.get('defaults');
  if (defaultsEntry) {
    for (const entry of file.entries(defaultsEntry.value, "'defaults'", DEFAULT_KEYS)) {
      if (entry.key === 'timeout') defaults.timeoutMs = file.duration(entry);
      if (entry.key === 'repeat') defaults.repeat = file.count(entry, 1);
      if (entry.key === 'min-pass') defaults.minPass = file.count(entry, 1);
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
  const names = new Set<string>();
  const checks = items.map((node, i) => {
    const check = readCheck(file, node, i + 1, defaults);
    if (names.has(check.name))
      file.fail(node, `two checks are named ${JSON.stringify(check.name)}: expected unique names`);
    names.add(check.name);
    return check;
  });
  return { file: file.name, checks };
}

function readCheck(
  file: YamlFile,
  node: Node,
  number: number,
  defaults: { timeoutMs: number; repeat: number; minPass?: number },
): Check {
  const where = `check ${number}`;
  const entries = new Map(file.entries(node, where, CHECK_KEYS).map((e) => [e.key, e]));
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
    turns = [{ send: file.text(send, 'a message to send'), assert: readAsserts(file, entries.get('assert')) }];
  } else {
    const items = file.list(turnsEntry!, 'a list of turns, each with send and optionally assert');
    if (items.length === 0) file.failValue(turnsEntry!, 'at least one turn');
    turns = items.map((item, i) => {
      const turn = new Map(file.entries(item, `turn ${i + 1} of ${label}`, TURN_KEYS).map((e) => [e.key, e]));
      const message = turn.get('send');
      if (!message) file.fail(item, `turn ${i + 1} of ${label} has no 'send': expected a message to send`);
      return { send: file.text(message, 'a message to send'), assert: readAsserts(file, turn.get('assert')) };
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
  const repeat = repeatEntry ? file.count(repeatEntry, 1) : defaults.repeat;
  const minPassEntry = entries.get('min-pass');
  const minPass = minPassEntry ? file.count(minPassEntry, 1) : (defaults.minPass ?? repeat);
  if (minPass > repeat) {
    file.fail(
      minPassEntry?.value ?? repeatEntry?.value ?? node,
      `${label}: 'min-pass' ${minPass} is above 'repeat' ${repeat}: expected at most ${repeat}`,
    );
  }
  const timeoutEntry = entries.get('timeout');
  return {
    name,
    claws,
    turns,
    repeat,
    minPass,
    timeoutMs: timeoutEntry ? file.duration(timeoutEntry) : defaults.timeoutMs,
  };
}

function readAsserts(file: YamlFile, entry: Entry | undefined): Assertion[] {
  if (!entry) return [];
  return file.list(entry, 'a list of assertions, each with a type').map((node) => readAssert(file, node));
}

function readAssert(file: YamlFile, node: Node): Assertion {
  const entries = new Map(file.entries(node, 'an assertion', ASSERT_KEYS).map((e) => [e.key, e]));
  const typeEntry = entries.get('type');
  if (!typeEntry) file.fail(node, `an assertion has no 'type': expected one of ${TYPE_NAMES.join(', ')}`);
  const written = file.text(typeEntry, `one of ${TYPE_NAMES.join(', ')}`);
  if (!TYPE_NAMES.includes(written)) file.failValue(typeEntry, `one of ${TYPE_NAMES.join(', ')}`);
  const negate = written.startsWith('not-');
  const type = (negate ? written.slice(4) : written) as AssertionType;
  const value = entries.get('value');
  const threshold = entries.get('threshold');

  if (type === 'latency') {
    if (!threshold)
      file.fail(node, `a 'latency' assertion has no 'threshold': expected a duration such as 10s, or milliseconds`);
    if (value) file.fail(value.pair, `a 'latency' assertion takes 'threshold', not 'value'`);
    return { type, negate: false, thresholdMs: file.duration(threshold, { ms: true }) };
  }
  if (threshold) file.fail(threshold.pair, `'threshold' belongs to a 'latency' assertion, not '${written}'`);
  if (NO_VALUE_TYPES.includes(type)) {
    if (value) file.fail(value.pair, `a '${written}' assertion takes no 'value'`);
    return { type: 'is-json', negate, value: '' };
  }
  if (!value)
    file.fail(
      node,
      `a '${written}' assertion has no 'value': expected ${LIST_TYPES.includes(type) ? 'a list of strings' : 'a string'}`,
    );
  if (type === 'contains-any' || type === 'contains-all') {
    const values = file
      .list(value, 'a list of strings')
      .map((item) => file.text({ ...value, value: item }, 'a string'));
    if (values.length === 0) file.failValue(value, 'at least one string');
    return { type, negate, values };
  }
  const text = file.text(value, 'a string');
  if (type === 'regex') {
    let pattern: ReplyPattern;
    try {
      pattern = compileRegex(text);
    } catch (err) {
      file.failValue(value, `${PATTERN_EXPECTED} (${patternProblem(err)})`);
    }
    return { type, negate, pattern };
  }
  return { type, negate, value: text };
}
