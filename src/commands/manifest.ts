// The plan, apply and drift commands: plan against the service, then (apply) check the plan is the
// reviewed one, write it, and deploy what changed through the fleet path.
import {
  type Command,
  type CommandContext,
  type CommandDefinition,
  type CommandDeps,
  type CommandResult,
  type Policy,
} from '../contract/command.js';
import { inputsReadBy } from '../contract/inputs.js';
import { deployingCancel } from '../deploy/cancel-notice.js';
import { ACTION_WORDS, type Words, wordsOf } from '../shared/words.js';
import { errorMessage } from '../shared/errors.js';
import { runUrl } from '../shared/workflow-run.js';
import { fleetOutputs, fleetSummary } from '../deploy/fleet-report.js';
import { MAX_PLAN_SUMMARY_BYTES } from '../report/markdown.js';
import { writePlanFiles } from '../manifest/plan-files.js';
import { type PlanView, commentBody, commentMarker, planMarkdown, planOutputs } from '../manifest/plan-report.js';
import { type Settings, type SettingsOf, refuseInput } from '../contract/settings.js';
import { type FleetRequest, rolloutFleet } from '../deploy/fleet.js';
import { FileError } from '../config/yaml-file.js';
import { applyPlan, describeOperation } from '../manifest/apply.js';
import { type Manifest, envSecrets } from '../manifest/manifest.js';
import { type Plan, makePlan } from '../manifest/plan.js';
import type { ManifestResult } from '../manifest/result.js';

export interface ApplyOptions {
  planId: string;
  rewriteSecrets: boolean;
  deployChanged: boolean;
  /** The fleet path's request, less the Claws (the changed ones). */
  fleet: Omit<FleetRequest, 'targets'>;
}

/** Apply needs every `{ env: NAME }` set: the first unset one is refused, naming its line. */
export function requireSecrets(manifest: Manifest, words: Words = ACTION_WORDS): void {
  const unset = envSecrets(manifest).find((secret) => secret.value === undefined);
  if (unset) {
    throw new FileError(
      `${manifest.file}, line ${unset.line}: the environment variable ${unset.name} is not set: expected it in ${words.environment} when applying.`,
    );
  }
}

/** The plan, with one warning when some of it cannot be applied (an unusable id from the service). */
async function planned(deps: CommandDeps, manifest: Manifest): Promise<Plan> {
  const plan = await makePlan(deps, manifest);
  if (plan.blocked.length > 0) {
    deps.log.warning(
      `${plan.blocked.length} operation(s) cannot be applied and are left out of the plan: ${plan.blocked.map((b) => `${describeOperation(b.operation)} (${b.reason})`).join('; ')}.`,
    );
  }
  return plan;
}

export async function planCommand(deps: CommandDeps, manifest: Manifest): Promise<ManifestResult> {
  const plan = await planned(deps, manifest);
  return {
    plan,
    outcome: 'succeeded',
    ok: true,
    message:
      plan.changes === 0
        ? `No changes: the service matches ${manifest.file} (plan id ${plan.id}).`
        : `Plan for ${manifest.file}: ${plan.changes} change(s) (plan id ${plan.id}).`,
  };
}

export async function driftCommand(
  deps: CommandDeps,
  manifest: Manifest,
  failOnDrift: boolean,
): Promise<ManifestResult> {
  const plan = await planned(deps, manifest);
  const drifted = plan.changes > 0;
  return {
    plan,
    outcome: drifted && failOnDrift ? 'failed' : 'succeeded',
    ok: !drifted || !failOnDrift,
    message: drifted
      ? `Drift: the service differs from ${manifest.file} in ${plan.changes} place(s): ${plan.operations.map(describeOperation).join('; ')}.`
      : `No drift: the service matches ${manifest.file}.`,
  };
}

export async function applyCommand(
  deps: CommandDeps,
  manifest: Manifest,
  options: ApplyOptions,
  policy: Policy,
): Promise<ManifestResult> {
  const plan = await planned(deps, manifest);
  if (options.planId && plan.id !== options.planId) {
    return {
      plan,
      outcome: 'failed',
      ok: false,
      message: `The plan is not the reviewed one (reviewed ${options.planId}, now ${plan.id}): the service or the manifest changed since the review. Nothing was written; review the new plan.`,
    };
  }
  const apply = await applyPlan(deps, plan, { rewriteSecrets: options.rewriteSecrets });
  const applied = `${apply.applied.length} of ${plan.changes} change(s) applied`;
  if (apply.cancelled) {
    const done = apply.applied.map(describeOperation).join('; ') || 'none';
    const inFlight = apply.cancelled.inFlight
      ? ` In flight when cancelled (it may or may not have taken effect): ${describeOperation(apply.cancelled.inFlight)}.`
      : '';
    return {
      plan,
      apply,
      outcome: 'cancelled',
      ok: false,
      message: `Apply was cancelled: ${applied} (${done}).${inFlight} Not sent: ${apply.notApplied.map(describeOperation).join('; ') || 'nothing'}. Nothing was deployed; run plan to see where the service stands.`,
    };
  }
  if (apply.failed) {
    return {
      plan,
      apply,
      outcome: 'failed',
      ok: false,
      message: `Apply stopped at the first write that failed (${describeOperation(apply.failed.operation)}: ${apply.failed.message}). ${applied}; not applied: ${apply.notApplied.map(describeOperation).join('; ') || 'nothing else'}. Nothing was deployed.`,
    };
  }
  if (!options.deployChanged || apply.changedClaws.length === 0) {
    const why =
      apply.changedClaws.length === 0 ? 'no Claw changed' : `${wordsOf(deps).input('deploy-changed')} is false`;
    return { plan, apply, outcome: 'succeeded', ok: true, message: `${applied}; nothing deployed (${why}).` };
  }
  deps.log.info(`Deploying the Claws that changed: ${apply.changedClaws.join(', ')}.`);
  const rollout = await rolloutFleet(
    deps,
    { ...options.fleet, targets: { all: false, ids: apply.changedClaws } },
    policy,
  );
  return { plan, apply, rollout, outcome: rollout.outcome, ok: rollout.ok, message: `${applied}. ${rollout.message}` };
}

/** The inputs each command reads (beyond the common ones): its run sees only the settings they fill. */
const PLAN_READS = inputsReadBy('plan');
const APPLY_READS = inputsReadBy('apply');
const DRIFT_READS = inputsReadBy('drift');

/** The manifest the run read, for the commands that need one (Settings refuses them without it). */
function manifestOf(context: CommandContext<Pick<Settings, 'command'>>): Manifest {
  const { manifest } = context;
  if (!manifest) throw new Error(`the ${context.settings.command} command needs a manifest`);
  return manifest;
}

export const plan: Command<SettingsOf<(typeof PLAN_READS)[number]>> = async (context) => {
  const { settings } = context;
  const result = await planCommand(context, manifestOf(context));
  const shown = await manifestResult(context, 'Plan', result);
  // On a pull_request event, the plan in one comment on the pull request (the action only).
  if (settings.comment && context.comment) {
    await context.comment({
      marker: commentMarker(result.plan.manifest),
      body: commentBody(result.plan, viewOf(context, 'Plan', result)),
      what: 'the plan',
    });
  }
  return shown;
};

/** How the plan is shown: its title, an apply's writes, the run's link. */
function viewOf(
  { github }: Pick<CommandContext, 'github'>,
  title: PlanView['title'],
  result: ManifestResult,
): PlanView {
  return { title, apply: result.apply, runUrl: runUrl(github) };
}

export const drift: Command<SettingsOf<(typeof DRIFT_READS)[number]>> = async (context) =>
  manifestResult(context, 'Drift', await driftCommand(context, manifestOf(context), context.settings.failOnDrift));

/** The apply command's options, and the fleet request it deploys the changed Claws with. */
export function applyOptions(settings: SettingsOf<(typeof APPLY_READS)[number]>): ApplyOptions {
  const { strategy, payload, waves, bakeMs, maxFailures, probeMessage, probeExpect } = settings;
  return {
    planId: settings.planId,
    rewriteSecrets: settings.rewriteSecrets,
    deployChanged: settings.deployChanged,
    fleet: { strategy, payload, waves, bakeMs, maxFailures, probeMessage, probeExpect },
  };
}

export const apply: Command<SettingsOf<(typeof APPLY_READS)[number]>> = async (context) => {
  const result = await applyCommand(context, manifestOf(context), applyOptions(context.settings), context.policy);
  return manifestResult(context, 'Apply', result);
};

/** Plan, drift and apply: the plan's outputs and summary (and an apply's rollout), and its files. */
async function manifestResult(
  context: Pick<CommandContext, 'log' | 'github' | 'tempDir' | 'redact'>,
  title: PlanView['title'],
  result: ManifestResult,
): Promise<CommandResult> {
  const { log } = context;
  const view = viewOf(context, title, result);
  const plan = planOutputs(result.plan);
  const rollout = result.rollout && fleetOutputs(result.rollout);
  const files = await writePlanFiles(result.plan, view, context.tempDir, context.redact.redact).catch(
    (err: unknown) => {
      log.warning(`Could not write the plan's files: ${errorMessage(err)}`);
      return undefined;
    },
  );
  if (files) log.info(`The whole plan is in ${files.markdown} (and as JSON in ${files.json}).`);
  return {
    ok: result.ok,
    message: result.message,
    outputs: {
      outcome: result.outcome,
      ...rollout?.outputs,
      ...plan.outputs,
      'plan-file': files?.markdown ?? '',
      'plan-json': files?.json ?? '',
    },
    summaryCap: {
      bytes: MAX_PLAN_SUMMARY_BYTES,
      whereWhole: files ? `The whole plan is in the file named by the plan-file output (${files.markdown}).` : '',
    },
    summary: [planMarkdown(result.plan, view), result.rollout ? fleetSummary(result.rollout) : '']
      .filter(Boolean)
      .join('\n'),
    notes: [...plan.notes, ...(rollout?.notes ?? [])],
    failStep: true,
    checks: result.rollout?.checks,
    views: [{ kind: 'plan', result, title }],
  };
}

export const planDefinition: CommandDefinition<(typeof PLAN_READS)[number]> = {
  name: 'plan',
  summary: 'show what a manifest would change, writing nothing',
  inputs: PLAN_READS,
  run: plan,
};

export const applyDefinition: CommandDefinition<(typeof APPLY_READS)[number]> = {
  name: 'apply',
  summary: 'apply a manifest (refusing another plan than --plan-id), then deploy the Claws that changed',
  inputs: APPLY_READS,
  rules: {
    validate: (settings, given, w) => {
      // The review: the reviewed plan's id, or auto-approve, never both.
      if (settings.autoApprove && settings.planId) {
        refuseInput(
          'auto-approve',
          given('auto-approve'),
          `false when ${w.input('plan-id')} names the reviewed plan (one or the other)`,
        );
      }
      if (!settings.planId && !settings.autoApprove) {
        refuseInput(
          'plan-id',
          '',
          `the ${w.output('plan-id')} of the reviewed plan (apply refuses to write an unreviewed plan), or ${w.setting('auto-approve', 'true')} to apply without review`,
        );
      }
    },
  },
  prepare: {
    files: ({ manifest }, words) => {
      if (manifest) requireSecrets(manifest, words);
    },
  },
  commandLine: {
    cancel: deployingCancel,
  },
  run: apply,
};

export const driftDefinition: CommandDefinition<(typeof DRIFT_READS)[number]> = {
  name: 'drift',
  summary: 'fail when the service differs from a manifest',
  inputs: DRIFT_READS,
  run: drift,
};
