// `preview`: a throwaway Claw per changed manifest Claw on a pull request, checked beside
// production, removed when the pull request closes, swept on a schedule. What it does follows the
// event; the code host is a plain interface (host.ts) and every service call goes through the run's
// one client and pacer. Production Claws are never written to: every write goes through
// `guardedId`, which refuses an id the manifest declares.
import { type Command, type CommandDefinition } from '../contract/command.js';
import { inputsReadBy } from '../contract/inputs.js';
import type { SettingsOf } from '../contract/settings.js';
import { InputError } from '../shared/errors.js';
import { previewOutputs, previewSummary } from '../preview/preview-report.js';
import { stateSealKey } from '../shared/seal.js';
import { type PreviewResult, emptyResult } from '../preview/result.js';
import type { ClawComparison } from '../checks/comparison.js';
import type { PreviewDeps, PreviewRequest } from '../preview/request.js';
import { cleanUp, sweep } from '../preview/cleanup.js';
import { up } from '../preview/up.js';

/** Up on a pull request opened or pushed to, down when it closes, a sweep on a schedule. */
export async function previewCommand(deps: PreviewDeps, request: PreviewRequest): Promise<PreviewResult> {
  const { event } = request;
  const pullRequestEvent = event.name === 'pull_request' || event.name === 'pull_request_target';
  if (pullRequestEvent && event.pr !== undefined) {
    if (['opened', 'synchronize', 'reopened', 'labeled', 'ready_for_review'].includes(event.action)) {
      return up(deps, request, event.pr);
    }
    if (event.action === 'closed') return cleanUp(deps, request, event.pr);
  }
  if (event.name === 'schedule' || event.name === 'workflow_dispatch') return sweep(deps, request);
  // Worth a notice, not a line lost in the log: a workflow wired to the wrong event does nothing.
  const what = `${event.name || 'this event'}${event.action ? ` (${event.action})` : ''}`;
  return {
    ...emptyResult('none', request.event.headSha),
    failStep: false,
    message: `Nothing to preview on ${what}.`,
    notices: [
      `Nothing to preview on ${what}: previews follow pull requests (opened, synchronize, reopened, labeled, closed) and sweep on schedule or workflow_dispatch.`,
    ],
  };
}

/** The inputs each command reads (beyond the common ones): its run sees only the settings they fill. */
const PREVIEW_READS = inputsReadBy('preview');
/** The preview command as the run's table calls it: the action only (it follows a pull request). */
export const preview: Command<SettingsOf<(typeof PREVIEW_READS)[number]>> = async (context) => {
  const { settings, manifest, suite, policy } = context;
  if (!context.preview || !manifest) {
    throw new InputError('The preview command follows a GitHub pull request: run it in a GitHub Actions workflow.');
  }
  const redact = context.redact.redact;
  const result = await previewCommand(
    { ctx: context, host: context.preview.host, runChecks: suite && context.checksFor },
    {
      manifest,
      suite,
      event: context.preview.event,
      previewClaws: settings.previewClaws,
      ttlMs: settings.previewTtlMs,
      maxPreviews: settings.maxPreviews,
      failOn: settings.failOn,
      environment: settings.environment,
      strategy: settings.strategy,
      payload: settings.payload,
      policy,
      redact,
      seal: stateSealKey(settings, context.github.repository),
    },
  );
  const { outputs, notes } = previewOutputs(result);
  return {
    ok: result.ok,
    message: result.message,
    outputs: { outcome: result.ok ? 'succeeded' : 'failed', ...outputs, report: outputs.previews },
    summary: previewSummary(manifest.file, result, context.clock.now(), redact),
    notes,
    notices: result.notices,
    failStep: result.failStep,
    checks: result.checks,
    ...comparisonsOf(result),
  };
};

/** Each preview's comparison with its production Claw, for `behaviour` and `comparison`. */
function comparisonsOf(result: PreviewResult): { comparisons?: ClawComparison[] } {
  const comparisons = result.entries.flatMap((e) =>
    e.comparison && e.previewId ? [{ clawId: e.previewId, compared: e.comparison }] : [],
  );
  return comparisons.length ? { comparisons } : {};
}

export const previewDefinition: CommandDefinition<(typeof PREVIEW_READS)[number]> = {
  name: 'preview',
  summary: 'GitHub only: a preview Claw per changed Claw on a pull request, checked beside production',
  inputs: PREVIEW_READS,
  rules: {
    githubToken: "'pull-requests: write' for preview, which reads the pull request and keeps its comment",
  },
  action: {
    pullRequest: {
      commandLine:
        'preview follows a GitHub pull request (opened, pushed, closed) and keeps its comment there: run it as the action, with command: preview, in a pull_request workflow.',
      withoutKey: 'Previews need the API key; this run has none, as on pull requests from forks. No preview was made.',
    },
  },
  run: preview,
};
