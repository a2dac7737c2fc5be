// The core both entries run: the action (main.ts) and the command line (cli.ts) each turn their
// source into Settings, then read the user's files and run the command here, the same way, and
// report what comes back through their own reporter. Nothing here knows which entry called. The
// commands are a table of definitions (command.ts): each one's module says what it reads, checks
// and runs, so a new command is one module and one line in the table.
import { resolve } from 'node:path';
import { systemClock, type Logger } from '../shared/clock.js';
import { DeploymentHistory } from '../deploy/history.js';
import { runChecks } from '../checks/gate.js';
import { clawWithoutChecks, noCheckFor } from '../checks/claws-filter.js';
import { firstCompare, oneClawRefusal } from '../checks/compare-claws.js';
import { planWaves } from '../deploy/fleet.js';
import { VerdictCache } from '../checks/judge-cache.js';
import { describeJudge, judgeSecrets } from '../checks/judge-spec.js';
import { writeJUnit } from '../checks/junit.js';
import { promptfooOutputText, writePromptfooOutput } from '../checks/promptfoo/output.js';
import type { ChecksResult, RunMode } from '../checks/result.js';
import { ReplyTimes } from '../conversation/reply-times.js';
import type { CheckSuite } from '../checks/check.js';
import { loadChecks } from '../checks/load.js';
import { InputError, errorMessage } from '../shared/errors.js';
import { refuseSecretsFromFork } from '../preview/config.js';
import { loadManifest, secretValues } from '../manifest/manifest.js';
import { checksOutputs } from '../checks/checks-report.js';
import { checkOutputs } from '../report/outputs.js';
import { comparisonOutputs } from '../checks/comparison-report.js';
import { sealKey } from '../shared/seal.js';
import { type InputReader, type Settings, readSettingsOf } from '../contract/settings.js';
import type { CommandContext, CommandDefinition, CommandResult, InputFiles, Session } from '../contract/command.js';
import { checkDefinition, compareDefinition } from '../commands/checks.js';
import { deployDefinition, deploymentsDefinition, rollbackDefinition, waitDefinition } from '../commands/deploy.js';
import { healthDefinition } from '../commands/health.js';
import { applyDefinition, driftDefinition, planDefinition } from '../commands/manifest.js';
import { previewDefinition } from '../commands/preview.js';
import { wireRun } from './wiring.js';
import type { Words } from '../shared/words.js';

export type { CommandResult, InputFiles, Session } from '../contract/command.js';

/** Every command, in the order --help lists them; the `command` input and the command line's first word name one. */
export const COMMANDS: readonly CommandDefinition[] = [
  deployDefinition,
  waitDefinition,
  rollbackDefinition,
  healthDefinition,
  checkDefinition,
  planDefinition,
  applyDefinition,
  driftDefinition,
  previewDefinition,
  compareDefinition,
  deploymentsDefinition,
];

/** The definition of the command `name`, in `commands` (the table, or another a test gives). */
export function definitionOf(name: string, commands: readonly CommandDefinition[] = COMMANDS): CommandDefinition {
  const definition = commands.find((c) => c.name === name);
  if (!definition) throw new Error(`no command ${name} in the table`);
  return definition;
}

/** Reads and checks every input for the command it names, one of `commands`: settings.ts does it. */
export function readSettings(read: InputReader, words?: Words, commands = COMMANDS): Settings {
  return readSettingsOf(commands, read, words);
}

/** Reads the checks file and the manifest; every mistake in them is an InputError, before any request. */
export async function readInputFiles(
  settings: Settings,
  workspace: string,
  env: NodeJS.ProcessEnv,
  words?: Words,
  /** The event when the files may be a fork's (github/run.ts); the command line has one only inside GitHub Actions. */
  forkEventOfRun?: string,
  commands: readonly CommandDefinition[] = COMMANDS,
): Promise<InputFiles> {
  const definition = definitionOf(settings.command, commands);
  // Under an event where the files may be a fork's (github/run.ts), nothing in them runs code or
  // chooses where a secret goes, unless the workflow says its checkout is the repository's own.
  const forkEvent = settings.trustedFiles ? undefined : forkEventOfRun;
  const loaded = settings.checks ? await loadChecks(settings.checks, workspace, env, forkEvent, words) : undefined;
  const suite = loaded && suiteOf(definition, loaded, settings);
  // The service's key never leaves for a judge, whatever variable a file names (the step's own
  // INPUT_API-KEY, AMS_API_KEY, CLAW_DEPLOY_API_KEY): the judge's address is the file's to choose.
  const key = settings.apiKey.trim();
  const sending = suite?.judges.find(
    (j) => j.kind === 'endpoint' && j.secrets.some((s) => s === key || (key.length >= 8 && s.includes(key))),
  );
  if (sending?.kind === 'endpoint') {
    throw new InputError(
      `The checks file ${JSON.stringify(settings.checks)}: its judge ${describeJudge(sending)} would be sent the service's API key (${sending.apiKey === key || sending.apiKey.includes(key) ? `read from ${sending.apiKeyEnv ?? 'the file'}` : 'in a header'}): expected the judge's own key; the service's key is never sent to a judge.`,
    );
  }
  // A Claw the file's `claws:` filters leave without a check: known now, so refused before any request.
  const unchecked = suite && !settings.targets.all && clawWithoutChecks(suite, settings.targets.ids);
  if (suite && unchecked) {
    throw new InputError(
      `${noCheckFor(suite, unchecked)}: expected a check without 'claws', or one whose 'claws' names ${unchecked}.`,
    );
  }
  const compared = suite && firstCompare(suite);
  const oneClaw = compared && definition.rules?.targets !== undefined && oneClawRun(settings);
  if (compared && oneClaw) throw new InputError(oneClawRefusal(compared, oneClaw));
  const manifest = settings.manifest ? await loadManifest(settings.manifest, workspace, env, words) : undefined;
  definition.prepare?.files?.({ suite, manifest }, words);
  if (manifest && forkEvent) refuseSecretsFromFork(manifest, forkEvent);
  const secrets = [...judgeSecrets(suite?.judges ?? []), ...(manifest ? secretValues(manifest) : [])];
  return { suite, manifest, secrets };
}

/**
 * Why this run checks one Claw at a time, when that is known before any request: promptfoo's
 * select-best and max-score compare Claws, and one Claw alone has nothing to compare with.
 */
function oneClawRun(settings: Settings): string | undefined {
  const { targets } = settings;
  if (targets.all) return undefined;
  if (targets.ids.length === 1) return `this run checks one Claw (claw-id ${targets.ids[0]})`;
  if (!settings.fleet) return undefined;
  // A fleet's gate decides each wave before the next deploys: the Claws of one wave compare.
  const waves = planWaves(targets.ids.length, settings.waves);
  const alone = waves.findIndex(([start, end]) => end - start === 1);
  if (alone < 0) return undefined;
  return `wave ${alone + 1} of the rollout deploys and checks one Claw (${targets.ids[waves[alone][0]]}) before the next wave deploys ('waves' ${settings.waves.map((w) => ('count' in w ? w.count : `${w.percent}%`)).join(', ')})`;
}

/**
 * Runs the command: the run's layers (one client and pacer, the judges and their cache, the
 * policy), the checks gate, then the command itself with its one context, built here once; writes the JUnit file and keeps the cache.
 * Throws what the command could not survive (a refused key, a cancel): the entry reports that as
 * outcome error or cancelled.
 */
export async function execute(
  settings: Settings,
  files: InputFiles,
  session: Session,
  commands: readonly CommandDefinition[] = COMMANDS,
): Promise<CommandResult> {
  const definition = definitionOf(settings.command, commands);
  const { log, signal } = session;
  const { suite } = files;
  const cache = settings.judgeCache ? await loadCache(settings.judgeCache, settings, session) : undefined;
  const run = wireRun(settings, {
    clock: systemClock,
    log,
    signal,
    userAgent: session.userAgent,
    cache,
    words: session.words,
    redactor: session.redact,
  });
  try {
    const startedAt = systemClock.now();
    const deadline = startedAt + settings.timeoutMs;
    // Each Claw's reply times, across the run's gate runs: the baseline's and the deployment's alike.
    const replyTimes = new Map<string, ReplyTimes>();
    const checksFor = (
      checked: CheckSuite,
      clawIds: string[],
      until?: number,
      groups?: string[][],
      mode?: RunMode,
    ): Promise<ChecksResult> => {
      warnGraderUnderTest(log, checked, clawIds);
      const deps = until === undefined ? context : { ...context, deadline: Math.min(until, deadline) };
      return runChecks(deps, checked, clawIds, {
        pollIntervalMs: settings.pollIntervalMs,
        classify: run.policy.classify,
        judgeFor: run.judgeFor,
        ...(groups ? { groups } : {}),
        ...(mode?.comparing ? { comparing: true } : {}),
        ...(mode?.rounds ? { rounds: mode.rounds } : {}),
        replyTimes,
      });
    };
    const behaviour = suite && definition.prepare?.behaviour?.(settings, suite);
    // The one context: what the entry gave (the log, the signal, the hosts), the layers, the files.
    const context: CommandContext = {
      ...session,
      settings,
      policy: run.policy,
      suite,
      manifest: files.manifest,
      checksFor: (checked, clawIds, groups, mode) => checksFor(checked, clawIds, undefined, groups, mode),
      client: run.client,
      pacer: run.pacer,
      clock: systemClock,
      startedAt,
      deadline,
      // Read only when a wait first needs it: a run that never polls a deployment spends nothing on it.
      history: new DeploymentHistory(run.client, log, { deadline, signal }),
      checks: suite && ((clawIds, until, mode) => checksFor(suite, clawIds, until, undefined, mode)),
      ...(behaviour ? { behaviour } : {}),
    };
    for (const notice of suite?.notices ?? []) log.info(notice);
    const result = await definition.run(context);
    if (suite && result.checks && settings.checksJunit) await keepJUnit(settings, session, result.checks, suite);
    if (suite && result.checks && settings.checksOutput)
      await keepOutput(settings, session, result.checks, suite, result.comparisons);
    return result;
  } finally {
    await saveCache(log, cache);
    run.close();
  }
}

/** The judge's verdicts kept between runs, sealed under the key and the repository. */
function loadCache(path: string, settings: Settings, session: Session): Promise<VerdictCache> {
  return VerdictCache.load(
    path,
    session.workspace,
    session.log.warning,
    sealKey(settings.apiKey, session.github.repository),
  );
}

/** The checks file as the command runs it (its definition may add to it: health's probe). */
export function suiteOf(definition: CommandDefinition, suite: CheckSuite, settings: Settings): CheckSuite {
  return definition.prepare?.suite?.(suite, settings) ?? suite;
}

/** Where the user's files are: the runner's workspace, or the current folder. */
export function workspaceOf(env: NodeJS.ProcessEnv): string {
  return resolve(env.GITHUB_WORKSPACE || process.cwd());
}

/** The checks' results as JUnit XML, redacted; a file that cannot be written is a warning. */
async function keepJUnit(settings: Settings, session: Session, checks: ChecksResult, suite: CheckSuite): Promise<void> {
  const { log, redact } = session;
  const written = await writeJUnit(
    settings.checksJunit,
    session.workspace,
    redact.redactJson(checks),
    suite.file,
    redact.redact,
  ).catch((err: unknown) => {
    log.warning(`Could not write the JUnit file '${settings.checksJunit}': ${errorMessage(err)}`);
  });
  if (written) log.info(`Wrote the checks' results as JUnit XML to ${settings.checksJunit}.`);
}

/** The checks' results in promptfoo's output format, redacted; a file that cannot be written is a warning. */
async function keepOutput(
  settings: Settings,
  session: Session,
  checks: ChecksResult,
  suite: CheckSuite,
  comparisons?: CommandResult['comparisons'],
): Promise<void> {
  const { log } = session;
  if (settings.checksOutput === '-' && session.stdout) {
    session.stdout(promptfooOutputText(checks, suite, session.redact, comparisons));
    return;
  }
  const written = await writePromptfooOutput(
    settings.checksOutput,
    session.workspace,
    checks,
    suite,
    session.redact,
    comparisons,
  ).catch((err: unknown) => {
    log.warning(`Could not write the checks output '${settings.checksOutput}': ${errorMessage(err)}`);
  });
  if (written)
    log.info(`Wrote the checks' results in promptfoo's format to ${settings.checksOutput} (promptfoo import).`);
}

/** A grader Claw that is itself under test grades its own replies: worth a word. */
function warnGraderUnderTest(log: Logger, suite: CheckSuite, clawIds: string[]): void {
  for (const judge of suite.judges) {
    if (judge.kind === 'claw' && clawIds.includes(judge.clawId)) {
      log.warning(
        `The grader Claw ${judge.clawId} is also under test: it grades replies while its own release is checked.`,
      );
    }
  }
}

/** Keeps the judge's verdicts for the next run; a cache that cannot be written is a warning, never a failure. */
async function saveCache(log: Logger, cache: VerdictCache | undefined): Promise<void> {
  try {
    if (await cache?.save()) log.info(`Kept ${cache!.size} judge verdict(s) in ${cache!.path}.`);
  } catch (err) {
    log.warning(`Could not write the judge cache: ${errorMessage(err)}`);
  }
}

/**
 * The outputs a run sets (the action's step outputs, the command line's table and --json): the
 * command's and the checks', each through the last check; and what to warn about them.
 */
export function outputsOf(
  result: CommandResult,
  files: InputFiles,
): { values: Record<string, string>; warnings: string[] } {
  const checks = checksOutputs(result.checks);
  const compared = comparisonOutputs(result.comparisons);
  const { values, refused } = checkOutputs({
    ...result.outputs,
    ...(files.suite ? checks.outputs : {}),
    ...(files.suite ? compared.outputs : {}),
  });
  return { values, warnings: [...result.notes, ...checks.notes, ...compared.notes, ...refused] };
}
