// deploy's `baseline: saved`: the comparison's baseline is the last gate's saved run of the live
// version (checks/saved-run.ts, kept by health/saved-runs.ts), so the gate asks only the candidate.
// Used only when it is evidence of what is live now (the same checks and judges, the Claw still on
// the deployment it was run on, with the same configuration, young enough); otherwise the gate asks
// the live Claw before the trigger, as `baseline: before` does, and says once why. After a gate
// that succeeded, the deployed version's run is saved for the next one.
import type { RunContext } from '../api/context.js';
import type { CheckSuite } from '../checks/check.js';
import type { ChecksResult } from '../checks/result.js';
import { type SavedGateRun, configHash, savedRunProblem, suiteHashes } from '../checks/saved-run.js';
import { CancelledError, errorMessage } from '../shared/errors.js';
import { clip, formatDuration } from '../shared/format.js';
import { keepSavedRun, readSavedRun } from '../health/saved-runs.js';
import { type SealKey, stateSealKey } from '../shared/seal.js';
import type { HealthHost } from '../health/host.js';
import type { DeployResult } from './deploy.js';

/** What the saved baseline reads of a command's run: the history store, the seal's secrets, the service. */
interface Context extends RunContext {
  settings: { history: string; stateSecret: string; apiKey: string };
  github: { repository: string };
  health?: { host: HealthHost };
}

/** The saved run the gate compares with, and the words the cost line says of it. */
export interface SavedBaseline {
  run: SavedGateRun;
  /** Why the baseline costs no request: which run it is, and how old. */
  said: string;
}

const sealOf = ({ settings, github }: Context): SealKey => stateSealKey(settings, github.repository);

/** The Claw's live deployment and configuration, as one read of the service shows them. */
async function liveBasis(context: Context, clawId: string) {
  const deps = context;
  const claw = await deps.client.getClaw(clawId, { deadline: deps.deadline, signal: deps.signal });
  return { deployment: claw.deploymentId ?? '', config: configHash(claw.raw), status: claw.deploymentStatus };
}

/**
 * The saved run to compare with, or undefined (the gate asks the live Claw): one line says why not.
 * Costs a read of the history (the listing and one file) and one read of the Claw.
 */
export async function savedBaseline(
  context: Context,
  suite: CheckSuite,
  clawId: string,
  classify: (status: string | undefined) => string,
): Promise<SavedBaseline | undefined> {
  const { settings } = context;
  const deps = context;
  const host = context.health?.host;
  const fallback = (why: string, warn = false) => {
    (warn ? deps.log.warning : deps.log.info)(
      `Baseline: the last gate's saved run of Claw ${clawId} is not used (${why}); the checks run on the live Claw before the trigger instead.`,
    );
    return undefined;
  };
  if (!settings.history || !host) return fallback('no history store to read it from');
  let read;
  try {
    read = await readSavedRun(host.branch, clawId, sealOf(context));
  } catch {
    return fallback(`the history '${settings.history}' could not be read`, true);
  }
  if (read.state === 'absent') return fallback('none saved yet: the first gate with a history saves one');
  if (read.state === 'refused') return fallback(`the file on '${settings.history}' is refused: ${read.problem}`, true);
  let live;
  try {
    live = await liveBasis(context, clawId);
  } catch (err) {
    // A cancel ends the run; a Claw that cannot be read now is asked as before is (which says why it fails).
    if (err instanceof CancelledError) throw err;
    return fallback(`the Claw could not be read to tell its live deployment: ${clip(errorMessage(err), 200)}`);
  }
  const now = deps.clock.now();
  const problem =
    live.status !== undefined && classify(live.status) !== 'succeeded'
      ? `the Claw's live deployment ${live.deployment} reads ${JSON.stringify(live.status)}, not succeeded`
      : savedRunProblem(read.run, { claw: clawId, ...suiteHashes(suite, clawId), ...live }, now);
  if (problem) return fallback(problem);
  const { run } = read;
  return {
    run,
    said: `the baseline costs 0 requests: the last gate's saved run of the live deployment ${run.deployment} (${formatDuration(now - run.at)} old, same checks, judge and configuration)`,
  };
}

/**
 * After a deploy whose gate compared and succeeded: the deployed version's run, saved for the next
 * gate. One read of the Claw (its configuration as deployed) and one commit; never fails the step.
 */
export async function saveDeployedRun(context: Context, suite: CheckSuite, result: DeployResult): Promise<void> {
  const { settings } = context;
  const deps = context;
  const host = context.health?.host;
  const { clawId, deploymentId, checks } = result;
  if (!settings.history || !host || result.outcome !== 'succeeded' || !clawId || !deploymentId) return;
  if (!checks || checks.cancelled || !hasSamples(checks, clawId)) return;
  let live;
  try {
    live = await liveBasis(context, clawId);
  } catch {
    deps.log.info(`History: the Claw could not be read after its deployment; its checks' run is not saved.`);
    return;
  }
  if (live.deployment && live.deployment !== deploymentId) return;
  await keepSavedRun(
    { clock: deps.clock, log: deps.log, ...(deps.signal ? { signal: deps.signal } : {}) },
    { branch: host.branch, name: settings.history, seal: sealOf(context) },
    {
      claw: clawId,
      deployment: deploymentId,
      config: live.config,
      ...suiteHashes(suite, clawId),
      at: deps.clock.now(),
      entries: checks.entries.filter((e) => e.clawId === clawId),
    },
  );
}

const hasSamples = (checks: ChecksResult, clawId: string) =>
  checks.entries.some((e) => e.clawId === clawId && e.samples?.length);
