// Inputs → one typed Settings object. Every validation and its message lives here, and all of it
// runs before any request is sent.
import { normalize } from 'node:path';
import { InputError } from '../shared/errors.js';
import { hasControls } from '../shared/format.js';
import { ID_EXPECTED, hasSpaceOrControl, isValidId } from '../shared/identifiers.js';
import { ParseError, parseBoolean, parseCount, parseDuration, parseEnum, parseList } from '../shared/parse.js';
import { PATTERN_EXPECTED, type ReplyPattern, compilePattern, patternProblem } from '../shared/pattern.js';
import { readSecureUrl, withoutUserinfo } from '../shared/url.js';
import { ACTION_WORDS, type Words } from '../shared/words.js';
import {
  COMMON_INPUTS,
  type CommonInput,
  INPUTS,
  type InputFields,
  type InputName,
  type ParsedFields,
  inputRow,
} from './inputs.js';

export { COMMON_INPUTS, type InputFields, type InputName };

/**
 * What this module needs of a command's definition (command.ts adds its run): its name, the inputs
 * it reads beyond those every command reads, and its own rules. An input it does not read is
 * refused when set, where a command reads it only to refuse it elsewhere (`ONLY_WITH`).
 */
export interface CommandInputs {
  name: string;
  inputs: readonly string[];
  rules?: InputRules;
}

/** A command's own rules for its inputs, read and checked before any request. */
export interface InputRules<S = Settings> {
  /** `claw-id` names several Claws (or `*`): what to ask for when it names none. */
  targets?: string;
  /** Several Claws make a fleet rollout. */
  fleet?: boolean;
  /** Inputs it cannot run without: what to ask for when each is empty. */
  requires?: Readonly<Record<string, string>>;
  /** It always calls GitHub: what the token needs (the message when there is none). */
  githubToken?: string;
  /** Inputs whose meaning is its own: its parser replaces the row's (compare's `baseline` is a Claw's id). */
  parse?: Readonly<Record<string, (text: string, w: Words) => unknown>>;
  /** Its rules across inputs, once all of them are read; `given` is each input as the user gave it. */
  validate?: (settings: S, given: InputReader, w: Words) => void;
}

/** Settings as a command that reads the inputs `I` sees them: the fields those inputs fill, and the common ones. */
export type SettingsOf<I extends InputName> = Pick<Settings, InputFields[I | CommonInput]>;

/** Settings: the fields the rows' parsers fill (ParsedFields), and those read here. */
export type Settings = ParsedFields & ReadFields;

/** The fields read here, by the rules that span inputs (the parsed ones come from their rows). */
export interface ReadFields {
  /** The command's name, as its definition gives it. */
  command: string;
  /** The API key; masked by main.ts before this object exists. */
  apiKey: string;
  /** Seals the state kept on GitHub instead of the API key, when set; masked by main.ts too. */
  stateSecret: string;
  /** Base address without a trailing `/v1` or slash; the transport adds exactly one `/v1`. */
  baseUrl: string;
  /** deploy/rollback: the one Claw. Empty when not given, or when `targets` names several. */
  clawId: string;
  /** deploy and health: the Claws named; `all` means every Claw in the workspace (`*`). */
  targets: { all: boolean; ids: string[] };
  /** deploy: several Claws (a list or `*`) make a fleet rollout. */
  fleet: boolean;
  deploymentId: string;
  wait: boolean;
  probeMessage: string;
  /** RE2 syntax, case-insensitive. */
  probeExpect: ReplyPattern | undefined;
  /** A GitHub environment to mirror a deploy into as a GitHub Deployment; empty: no mirroring. */
  environment: string;
  /** Token for the GitHub Deployments calls; masked by main.ts, used only with `environment`. */
  githubToken: string;
  /** A YAML file of conversation checks, relative to the workspace; empty: no checks. */
  checks: string;
  /** Where to write the checks' results as JUnit XML, relative to the workspace; empty: nowhere. */
  checksJunit: string;
  /** A file of judge verdicts kept between runs, relative to the workspace; empty: no cache. */
  judgeCache: string;
  /** plan, apply, drift: the manifest, relative to the workspace. */
  manifest: string;
  /** plan on a pull_request event: keep the plan in one comment on the pull request. */
  comment: boolean;
  /** compare: a checks output saved earlier (`checks-output`), the baseline instead of a Claw. */
  baselineFile: string;
  /** The files are the repository's own whatever the event (`trusted-files`): a fork's event refuses nothing. */
  trustedFiles: boolean;
  /** Where to write the checks' results in promptfoo's output format; empty: nowhere. */
  checksOutput: string;
  /** health: incidents as GitHub issues, counted across runs from `history`. */
  incidents: {
    enabled: boolean;
    /** Failing runs in a row before an incident opens. */
    confirm: number;
    /** Healthy runs in a row before it closes. */
    recover: number;
    /** Failing again this soon after a close reopens the same issue. */
    reopenWithinMs: number;
    /** GitHub logins assigned to a new incident. */
    assignees: string[];
    /** The most issues one run opens; the others wait for the next runs. */
    maxNew: number;
    /** Text added to a new incident (a team to notify). */
    mention: string;
  };
  /** health: the branch keeping one record per Claw per run; empty: no history. */
  history: string;
  /** health: render a status page into the history branch. */
  statusPage: boolean;
}

/** The branch `incidents` and `status-page` keep their history on when `history` is empty. */
export const DEFAULT_HISTORY_BRANCH = 'claw-health';

/** Reads one input by its action.yml name; returns '' when unset. */
export type InputReader = (name: string) => string;

/** Shows a value in an error message: quoted, control characters escaped, long values cut. */
function show(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** A bad value of one input, said in the entry's words (readSettings puts them in). */
class InputValueError extends InputError {
  constructor(
    readonly input: string,
    readonly value: string,
    readonly expected: string,
    words: Words = ACTION_WORDS,
  ) {
    super(`${words.subject(input)} is ${show(value)}: expected ${expected}.`);
  }
}

/** Refuses a bad value of one input: one line naming the input, the value and what was expected. */
export function refuseInput(input: string, value: string, expected: string, words?: Words): never {
  throw new InputValueError(input, value, expected, words);
}

function fail(input: string, value: string, expected: string): never {
  return refuseInput(input, value, expected);
}

/** Runs a parser, turning its ParseError into the one-line message for `input`. */
function parsed<T>(read: InputReader, input: string, parse: (text: string) => T): T {
  const value = read(input);
  try {
    return parse(value);
  } catch (err) {
    if (err instanceof ParseError) fail(input, err.shown ?? value, err.message);
    throw err;
  }
}

function identifier(read: InputReader, input: string): string {
  const value = read(input).trim();
  if (value !== '' && !isValidId(value)) fail(input, value, ID_EXPECTED);
  return value;
}

/** Normalizes the base URL: https (http only to loopback), no credentials, no `/v1` suffix. */
export function parseBaseUrl(value: string): string {
  const read = readSecureUrl(value);
  // Never echo a password written into the address.
  if ('expected' in read) fail('base-url', withoutUserinfo(value), read.expected);
  const { url } = read;
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/i, '');
  return `${url.origin}${path}`;
}

function parsePattern(value: string): ReplyPattern | undefined {
  if (value === '') return undefined;
  try {
    return compilePattern(value);
  } catch (err) {
    throw new ParseError(`${PATTERN_EXPECTED} (${patternProblem(err)})`);
  }
}

/** The default an empty input takes, where the input table says it does; else the value as given. */
function orDefault(name: string, value: string): string {
  const spec = inputRow(name);
  return value.trim() === '' && spec?.emptyMeansDefault ? (spec.default ?? '') : value;
}

/** One reading of the inputs for one command: each input read once from its source. */
class Reading {
  private readonly values = new Map<string, string>();
  readonly command: CommandInputs;
  constructor(
    readonly commands: readonly CommandInputs[],
    private readonly source: InputReader,
    readonly w: Words,
  ) {
    const names = commands.map((c) => c.name);
    const name = parsed(this.read, 'command', (v) => parseEnum(v, names));
    this.command = commands.find((c) => c.name === name)!;
  }

  /** The input as the user gave it (an empty one as its default, where the table says so). */
  read = (name: string): string => {
    let value = this.values.get(name);
    if (value === undefined) {
      value = orDefault(name, this.source(name));
      this.values.set(name, value);
    }
    return value;
  };

  /** Whether this run's command reads the input. */
  reads(input: string): boolean {
    return COMMON_INPUTS.includes(input) || this.command.inputs.includes(input);
  }

  /** An input the command cannot run without, empty: what it is asked for. */
  need(input: string, value: string): void {
    const expected = this.command.rules?.requires?.[input];
    if (expected !== undefined && value === '') fail(input, '', expected);
  }

  /** An input set for a command that does not read it: the commands that do, in the table's order. */
  onlyWith(input: string, set: boolean, value: string): void {
    if (!set || this.reads(input)) return;
    const readers = this.commands.filter((c) => c.inputs.includes(input)).map((c) => c.name);
    const list = readers.length > 1 ? `${readers.slice(0, -1).join(', ')} and ${readers.at(-1)}` : readers[0];
    const row = inputRow(input);
    fail(
      input,
      value,
      `to be set only with ${row?.onlyWith ?? `the ${list} command${readers.length > 1 ? 's' : ''}${row?.onlyWithWhy ? `, ${row.onlyWithWhy}` : ''}`}`,
    );
  }
}

/**
 * Reads and checks every input for the command it names, one of `commands` (the run's table).
 * `words` names them in messages as the entry's user knows them (the action's inputs, the command
 * line's flags); `fail` needs none: its error is said again here.
 */
export function readSettingsOf(
  commands: readonly CommandInputs[],
  read: InputReader,
  words: Words = ACTION_WORDS,
): Settings {
  try {
    const reading = new Reading(commands, read, words);
    const settings = readAll(reading);
    reading.command.rules?.validate?.(settings, reading.read, words);
    return settings;
  } catch (err) {
    if (err instanceof InputValueError && words !== ACTION_WORDS) {
      throw new InputValueError(err.input, err.value, err.expected, words);
    }
    throw err;
  }
}

function readAll(r: Reading): Settings {
  const { read, w } = r;
  const command = r.command.name;
  const service = readService(r);
  const claws = readClaws(r);
  const probeExpect = parsed(read, 'probe-expect', parsePattern);
  const probeMessage = read('probe-message');
  if (probeExpect && probeMessage.trim() === '') {
    fail('probe-message', '', `a chat message to send when ${w.input('probe-expect')} is set`);
  }
  const github = readGitHub(r);
  const wait = parsed(read, 'wait', parseBoolean);
  if (claws.fleet && !wait)
    fail('wait', read('wait'), `true when ${w.input('claw-id')} names several Claws: a rollout waits for each wave`);
  const files = readFiles(r);
  const trustedFiles = parsed(read, 'trusted-files', parseBoolean);
  if (trustedFiles && !files.checks && !files.manifest)
    fail(
      'trusted-files',
      read('trusted-files'),
      `to be set only with ${w.input('checks')} or ${w.input('manifest')}, the files it trusts`,
    );
  const health = readHealthOverTime(r);
  if (health.history && github.githubToken === '') {
    noToken(
      w,
      `'contents: write' (and 'issues: write' for incidents) when ${['history', 'incidents', 'status-page']
        .map(w.input)
        .join(', ')
        .replace(/, ([^,]*)$/, ' or $1')} is set`,
    );
  }
  const parsedFields = readParsed(r);
  return {
    command,
    ...service,
    ...claws,
    probeMessage,
    probeExpect,
    ...github,
    wait,
    ...files,
    trustedFiles,
    ...health,
    ...parsedFields,
  };
}

/** The service: its key, the secret that seals this action's state, its address. None is ever shown but the address. */
function readService(r: Reading): Pick<Settings, 'apiKey' | 'stateSecret' | 'baseUrl'> {
  const { read, w } = r;
  const apiKey = read('api-key').trim();
  // The key's value is never shown, not even here.
  if (apiKey === '')
    throw new InputError(`${w.subject('api-key')} is empty: expected the service's API key (store it as a secret).`);
  if (hasSpaceOrControl(apiKey)) {
    throw new InputError(
      `${w.subject('api-key')} contains whitespace or control characters: expected a single-line API key.`,
    );
  }
  // It goes in a header on every request: one no header can carry is found now, not after a write.
  if (/[\u0100-\uffff]/.test(apiKey)) {
    throw new InputError(
      `${w.subject('api-key')} holds a character no HTTP header can carry: expected the key as the service issued it.`,
    );
  }
  const stateSecret = read('state-secret').trim();
  // Never shown either: it seals what this action trusts on GitHub.
  if (stateSecret !== '' && (stateSecret.length < 16 || hasSpaceOrControl(stateSecret))) {
    throw new InputError(
      `${w.subject('state-secret')} is not usable: expected a single line of at least 16 characters without whitespace (store it as a secret), or nothing.`,
    );
  }
  if (read('base-url').trim() === '') fail('base-url', '', 'the service address, such as https://api.example.com/v1');
  return { apiKey, stateSecret, baseUrl: parseBaseUrl(read('base-url')) };
}

/** Which Claws, or which deployment: one id, or (for a command with `targets`) a list or `*`. */
function readClaws(r: Reading): Pick<Settings, 'clawId' | 'targets' | 'fleet' | 'deploymentId'> {
  const { read } = r;
  const clawInput = read('claw-id').trim();
  const targets = { all: false, ids: [] as string[] };
  let clawId = '';
  if (r.command.rules?.targets !== undefined) {
    const ids = parseList(clawInput);
    if (ids.length === 0) {
      fail(
        'claw-id',
        clawInput,
        `${r.command.rules?.targets}, several ids (comma or newline separated), or '*' for every Claw`,
      );
    }
    if (ids.includes('*')) {
      if (ids.length > 1) fail('claw-id', clawInput, "either '*' alone or a list of Claw ids");
      targets.all = true;
    } else {
      for (const id of ids) if (!isValidId(id)) fail('claw-id', id, ID_EXPECTED);
      targets.ids = [...new Set(ids)];
      if (targets.ids.length === 1) clawId = targets.ids[0];
    }
  } else {
    clawId = identifier(read, 'claw-id');
    r.need('claw-id', clawId);
  }
  const fleet = r.command.rules?.fleet === true && clawId === '';
  const deploymentId = identifier(read, 'deployment-id');
  r.need('deployment-id', deploymentId);
  return { clawId, targets, fleet, deploymentId };
}

function noToken(w: Words, needs: string): never {
  throw new InputError(
    `${w.subject('github-token')} is empty: expected a token with ${needs} (the default is the workflow's github.token).`,
  );
}

/** GitHub: the environment a deploy mirrors into, the plan comment, and the token they (and the command) need. */
function readGitHub(r: Reading): Pick<Settings, 'environment' | 'githubToken' | 'comment'> {
  const { read, w } = r;
  const environment = read('environment').trim();
  if (environment.length > 255 || hasControls(environment)) {
    fail('environment', environment, 'a GitHub environment name such as production, at most 255 characters');
  }
  const githubToken = read('github-token').trim();
  // Parsed once: every rule below that depends on it sees the same value (`TRUE` included).
  const comment = parsed(read, 'comment', parseBoolean);
  if (comment && githubToken === '') noToken(w, `'pull-requests: write' when ${w.input('comment')} is true`);
  const needs = r.command.rules?.githubToken;
  if (needs !== undefined && githubToken === '') noToken(w, needs);
  if (environment && githubToken === '') noToken(w, `'deployments: write' when ${w.input('environment')} is set`);
  // Never shown; with `environment` it goes in a header after the deployment starts, so it is checked now.
  const tokenUsed = environment !== '' || needs !== undefined || comment;
  if (tokenUsed && (hasSpaceOrControl(githubToken) || /[\u0100-\uffff]/.test(githubToken))) {
    throw new InputError(
      `${w.subject('github-token')} contains whitespace or characters no HTTP header can carry: expected a single-line token.`,
    );
  }
  return { environment, githubToken, comment };
}

/** The user's files (checks, their reports, the judge's cache, the manifest) and the inputs that go with them. */
function readFiles(
  r: Reading,
): Pick<Settings, 'checks' | 'checksJunit' | 'judgeCache' | 'baselineFile' | 'manifest'> & { checksOutput: string } {
  const { read, w } = r;
  const checks = filePath(
    read,
    'checks',
    `a YAML file of conversation checks in ${w.folder}, such as .github/claw-checks.yml`,
  );
  const checksJunit = filePath(read, 'checks-junit', 'a file to write JUnit XML to, such as reports/claw-checks.xml');
  if (checksJunit && !checks)
    fail('checks-junit', checksJunit, `to be set only with ${w.input('checks')} (there are no checks to report)`);
  const judgeCache = filePath(read, 'judge-cache', 'a file to keep judge verdicts in, such as .claw-judge-cache.json');
  if (judgeCache && !checks)
    fail('judge-cache', judgeCache, `to be set only with ${w.input('checks')} (no checks, no judge)`);
  r.onlyWith('checks', checks !== '', checks);
  r.need('checks', checks);
  const baselineFile = readBaselineFile(r);
  const manifest = filePath(read, 'manifest', `a YAML manifest of Claws in ${w.folder}, such as claws.yml`);
  if (r.reads('manifest') && !manifest)
    fail('manifest', '', `the YAML manifest to ${r.command.name}, such as claws.yml`);
  r.onlyWith('manifest', manifest !== '', manifest);
  const checksOutput = filePath(
    read,
    'checks-output',
    "a file to write promptfoo's output format to, such as reports/claw-checks.json",
  );
  if (checksOutput && !checks)
    fail('checks-output', checksOutput, `to be set only with ${w.input('checks')} (there are no checks to report)`);
  // One path for two files: a report would replace the checks, the judge's cache or the other report.
  const kept: [string, string, string][] = [
    ['checks', checks, 'the checks'],
    ['judge-cache', judgeCache, "the judge's cache"],
    ['checks-junit', checksJunit, 'the other report'],
  ];
  for (const [report, path] of [
    ['checks-junit', checksJunit],
    ['checks-output', checksOutput],
  ] as const) {
    for (const [name, other, what] of kept) {
      if (name === report || !path || !other || normalize(path) !== normalize(other)) continue;
      fail(report, path, `a file other than ${w.input(name)} (the report would replace ${what})`);
    }
  }
  return { checks, checksJunit, judgeCache, baselineFile, manifest, checksOutput };
}

/** Every input with a parser of its own in its row, parsed to its field. */
function readParsed(r: Reading): ParsedFields {
  const fields: Record<string, unknown> = {};
  for (const row of INPUTS) {
    // A command gives an input a meaning of its own with its own parser (compare's `baseline`).
    const parse = r.command.rules?.parse?.[row.name] ?? row.parse;
    if (!parse) continue;
    const value = parsed(r.read, row.name, (text) => parse(text, r.w));
    fields[row.fills as string] = value;
    if (row.setWhen && !r.reads(row.name)) {
      r.onlyWith(row.name, row.setWhen(value as never), typeof value === 'string' ? value : r.read(row.name));
    }
  }
  return fields as ParsedFields;
}

const GITHUB_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
/** A branch name git and GitHub accept, kept simple: no `..`, no leading `-` or `/`, no `.lock`. */
const BRANCH = /^(?!-|\/)(?!.*\.\.)(?!.*\/\/)(?!.*\.lock$)[\w./-]{1,100}(?<![/.])$/;

/** A whole number from 1 to `max`. */
const countUpTo =
  (max: number) =>
  (v: string): number => {
    const n = parseCount(v);
    if (n < 1 || n > max) throw new ParseError(`a whole number from 1 to ${max}`);
    return n;
  };

/** health's incidents, history and status page: each only for health, history on when the others need it. */
function readHealthOverTime(r: Reading): Pick<Settings, 'incidents' | 'history' | 'statusPage'> {
  const { read } = r;
  const enabled = parsed(read, 'incidents', parseBoolean);
  const statusPage = parsed(read, 'status-page', parseBoolean);
  let history = read('history').trim();
  if (history && !BRANCH.test(history)) fail('history', history, 'a branch name such as claw-health');
  r.onlyWith('incidents', enabled, read('incidents'));
  r.onlyWith('status-page', statusPage, read('status-page'));
  r.onlyWith('history', history !== '', read('history'));
  if ((enabled || statusPage) && history === '') history = DEFAULT_HISTORY_BRANCH;
  const assignees = parseList(read('assignees'));
  for (const login of assignees)
    if (!GITHUB_LOGIN.test(login)) fail('assignees', login, 'GitHub user names, comma separated');
  if (assignees.length > 10) fail('assignees', read('assignees'), 'at most 10 users (GitHub assigns no more)');
  const mention = read('mention').trim();
  if (mention.length > 500 || hasControls(mention))
    fail('mention', mention, 'one line of at most 500 characters, such as @org/oncall');
  return {
    incidents: {
      enabled,
      confirm: parsed(read, 'confirm', countUpTo(100)),
      recover: parsed(read, 'recover', countUpTo(100)),
      reopenWithinMs: parsed(read, 'reopen-within', parseDuration),
      maxNew: parsed(read, 'max-new-incidents', countUpTo(10_000)),
      assignees,
      mention,
    },
    history,
    statusPage,
  };
}

/** compare's `baseline-file`: a checks output saved earlier, refused for the commands that do not read it. */
function readBaselineFile(r: Reading): string {
  const baselineFile = filePath(
    r.read,
    'baseline-file',
    'a checks output saved earlier, such as reports/claw-checks.json',
  );
  r.onlyWith('baseline-file', baselineFile !== '', baselineFile);
  return baselineFile;
}

/** A path in the workspace: one line of visible text, or empty. */
function filePath(read: InputReader, input: string, expected: string): string {
  const value = read(input).trim();
  if (value !== '' && (hasControls(value) || value.length > 1024)) fail(input, value, expected);
  return value;
}
