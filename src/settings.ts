// Inputs → one typed Settings object. Every validation and its message lives here, and all of it
// runs before any request is sent.
import { normalize } from 'node:path';
import { InputError } from './errors.js';
import { hasControls } from './format.js';
import { ID_EXPECTED, hasSpaceOrControl, isValidId } from './identifiers.js';
import { ParseError, parseBoolean, parseCount, parseDuration, parseEnum, parseList, parseShare } from './parse.js';
import type { Share } from './share.js';
import { ROLLBACK_TRIGGERS, type RollbackTrigger } from './status.js';
import { PATTERN_EXPECTED, type ReplyPattern, compilePattern, patternProblem } from './pattern.js';
import { ON_CONFLICT, type OnConflict } from './deploy/conflict.js';
import { readSecureUrl, withoutUserinfo } from './url.js';
import { FAIL_ON, type FailOn, PREVIEW_CLAWS } from './preview/request.js';
import { ACTION_WORDS, type Words } from './words.js';

export const COMMANDS = [
  'deploy',
  'wait',
  'rollback',
  'health',
  'check',
  'plan',
  'apply',
  'drift',
  'preview',
  'compare',
] as const;
/** The commands that read a manifest (Claws as code). */
export const MANIFEST_COMMANDS: readonly Command[] = ['plan', 'apply', 'drift', 'preview'];
export type Command = (typeof COMMANDS)[number];

export interface Settings {
  command: Command;
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
  /** Fleet: cumulative wave sizes, the last always all. */
  waves: Share[];
  /** Fleet: how long deployed Claws must stay healthy before the next wave. */
  bakeMs: number;
  /** Fleet: how many Claws may fail before the rollout halts. */
  maxFailures: Share;
  /** Sent only when non-empty; otherwise the team default applies. */
  strategy: string;
  /** Extra fields merged into the trigger body. */
  payload: Record<string, unknown>;
  deploymentId: string;
  wait: boolean;
  timeoutMs: number;
  pollIntervalMs: number;
  autoRollback: boolean;
  rollbackOn: RollbackTrigger[];
  successStatuses: string[];
  failureStatuses: string[];
  requestTimeoutMs: number;
  /** Scheme before the key in Authorization; empty sends the bare key. */
  authScheme: string;
  probeMessage: string;
  /** RE2 syntax, case-insensitive. */
  probeExpect: ReplyPattern | undefined;
  failOnUnhealthy: boolean;
  /** A GitHub environment to mirror a deploy into as a GitHub Deployment; empty: no mirroring. */
  environment: string;
  /** Token for the GitHub Deployments calls; masked by main.ts, used only with `environment`. */
  githubToken: string;
  /** A Claw already deploying (409 on the trigger): wait for that deployment, or fail at once. */
  onConflict: OnConflict;
  /** A YAML file of conversation checks, relative to the workspace; empty: no checks. */
  checks: string;
  /** Where to write the checks' results as JUnit XML, relative to the workspace; empty: nowhere. */
  checksJunit: string;
  /** A file of judge verdicts kept between runs, relative to the workspace; empty: no cache. */
  judgeCache: string;
  /** plan, apply, drift: the manifest, relative to the workspace. */
  manifest: string;
  /** apply: the reviewed plan's id; apply refuses when the plan it computes now is another. Empty: no check. */
  planId: string;
  /** apply: deploy the Claws it created or whose config or skills changed. */
  deployChanged: boolean;
  /** apply: send write-only secrets even to Claws with no other change (rotation). */
  rewriteSecrets: boolean;
  /** drift: fail the step when there are changes. */
  failOnDrift: boolean;
  /** plan on a pull_request event: keep the plan in one comment on the pull request. */
  comment: boolean;
  /** preview: the Claws that get one (those the pull request changes, or all of the manifest). */
  previewClaws: 'changed' | 'all';
  /** preview: the sweep removes previews of pull requests idle this long. */
  previewTtlMs: number;
  /** preview: at most this many preview Claws in the workspace; over it a pull request gets none. */
  maxPreviews: number;
  /** preview, compare, and deploy with a baseline: what fails the step. */
  failOn: FailOn;
  /**
   * deploy: `none` (today's gate) or `before` (the checks on the live Claw before the trigger,
   * compared with those after it); compare: the baseline Claw's id, or '' with `baselineFile`.
   */
  baseline: string;
  /** compare: a checks output saved earlier (`checks-output`), the baseline instead of a Claw. */
  baselineFile: string;
  /** apply: an empty `plan-id` applies unreviewed only when this says so. */
  autoApprove: boolean;
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

function fail(input: string, value: string, expected: string): never {
  throw new InputValueError(input, value, expected);
}

/** Runs a parser, turning its ParseError into the one-line message for `input`. */
function parsed<T>(read: InputReader, input: string, parse: (text: string) => T): T {
  const value = read(input);
  try {
    return parse(value);
  } catch (err) {
    if (err instanceof ParseError) fail(input, value, err.message);
    throw err;
  }
}

function identifier(read: InputReader, input: string): string {
  const value = read(input).trim();
  if (value !== '' && !isValidId(value)) fail(input, value, ID_EXPECTED);
  return value;
}

function positiveDuration(read: InputReader, input: string): number {
  const ms = parsed(read, input, parseDuration);
  if (ms <= 0) fail(input, read(input), 'a duration greater than zero');
  return ms;
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

function parsePayload(value: string): Record<string, unknown> {
  if (value.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(value);
  } catch (err) {
    const reason = err instanceof Error ? ` (${err.message})` : '';
    throw new ParseError(`a JSON object such as {"version": "1.2.3"}${reason}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ParseError('a JSON object such as {"version": "1.2.3"}, not an array or a single value');
  }
  return data as Record<string, unknown>;
}

function statusWords(read: InputReader, input: string): string[] {
  const words = parseList(read(input));
  for (const word of words) {
    if (!/^[\w -]+$/.test(word)) fail(input, word, 'status words separated by commas');
  }
  return words;
}

function parsePattern(value: string): ReplyPattern | undefined {
  if (value === '') return undefined;
  try {
    return compilePattern(value);
  } catch (err) {
    throw new ParseError(`${PATTERN_EXPECTED} (${patternProblem(err)})`);
  }
}

/**
 * Reads and checks every input. `words` names them in messages as the entry's user knows them
 * (the action's inputs, the command line's flags); `fail` needs none: its error is said again here.
 */
export function readSettings(read: InputReader, words: Words = ACTION_WORDS): Settings {
  try {
    return readAll(read, words);
  } catch (err) {
    if (err instanceof InputValueError && words !== ACTION_WORDS) {
      throw new InputValueError(err.input, err.value, err.expected, words);
    }
    throw err;
  }
}

function readAll(read: InputReader, w: Words): Settings {
  const command = parsed(read, 'command', (v) => parseEnum(v || 'deploy', COMMANDS));

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
  const baseUrl = parseBaseUrl(read('base-url'));

  const clawInput = read('claw-id').trim();
  const targets = { all: false, ids: [] as string[] };
  let clawId = '';
  if (command === 'health' || command === 'deploy' || command === 'check') {
    const ids = parseList(clawInput);
    if (ids.length === 0) {
      const what = command === 'deploy' ? 'the Claw to deploy' : 'one Claw';
      fail('claw-id', clawInput, `${what}, several ids (comma or newline separated), or '*' for every Claw`);
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
  }
  const fleet = command === 'deploy' && clawId === '';
  const deploymentId = identifier(read, 'deployment-id');

  if (command === 'wait' && deploymentId === '') fail('deployment-id', '', 'the id of the deployment to wait on');
  if (command === 'rollback' && clawId === '' && deploymentId === '') {
    fail(
      'deployment-id',
      '',
      `the deployment to roll back, or a ${w.input('claw-id')} whose current deployment is rolled back`,
    );
  }

  const strategy = read('strategy').trim();
  if (strategy !== '' && !/^[\w.:-]{1,100}$/.test(strategy)) {
    fail('strategy', strategy, 'a strategy word such as blue-green, rolling or batched, or empty for the team default');
  }

  const probeExpect = parsed(read, 'probe-expect', parsePattern);
  const probeMessage = read('probe-message');
  if (probeExpect && probeMessage.trim() === '') {
    fail('probe-message', '', `a chat message to send when ${w.input('probe-expect')} is set`);
  }

  const authScheme = read('auth-scheme').trim();
  if (!/^[\w.-]*$/.test(authScheme)) fail('auth-scheme', authScheme, 'a single word such as Bearer, or empty');

  const environment = read('environment').trim();
  if (environment.length > 255 || hasControls(environment)) {
    fail('environment', environment, 'a GitHub environment name such as production, at most 255 characters');
  }
  const githubToken = read('github-token').trim();
  const noToken = (needs: string): never => {
    throw new InputError(
      `${w.subject('github-token')} is empty: expected a token with ${needs} (the default is the workflow's github.token).`,
    );
  };
  // Read once: every rule below that depends on it sees the same value (`TRUE` included).
  const comment = parsed(read, 'comment', (v) => parseBoolean(v || 'false'));
  if (comment && githubToken === '') {
    noToken(`'pull-requests: write' when ${w.input('comment')} is true`);
  }
  if (command === 'preview' && githubToken === '') {
    noToken("'pull-requests: write' for preview, which reads the pull request and keeps its comment");
  }
  if (environment && githubToken === '') noToken(`'deployments: write' when ${w.input('environment')} is set`);
  // Never shown; with `environment` it goes in a header after the deployment starts, so it is checked now.
  const tokenUsed = environment !== '' || command === 'preview' || comment;
  if (tokenUsed && (hasSpaceOrControl(githubToken) || /[\u0100-\uffff]/.test(githubToken))) {
    throw new InputError(
      `${w.subject('github-token')} contains whitespace or characters no HTTP header can carry: expected a single-line token.`,
    );
  }

  const wait = parsed(read, 'wait', parseBoolean);
  if (fleet && !wait)
    fail('wait', read('wait'), `true when ${w.input('claw-id')} names several Claws: a rollout waits for each wave`);

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
  if (checks && (command === 'wait' || command === 'rollback' || command === 'plan' || command === 'drift')) {
    fail(
      'checks',
      checks,
      'to be set only with the deploy, apply, health, check and preview commands, which run checks',
    );
  }
  if (command === 'check' && !checks)
    fail('checks', '', 'the YAML file of conversation checks to run, such as .github/claw-checks.yml');
  if (checks && command === 'deploy' && !wait) {
    fail(
      'wait',
      read('wait'),
      `true when ${w.input('checks')} is set: the checks run once the deployment has succeeded`,
    );
  }
  const baselineSettings = readBaseline(read, command, checks, w);
  const manifest = filePath(read, 'manifest', `a YAML manifest of Claws in ${w.folder}, such as claws.yml`);
  const manifestCommand = MANIFEST_COMMANDS.includes(command);
  if (manifestCommand && !manifest) fail('manifest', '', `the YAML manifest to ${command}, such as claws.yml`);
  if (!manifestCommand && manifest)
    fail('manifest', manifest, 'to be set only with the plan, apply, drift and preview commands');
  const planId = read('plan-id').trim();
  if (planId && !/^[0-9a-f]{16}$/.test(planId)) {
    fail('plan-id', planId, `the ${w.output('plan-id')} of the reviewed plan: 16 hexadecimal digits`);
  }
  if (planId && command !== 'apply') fail('plan-id', planId, 'to be set only with the apply command');
  const autoApprove = parsed(read, 'auto-approve', (v) => parseBoolean(v || 'false'));
  if (autoApprove && command !== 'apply')
    fail('auto-approve', read('auto-approve'), 'to be set only with the apply command');
  if (autoApprove && planId) {
    fail(
      'auto-approve',
      read('auto-approve'),
      `false when ${w.input('plan-id')} names the reviewed plan (one or the other)`,
    );
  }
  if (command === 'apply' && !planId && !autoApprove) {
    fail(
      'plan-id',
      '',
      `the ${w.output('plan-id')} of the reviewed plan (apply refuses to write an unreviewed plan), or ${w.setting('auto-approve', 'true')} to apply without review`,
    );
  }
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
  const trustedFiles = parsed(read, 'trusted-files', (v) => parseBoolean(v || 'false'));
  if (trustedFiles && !checks && !manifest)
    fail(
      'trusted-files',
      read('trusted-files'),
      `to be set only with ${w.input('checks')} or ${w.input('manifest')}, the files it trusts`,
    );
  const health = readHealthOverTime(read, command);
  if (health.history && githubToken === '') {
    noToken(
      `'contents: write' (and 'issues: write' for incidents) when ${['history', 'incidents', 'status-page']
        .map(w.input)
        .join(', ')
        .replace(/, ([^,]*)$/, ' or $1')} is set`,
    );
  }

  return {
    command,
    apiKey,
    stateSecret,
    baseUrl,
    clawId,
    targets,
    fleet,
    waves: parsed(read, 'waves', (v) => parseList(v).map((w) => parseShare(w))),
    bakeMs: parsed(read, 'bake', (v) => (v.trim() === '' ? 0 : parseDuration(v))),
    maxFailures: parsed(read, 'max-failures', (v) => (v.trim() === '' ? { count: 0 } : parseShare(v, true))),
    strategy,
    payload: parsed(read, 'payload', parsePayload),
    deploymentId,
    wait,
    timeoutMs: positiveDuration(read, 'timeout'),
    pollIntervalMs: positiveDuration(read, 'poll-interval'),
    autoRollback: parsed(read, 'auto-rollback', parseBoolean),
    rollbackOn: parsed(read, 'rollback-on', (v) => [
      ...new Set(parseList(v).map((w) => parseEnum(w, ROLLBACK_TRIGGERS))),
    ]),
    successStatuses: statusWords(read, 'success-statuses'),
    failureStatuses: statusWords(read, 'failure-statuses'),
    requestTimeoutMs: positiveDuration(read, 'request-timeout'),
    authScheme,
    probeMessage,
    probeExpect,
    failOnUnhealthy: parsed(read, 'fail-on-unhealthy', parseBoolean),
    environment,
    githubToken,
    onConflict: parsed(read, 'on-conflict', (v) => parseEnum(v || 'wait', ON_CONFLICT)),
    checks,
    checksJunit,
    judgeCache,
    manifest,
    planId,
    deployChanged: parsed(read, 'deploy-changed', (v) => parseBoolean(v || 'true')),
    rewriteSecrets: parsed(read, 'rewrite-secrets', (v) => parseBoolean(v || 'false')),
    failOnDrift: parsed(read, 'fail-on-drift', (v) => parseBoolean(v || 'true')),
    comment,
    previewClaws: parsed(read, 'preview-claws', (v) => parseEnum(v || 'changed', PREVIEW_CLAWS)),
    previewTtlMs: parsed(read, 'preview-ttl', (v) => parseDuration(v || '7d')),
    maxPreviews: parsed(read, 'max-previews', (v) => parseCount(v || '10')),
    failOn: parsed(read, 'fail-on', (v) => parseEnum(v || 'regression', FAIL_ON)),
    ...baselineSettings,
    autoApprove,
    trustedFiles,
    checksOutput,
    ...health,
  };
}

const GITHUB_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
/** A branch name git and GitHub accept, kept simple: no `..`, no leading `-` or `/`, no `.lock`. */
const BRANCH = /^(?!-|\/)(?!.*\.\.)(?!.*\/\/)(?!.*\.lock$)[\w./-]{1,100}(?<![/.])$/;

/** The commands that write the history branch: health's lines, and the records of deployments. */
const HISTORY_COMMANDS: readonly Command[] = ['health', 'deploy', 'rollback'];

/** health's incidents, history and status page: each only for health, history on when the others need it. */
function readHealthOverTime(
  read: InputReader,
  command: Command,
): Pick<Settings, 'incidents' | 'history' | 'statusPage'> {
  const enabled = parsed(read, 'incidents', (v) => parseBoolean(v || 'false'));
  const statusPage = parsed(read, 'status-page', (v) => parseBoolean(v || 'false'));
  let history = read('history').trim();
  if (history && !BRANCH.test(history)) fail('history', history, 'a branch name such as claw-health');
  for (const [input, on] of [
    ['incidents', enabled],
    ['status-page', statusPage],
    ['history', history !== ''],
  ] as const) {
    // A deploy or rollback keeps a record of each deployment on the history branch (docs/dora.md).
    const allowed = input === 'history' ? HISTORY_COMMANDS.includes(command) : command === 'health';
    if (on && !allowed)
      fail(
        input,
        read(input),
        input === 'history'
          ? 'to be set only with health, deploy or rollback'
          : 'to be set only with the health command',
      );
  }
  if ((enabled || statusPage) && history === '') history = DEFAULT_HISTORY_BRANCH;
  const atLeastOne = (input: string): number =>
    parsed(read, input, (v) => {
      const n = parseCount(v || '2');
      if (n < 1 || n > 100) throw new ParseError('a whole number from 1 to 100');
      return n;
    });
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
      confirm: atLeastOne('confirm'),
      recover: atLeastOne('recover'),
      reopenWithinMs: parsed(read, 'reopen-within', (v) => parseDuration(v || '1h')),
      maxNew: parsed(read, 'max-new-incidents', (v) => {
        const n = parseCount(v || '20');
        if (n < 1 || n > 10_000) throw new ParseError('a whole number from 1 to 10000');
        return n;
      }),
      assignees,
      mention,
    },
    history,
    statusPage,
  };
}

/** deploy's `baseline` (none or before), or compare's (a Claw, or a saved checks output). */
function readBaseline(
  read: InputReader,
  command: Command,
  checks: string,
  w: Words,
): Pick<Settings, 'baseline' | 'baselineFile'> {
  const value = read('baseline').trim();
  const baselineFile = filePath(
    read,
    'baseline-file',
    'a checks output saved earlier, such as reports/claw-checks.json',
  );
  if (baselineFile && command !== 'compare')
    fail('baseline-file', baselineFile, 'to be set only with the compare command');
  if (command === 'compare') {
    // The input's default, `none`, names no Claw.
    const claw = value === 'none' ? '' : value;
    if (!checks)
      fail('checks', '', 'the YAML file of conversation checks both sides run, such as .github/claw-checks.yml');
    if (read('claw-id').trim() === '') fail('claw-id', '', 'the candidate Claw, checked now');
    if (claw && baselineFile) fail('baseline', value, `a Claw id or ${w.input('baseline-file')}, not both`);
    if (!claw && !baselineFile)
      fail('baseline', '', `the baseline Claw's id, or ${w.input('baseline-file')}: a checks output saved earlier`);
    if (claw && !isValidId(claw)) fail('baseline', value, `the baseline Claw's id: ${ID_EXPECTED}`);
    if (claw && claw === read('claw-id').trim())
      fail('baseline', value, `another Claw than ${w.input('claw-id')}, the candidate`);
    return { baseline: claw, baselineFile };
  }
  const baseline = parseEnumOr(read, 'baseline', value, ['none', 'before'] as const);
  if (baseline === 'before' && command !== 'deploy')
    fail('baseline', value, 'none, or before only with the deploy command');
  if (baseline === 'before' && !checks)
    fail('baseline', value, `none when ${w.input('checks')} is empty (before compares the checks' results)`);
  return { baseline, baselineFile: '' };
}

function parseEnumOr<T extends string>(read: InputReader, input: string, value: string, allowed: readonly T[]): T {
  return parsed(read, input, () => parseEnum(value || allowed[0], allowed));
}

/** A path in the workspace: one line of visible text, or empty. */
function filePath(read: InputReader, input: string, expected: string): string {
  const value = read(input).trim();
  if (value !== '' && (hasControls(value) || value.length > 1024)) fail(input, value, expected);
  return value;
}
