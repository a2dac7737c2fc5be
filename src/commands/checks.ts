// The check command: a checks file against Claws, with no deployment.
import { type Command, type CommandDefinition } from '../contract/command.js';
import { inputsReadBy } from '../contract/inputs.js';
import { isValidId, ID_EXPECTED } from '../shared/identifiers.js';
import { type SettingsOf, refuseInput } from '../contract/settings.js';
import { CONCURRENCY, mapWithConcurrency } from '../shared/concurrency.js';
import { describeFailedChecks } from '../checks/result.js';
import { readBaselineFile } from '../checks/baseline-file.js';
import {
  type ClawComparison,
  type RunSide,
  compareRuns,
  describeComparison,
  entriesOf,
  gateFails,
  suitePower,
} from '../checks/comparison.js';
import { comparisonSummary } from '../checks/comparison-report.js';
import { comparisonCost, fitToMaxRequests } from '../checks/cost.js';
import { LiveSequential, SequentialComparison } from '../checks/sequential-gate.js';

/** The inputs each command reads (beyond the common ones): its run sees only the settings they fill. */
const CHECK_READS = inputsReadBy('check');
const COMPARE_READS = inputsReadBy('compare');
export const check: Command<SettingsOf<(typeof CHECK_READS)[number]>> = async (context) => {
  const { settings } = context;
  if (!context.checks) throw new Error('the check command needs a checks file');
  const options = { deadline: context.deadline, signal: context.signal };
  // Each Claw named is read first: an unknown Claw or a refused key is the run's error (could not
  // act, as deploy and health say it), never one failed check per message sent.
  const claws = settings.targets.all
    ? (await context.client.listClaws(options)).map((c) => c.id)
    : await mapWithConcurrency(settings.targets.ids, CONCURRENCY, async (id) => {
        await context.client.getClaw(id, options);
        return id;
      });
  // A checks output saved by check is a baseline compare can read later: every repeat made (no early
  // stop, which would keep only the attempts that settled the verdict) and each kept as a sample.
  const saving = settings.checksOutput !== '';
  if (saving)
    context.log.info(
      `Every attempt of each check is made and kept: ${settings.checksOutput} can be compare's baseline-file later.`,
    );
  const result = await context.checks(claws, undefined, saving ? { comparing: true } : undefined);
  const failed = result.entries.filter((e) => !e.passed).length;
  const passed = result.entries.length - failed;
  return {
    ok: result.passed && !result.cancelled,
    message: result.cancelled
      ? `Cancelled during the checks: ${passed} of ${result.entries.length} check(s) had passed; the rest are errors saying so.`
      : result.passed
        ? `All ${result.entries.length} check(s) passed.`
        : `${failed} of ${result.entries.length} check(s) did not pass: ${describeFailedChecks(result)}.`,
    outputs: { outcome: result.cancelled ? 'cancelled' : result.passed ? 'succeeded' : 'failed' },
    summary: '',
    notes: [],
    failStep: true,
    checks: result,
  };
};

/**
 * The compare command: the checks on a baseline (a Claw, or a checks output saved earlier) and on
 * the candidate Claw, every attempt on both sides, compared. Two Claws are checked at once.
 */
export const compare: Command<SettingsOf<(typeof COMPARE_READS)[number]>> = async (context) => {
  const { settings, suite } = context;
  if (!suite) throw new Error('the compare command needs a checks file');
  const candidate = settings.clawId;
  // Only the checks the suite runs for the candidate are read from a saved run.
  const wanted = new Set(suite.checks.filter((c) => !c.claws || c.claws.includes(candidate)).map((c) => c.name));
  const saved = settings.baselineFile
    ? await readBaselineFile(settings.baselineFile, context.workspace, settings.clawId, context.words, wanted)
    : undefined;
  if (saved?.others.count)
    context.log.info(
      `The saved run holds ${saved.others.count} other check(s) the checks file does not have, not compared: ${saved.others.names.map((n) => JSON.stringify(n)).join(', ')}${saved.others.count > saved.others.names.length ? ', …' : ''}.`,
    );
  if (saved && saved.entries.length === 0)
    context.log.warning(
      `The saved run has none of the checks file's ${wanted.size} check(s) for ${candidate}: nothing in common to compare.`,
    );
  const baselineId = saved ? undefined : settings.baseline;
  const refused = fitToMaxRequests(context.log, suite, settings.maxRequests, saved ? 1 : 2, candidate);
  if (refused) refuseInput('max-requests', String(settings.maxRequests), refused);
  const power = suitePower(suite, candidate, saved?.entries);
  const cost = comparisonCost(suite, power, {
    sides: saved ? 1 : 2,
    limit: context.pacer?.reading().limit,
    clawId: candidate,
  });
  context.log.info(`Comparing: ${cost.line}.`);
  if (power.warning) context.log.warning(power.warning);
  const claws = baselineId && baselineId !== candidate ? [baselineId, candidate] : [candidate];
  const label = saved ? `${settings.baselineFile} (${saved.clawId})` : baselineId!;
  // Round by round, stopping once decisive (compare/sequential.ts). Against a saved run, the
  // candidate's rounds; two Claws: asked in alternating rounds, a question that answers the same on
  // both asked fewer times, looked at after each round of both.
  const gate = {
    failOn: settings.failOn,
    compare: (b: RunSide, c: RunSide, o?: { level?: number }) =>
      compareRuns(b, c, suite, { ...o, show: settings.showAnswers }),
    ...(suite.tolerance ? { tolerance: suite.tolerance } : {}),
  };
  const sequential = saved
    ? new SequentialComparison(gate, { label, entries: saved.entries }, candidate, context.log, { fixed: true })
    : undefined;
  const live = saved
    ? undefined
    : new LiveSequential(
        gate,
        [{ baseline: { clawId: baselineId!, label }, candidate: { clawId: candidate, label: candidate } }],
        context.log,
      );
  const rounds = (sequential ?? live)!.rounds;
  const result = await context.checksFor(suite, claws, undefined, { comparing: true, rounds });
  const compared = result.cancelled
    ? compareRuns(
        { label, entries: saved ? saved.entries : entriesOf(result, baselineId!) },
        { label: candidate, entries: entriesOf(result, candidate), cancelled: true },
        suite,
      )
    : sequential
      ? sequential.verdict(entriesOf(result, candidate))
      : live!.verdict(0, result.entries);
  const comparisons: ClawComparison[] = [{ clawId: candidate, compared }];
  const fails = gateFails(
    settings.failOn,
    entriesOf(result, candidate).every((e) => e.passed),
    compared,
  );
  const outcome = result.cancelled ? 'cancelled' : fails ? 'failed' : 'succeeded';
  const against = saved ? `the run saved in ${settings.baselineFile} (Claw ${saved.clawId})` : `Claw ${baselineId}`;
  return {
    ok: outcome === 'succeeded',
    message: result.cancelled
      ? `Cancelled during the checks: nothing compared.`
      : `Claw ${candidate} compared with ${against}: ${describeComparison(compared)}.`,
    outputs: { outcome },
    summary: comparisonSummary(comparisons, `Claw ${candidate} compared with ${against}`),
    notes: [],
    failStep: true,
    checks: result,
    comparisons,
  };
};

export const checkDefinition: CommandDefinition<(typeof CHECK_READS)[number]> = {
  name: 'check',
  summary: 'run a checks file against one or more Claws, with no deployment',
  inputs: CHECK_READS,
  rules: {
    targets: 'one Claw',
    requires: { checks: 'the YAML file of conversation checks to run, such as .github/claw-checks.yml' },
  },
  run: check,
};

export const compareDefinition: CommandDefinition<(typeof COMPARE_READS)[number]> = {
  name: 'compare',
  summary:
    'run the checks on a baseline (--baseline CLAW or --baseline-file) and a candidate (--claw-id), and compare them',
  inputs: COMPARE_READS,
  rules: {
    // `baseline` is the baseline Claw's id here ('' for the input's default, none, which names no Claw).
    parse: { baseline: (v) => (v.trim() === 'none' ? '' : v.trim()) },
    validate: ({ checks, clawId, baseline: claw, baselineFile }, _given, w) => {
      if (!checks)
        refuseInput(
          'checks',
          '',
          'the YAML file of conversation checks both sides run, such as .github/claw-checks.yml',
        );
      if (clawId === '') refuseInput('claw-id', '', 'the candidate Claw, checked now');
      if (claw && baselineFile) refuseInput('baseline', claw, `a Claw id or ${w.input('baseline-file')}, not both`);
      if (!claw && !baselineFile)
        refuseInput(
          'baseline',
          '',
          `the baseline Claw's id, or ${w.input('baseline-file')}: a checks output saved earlier`,
        );
      if (claw && !isValidId(claw)) refuseInput('baseline', claw, `the baseline Claw's id: ${ID_EXPECTED}`);
      if (claw && claw === clawId)
        refuseInput('baseline', claw, `another Claw than ${w.input('claw-id')}, the candidate`);
    },
  },
  run: compare,
};
