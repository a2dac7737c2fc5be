// What a command is: a definition (its name, summary, the inputs it reads, its own rules) and a run,
// a function from its one context (built once a run, in run.ts, from the layers wiring.ts builds and
// what the entry gives) to a result both entries know how to report. Each command's module exports its definition; run.ts holds the table of them, and both
// entries, --help and the input checks read that table: a new command is one module and one line.
import type { Words } from '../shared/words.js';
import type { Redactor } from '../api/redact.js';
import type { ChecksResult, RunMode } from '../checks/result.js';
import type { CheckSuite } from '../checks/check.js';
import type { Logger } from '../shared/clock.js';
import type { CommandDeps, Policy, Progress } from '../deploy/deploy.js';
import type { GitHubRun } from '../shared/workflow-run.js';
import type { ManifestResult } from '../manifest/result.js';
import type { Manifest } from '../manifest/manifest.js';
import type { PreviewEvent } from '../preview/request.js';
import type { PreviewHost } from '../preview/host.js';
import type { HealthHost } from '../health/host.js';
import type { GitHubDeploymentHost } from '../deploy/github-deployment.js';
import type { ClawComparison } from '../checks/comparison-report.js';
import type { BehaviourGate } from '../checks/comparison.js';
import type { CommandInputs, InputName, InputRules, Settings, SettingsOf } from './settings.js';

/** The user's files, read and checked before any request: the checks and the manifest. */
export interface InputFiles {
  suite?: CheckSuite;
  manifest?: Manifest;
  /** Values read from the environment for them (a judge's key, a manifest's secrets): to mask. */
  secrets: string[];
}

/** Where a run happens and what it tells its entry as it goes: what the entry gives the run. */
export interface Session {
  log: Logger;
  signal: AbortSignal;
  /** Where relative paths (checks, manifest, JUnit, cache) are read and written. */
  workspace: string;
  /** Where the plan's files go (the runner's temporary folder). */
  tempDir: string;
  /** The GitHub run, for links in the report (empty outside GitHub). */
  github: GitHubRun;
  userAgent: string;
  /** Every secret of the run: each file, comment and report written here passes through it. */
  redact: Redactor;
  /** A deployment triggered or reaching its end: what a cancel must know. */
  onProgress?: (progress: Progress) => void;
  /** A fleet's deployments in flight, each time that changes. */
  onFleetProgress?: (inFlight: string[]) => void;
  /** The code host and the event, for `preview` (the action only). */
  preview?: { host: PreviewHost; event: PreviewEvent };
  /** How messages name inputs, files and the key for this entry's user (absent: the action's). */
  words?: Words;
  /** Where `checks-output: -` writes (the command line's stdout); absent: `-` is a file name. */
  stdout?: (text: string) => void;
  /** On a pull request, keeps one comment found again by its marker (the action only). */
  comment?: (comment: { marker: string; body: string; what: string }) => Promise<void>;
  /** The code host for health's history, incidents and page (the action only, with `history`). */
  health?: { host: HealthHost };
}

/**
 * The one context a command runs with, built once a run (run.ts, from what the entry gives): its
 * settings, narrowed to the inputs it reads; the service's client and pacer, the clock, the log,
 * the cancel signal, the deadline and the checks gate (CommandDeps, which the features take); the
 * deploy policy; the user's files; and where the run happens (the workspace, the GitHub run, the
 * redactor, the entry's hosts).
 */
export interface CommandContext<S = Settings>
  extends CommandDeps, Omit<Session, keyof CommandDeps | 'signal' | 'userAgent'> {
  settings: S;
  /** The deploy policy: timeout, polling, status words, rollback rules. */
  policy: Policy;
  /** The checks file, read and checked before any request (as the command runs it: health's probe added). */
  suite?: CheckSuite;
  /** The manifest, read and checked before any request. */
  manifest?: Manifest;
  /**
   * Runs a checks suite on some Claws through the gate, with the run's judges; `groups` are the
   * Claws that compare for select-best and max-score (default: all of them); `mode.comparing`: every
   * attempt made and kept, for a comparison.
   */
  checksFor: (suite: CheckSuite, clawIds: string[], groups?: string[][], mode?: RunMode) => Promise<ChecksResult>;
}

/**
 * What a command shows on the command line, each drawn there in the terminal's width and colours:
 * a plan, the reply that failed a probe (a health report's JSON), a table (untrusted cells, each
 * cut to its column's `max` columns; an empty one is a dash), or plain text.
 */
export type ResultView =
  | { kind: 'plan'; result: ManifestResult; title: string }
  | { kind: 'unhealthy'; report: string }
  | { kind: 'table'; title: string; head: string[]; max: number[]; rows: string[][] }
  | { kind: 'text'; text: string };

/** What every command gives back, whatever it did: each entry turns it into outputs and a report. */
export interface CommandResult {
  ok: boolean;
  /** One line: what happened, and for a failure, why. */
  message: string;
  outputs: Record<string, string>;
  summary: string;
  /** Lines for the log's warnings (an output cut to its cap, say). */
  notes: string[];
  /** Lines for the log as notices: worth seeing, not a problem (a preview cap). */
  notices?: string[];
  /** A result that is not ok fails the step, unless the user asked for a warning only. */
  failStep: boolean;
  /** The conversation checks that ran, when there is a checks file. */
  checks?: ChecksResult;
  /** A comparison of two runs of the checks, per Claw (deploy with a baseline, compare, preview). */
  comparisons?: ClawComparison[];
  /** What the command line shows of it beyond its line, outputs and checks, drawn by the command line. */
  views?: ResultView[];
  /** Fields `--json` adds to its object (health: `dora`, the figures teams track). */
  json?: Record<string, unknown>;
  /** A summary that may be larger than most (a plan's whole values), and where it is whole. */
  summaryCap?: { bytes: number; whereWhole: string };
}

/** A command: its one context in, its result out. */
export type Command<S = Settings, R extends CommandResult = CommandResult> = (context: CommandContext<S>) => Promise<R>;

/** What the action gives a definition's part on GitHub (main.ts builds it; the command line has none). */
export interface ActionSide {
  github: GitHubRun;
  /** A GitHub Deployment in `environment`, made with the run's token (nothing is sent until it is used). */
  githubDeployment: (environment: string) => GitHubDeploymentHost;
  /** Keeps a GitHub Deployment's id for the post step, which closes it when this step is killed. */
  keepGitHubDeployment: (id: number) => void;
}

/** A definition's part on GitHub around its run: told of the start, each progress and the end. */
export interface AroundRun<R extends CommandResult = CommandResult> {
  start?(): void;
  progress?(progress: Progress): void;
  /** The run's result, or the message of the failure that ended it: resolves to the outputs it adds. */
  end(end: { result: R } | { failure: string }): Promise<Record<string, string>>;
}

// What a run carries, named here for the commands and the run (the deploy feature, which uses them
// below this layer, declares them).
export type { CommandDeps, Policy, Progress };

/**
 * A command as both entries run it (wrangler's `{ args, validateArgs, handler }`): what settings.ts
 * reads and checks for it, its summary for --help, its run, and what the entries give it.
 */
export interface CommandDefinition<
  I extends InputName = InputName,
  R extends CommandResult = CommandResult,
> extends CommandInputs {
  /** One line for --help's list of commands (`claw-deploy --help`). */
  summary: string;
  /** The inputs it reads beyond the common ones: its run and its rules see only the settings they fill. */
  inputs: readonly I[];
  /** Its own rules for its inputs (settings.ts reads them), before any request. */
  rules?: InputRules<SettingsOf<I>>;
  /** What its inputs and files mean for the run the core prepares, where the meaning is its own. */
  prepare?: {
    /** The user's files read, checked before any request (apply: every secret the manifest names is set). */
    files?: (files: Omit<InputFiles, 'secrets'>, words?: Words) => void;
    /** The checks file as it runs it (health: its probe is one more check). */
    suite?: (suite: CheckSuite, settings: SettingsOf<I>) => CheckSuite;
    /** The gate that compares the checks before and after its change (deploy with `baseline: before`). */
    behaviour?: (settings: SettingsOf<I>, suite: CheckSuite) => BehaviourGate | undefined;
  };
  /** What the action does around it on GitHub. */
  action?: {
    /**
     * It follows a GitHub pull request (preview): the action gives it the pull request's host and
     * event, and notices `withoutKey` when a fork's run has no key; the command line refuses it.
     */
    pullRequest?: { commandLine: string; withoutKey: string };
    /** Its part on GitHub around the run (deploy: the GitHub Deployment, with `environment`); main.ts runs it. */
    around?: (settings: SettingsOf<I>, side: ActionSide) => AroundRun<R> | undefined;
    /** With `history`, it writes its deployments' records after its wait and rollback (each up to the timeout). */
    recordsAfterWaiting?: true;
  };
  /** What the command line does around it. */
  commandLine?: {
    /** What a cancel means for it: the line saying what happens next. */
    cancel?: (signal: string, settings: SettingsOf<I>, deployments: readonly string[]) => string;
    /** It keeps its history in a local folder (`--history-dir`), as the action does on a branch. */
    historyFolder?: true;
  };
  run: Command<SettingsOf<I>, R>;
}
