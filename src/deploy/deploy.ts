// The deploy, wait and rollback commands: trigger → wait → roll back when the policy says so.
import { wordsOf } from '../shared/words.js';
import type { Json } from '../api/shapes.js';
import { ApiError } from '../api/errors.js';
import { CancelledError, errorMessage } from '../shared/errors.js';
import { formatDuration } from '../shared/format.js';

import { type RollbackResult, rollBack } from './rollback.js';
import { type Classifier, type RollbackTrigger, describeClass } from '../shared/status.js';
import type { RunContext } from '../api/context.js';
import type { DeploymentHistory } from './history.js';
import type { CheckEntry, ChecksResult, ChecksRunner } from '../checks/result.js';
import { type BehaviourGate, type Compared, describeComparison } from '../checks/comparison.js';
import { SequentialComparison } from '../checks/sequential-gate.js';
import { type OnConflict, type Waited, triggerPastConflicts } from './conflict.js';
import { type TimelineEntry, type WaitOutcome, waitForFinalStatus } from './wait.js';
import { finalDuration } from './history.js';
import type { Deployment } from '../api/client.js';
import { type Known, type SettledOutcome, decideSettling, withRollback } from './settling.js';

/** `error`: the step could not do what it was asked (a refused key, an unknown Claw, a conflict with `on-conflict: fail`). */
export type Outcome = WaitOutcome | 'cancelled' | 'triggered' | 'error';

const isFinal = (outcome: Outcome): boolean => outcome === 'succeeded' || outcome === 'failed' || outcome === 'paused';

export interface DeployResult {
  command: 'deploy' | 'wait' | 'rollback';
  clawId?: string;
  strategy?: string;
  deploymentId?: string;
  status?: string;
  outcome?: Outcome;
  url?: string;
  durationMs?: number;
  /** When the run started (epoch milliseconds), for the summary. */
  startedAt?: number;
  timeline: TimelineEntry[];
  rollback?: RollbackResult;
  /** The conversation checks run after the deployment succeeded, when there is a checks file. */
  checks?: ChecksResult;
  /** `baseline: before`: the checks on the live Claw before the trigger, compared with `checks`. */
  comparison?: Compared;
  /** Whether the step succeeds. */
  ok: boolean;
  /** One line: what happened, and for a failure, why. */
  message: string;
}

export interface Policy {
  timeoutMs: number;
  pollIntervalMs: number;
  classify: Classifier;
  autoRollback: boolean;
  rollbackOn: RollbackTrigger[];
  /** A Claw already deploying: wait for that deployment, or fail at once. */
  onConflict: OnConflict;
}

/** What the post step needs if this process is killed: saved as it happens. */
export interface Progress {
  deploymentId: string;
  final: boolean;
}

export interface CommandDeps extends RunContext {
  /** The recent deployments, read once per run, that set the poll schedule; absent: the plain one. */
  history?: DeploymentHistory;
  /** The conversation checks from the `checks` file, when there is one: the behaviour gate. */
  checks?: ChecksRunner;
  /** `baseline: before`: the checks also run before the trigger, and the two runs are compared. */
  behaviour?: BehaviourGate;
  /** `baseline: saved`, when the last gate's saved run is evidence of the live version: the baseline, asked of nobody. */
  savedBaseline?: CheckEntry[];
  onProgress?: (progress: Progress) => void;
  /** A fleet's deployments not yet final, each time that changes: what the post step rolls back. */
  onFleetProgress?: (inFlight: string[]) => void;
}

/**
 * A saved run's reply times were measured at another time, when the service and the network may
 * have been faster or slower than now: compared with today's, they would read the day's speed as
 * the release's (a concurrent baseline, `before`, measures both sides alike).
 */
export const SAVED_TIMES_APART =
  "the saved run's reply times were measured at another time: shown, not compared (baseline: before compares them)";

/** Time given to the rollback request on cancel: inside the runner's 7.5 s grace. */
export const CANCEL_ROLLBACK_MS = 5000;

export async function deployClaw(
  deps: CommandDeps,
  input: { clawId: string; strategy: string; payload: Json; wait: boolean },
  policy: Policy,
): Promise<DeployResult> {
  const { log } = deps;
  const timeline: TimelineEntry[] = [];
  const base = {
    command: 'deploy' as const,
    clawId: input.clawId,
    strategy: input.strategy,
    startedAt: deps.startedAt,
    timeline,
  };
  // `baseline: before`: the live Claw's checks, every attempt, before anything changes it.
  let baseline: ChecksResult | undefined;
  if (deps.behaviour && deps.checks && input.wait) {
    baseline = deps.savedBaseline
      ? { passed: true, entries: deps.savedBaseline }
      : await checkBaseline(deps, deps.checks, input.clawId);
    if (baseline.cancelled) {
      const message = `Cancelled during the baseline checks of Claw ${input.clawId}, before its deployment was triggered.`;
      return { ...base, outcome: 'cancelled', ok: false, message, checks: baseline };
    }
  }
  let triggered;
  log.startGroup?.(`Trigger: a deployment of Claw ${input.clawId}`);
  try {
    triggered = await triggerPastConflicts(
      deps,
      { clawId: input.clawId, strategy: input.strategy || undefined, payload: input.payload },
      { onConflict: policy.onConflict, pollIntervalMs: policy.pollIntervalMs, classify: policy.classify, timeline },
    );
  } catch (err) {
    log.endGroup?.();
    if (err instanceof CancelledError) {
      return {
        ...base,
        outcome: 'cancelled',
        ok: false,
        message: `Cancelled before deployment of Claw ${input.clawId} was triggered.`,
      };
    }
    throw err;
  }
  if (triggered.kind === 'blocked') {
    log.endGroup?.();
    const durationMs = deps.clock.now() - deps.startedAt;
    return { ...base, outcome: triggered.outcome, durationMs, ok: false, message: triggered.message };
  }
  const deployment = triggered.deployment;
  const waited = triggered.waited;
  const started: Started = {
    ...base,
    deploymentId: deployment.id,
    status: deployment.status,
    url: deployment.url,
    waited,
    baseline,
  };
  // From here a deployment is live or on its way: whatever breaks takes the failure path.
  try {
    announceTrigger(deps, started, policy);
  } catch (err) {
    if (err instanceof CancelledError) return settle(deps, started, policy, false, { outcome: 'cancelled' });
    return settle(deps, started, policy, false, { outcome: 'error', error: err });
  }
  if (!input.wait) {
    return {
      ...base,
      deploymentId: deployment.id,
      status: deployment.status,
      outcome: 'triggered',
      url: deployment.url,
      ok: true,
      message: `Triggered deployment ${deployment.id} of Claw ${input.clawId}; not waiting (${wordsOf(deps).input('wait')} is false).`,
    };
  }
  return settle(deps, started, policy, false);
}

/** `baseline: before`: the live Claw's checks, every attempt, before anything changes it. */
async function checkBaseline(deps: CommandDeps, checks: ChecksRunner, clawId: string): Promise<ChecksResult> {
  deps.log.startGroup?.(`Baseline: the checks on Claw ${clawId} before the deployment`);
  try {
    // In rounds: a question answered the same every time is asked twice, not `repeat` times.
    return await checks([clawId], undefined, { comparing: true, rounds: {} });
  } finally {
    deps.log.endGroup?.();
  }
}

/** Says the trigger went through, and starts the timeline with the first status the service gave. */
function announceTrigger(deps: CommandDeps, started: Started, policy: Policy): void {
  const { log } = deps;
  const { deploymentId, status, url } = started;
  deps.onProgress?.({ deploymentId, final: false });
  log.info(
    `Triggered deployment ${deploymentId} of Claw ${started.clawId} (strategy: ${started.strategy || 'team default'}).${url ? ` Dashboard: ${url}` : ''}`,
  );
  log.endGroup?.();
  if (status !== undefined) {
    const reading = policy.classify(status);
    const atMs = deps.clock.now() - deps.startedAt;
    started.timeline.push({ atMs, deploymentId, status, reading });
    log.info(`[${formatDuration(atMs)}] deployment ${deploymentId}: ${status} (${describeClass(reading)})`);
  }
}

export async function waitOnDeployment(deps: CommandDeps, deploymentId: string, policy: Policy): Promise<DeployResult> {
  deps.onProgress?.({ deploymentId, final: false });
  return settle(deps, { command: 'wait', deploymentId, startedAt: deps.startedAt, timeline: [] }, policy, true);
}

type Started = Pick<DeployResult, 'command' | 'clawId' | 'strategy' | 'status' | 'url' | 'timeline' | 'startedAt'> & {
  deploymentId: string;
  /** Another deployment of the Claw it waited for before the trigger went through. */
  waited?: Waited;
  /** `baseline: before`: the checks run on the live Claw before the trigger. */
  baseline?: ChecksResult;
};

/** What broke after the trigger, said in one line (the service's errors already say what was being done). */
function describeBreak(err: unknown): string {
  return err instanceof ApiError ? err.message : `unexpected error: ${errorMessage(err)}`;
}

export { rollsBack } from './settling.js';

/** How a break ends a settling: a cancel, or an error said in one line. */
function broken(err: unknown): { outcome: 'cancelled' } | { outcome: 'error'; failure: string } {
  return err instanceof CancelledError ? { outcome: 'cancelled' } : { outcome: 'error', failure: describeBreak(err) };
}

/** What the wait found, or how the run broke, as the settling goes on. */
interface Found {
  outcome: SettledOutcome;
  status?: string;
  url?: string;
  note?: string;
  failure?: string;
  /** A deployment `wait` found already final: its duration is the service's to tell, not this run's. */
  foundFinal?: Deployment;
}

/** Waits for the deployment's final status; a break (a cancel, a read that fails for good) ends it. */
async function waitToSettle(deps: CommandDeps, started: Started, policy: Policy, pollFirst: boolean): Promise<Found> {
  const { deploymentId, timeline } = started;
  deps.log.startGroup?.(`Wait: deployment ${deploymentId}`);
  try {
    const wait = await waitForFinalStatus(deps, {
      deploymentId,
      clawId: started.clawId,
      deadline: deps.deadline,
      pollIntervalMs: policy.pollIntervalMs,
      classify: policy.classify,
      pollFirst,
      timeline,
    });
    const foundFinal =
      started.command === 'wait' && wait.polls === 1 && isFinal(wait.outcome) ? wait.deployment : undefined;
    const url = wait.deployment?.url ?? started.url;
    return { outcome: wait.outcome, status: wait.status ?? started.status, url, note: wait.note, foundFinal };
  } catch (err) {
    const why = broken(err);
    const status = why.outcome === 'cancelled' ? (timeline.at(-1)?.status ?? started.status) : started.status;
    return { ...why, status, url: started.url };
  } finally {
    deps.log.endGroup?.();
  }
}

/**
 * The behaviour gate: a deployment that succeeded must still prove the Claw answers as it should.
 * Runs the checks (and the comparison with the baseline); judging them is `decideSettling`'s.
 */
async function checkSettled(
  deps: CommandDeps,
  started: Started,
  found: Found,
): Promise<{ found: Found; checks?: ChecksResult; gate?: Known['gate'] }> {
  let checks: ChecksResult | undefined;
  let gate: Known['gate'];
  try {
    deps.onProgress?.({ deploymentId: started.deploymentId, final: isFinal(found.outcome) });
    if (found.outcome === 'succeeded' && deps.checks && started.clawId) {
      const { baseline } = started;
      // With a baseline: round by round, stopping once the evidence is decisive (sequential-gate.ts).
      const sequential =
        baseline && deps.behaviour
          ? new SequentialComparison(
              deps.behaviour,
              { label: 'before', entries: baseline.entries },
              'after',
              deps.log,
              {
                fixed: deps.savedBaseline !== undefined,
                ...(deps.savedBaseline ? { timesApart: SAVED_TIMES_APART } : {}),
              },
            )
          : undefined;
      deps.log.startGroup?.(`Checks: Claw ${started.clawId}`);
      try {
        checks = await deps.checks(
          [started.clawId],
          undefined,
          baseline ? { comparing: true, ...(sequential ? { rounds: sequential.rounds } : {}) } : undefined,
        );
      } finally {
        deps.log.endGroup?.();
      }
      if (!checks.cancelled && sequential && deps.behaviour) {
        gate = { failOn: deps.behaviour.failOn, comparison: sequential.verdict(checks.entries) };
        deps.log.info(`Compared with the checks before the deployment: ${describeComparison(gate.comparison)}.`);
      }
    }
  } catch (err) {
    return { found: { ...found, ...broken(err) }, checks, gate };
  }
  return { found, checks, gate };
}

/** Rolls the deployment back as decided; a rollback that breaks is reported, never thrown. */
async function rollBackSettled(
  deps: CommandDeps,
  started: Started,
  status: string | undefined,
  policy: Policy,
  follow: boolean,
): Promise<RollbackResult> {
  const { deploymentId } = started;
  deps.log.startGroup?.(`Rollback: deployment ${deploymentId}`);
  const rollback = await rollBack(deps, {
    deploymentId,
    clawId: started.clawId,
    statusBefore: status,
    timeoutMs: follow ? policy.timeoutMs : CANCEL_ROLLBACK_MS,
    pollIntervalMs: policy.pollIntervalMs,
    classify: policy.classify,
    wait: follow,
    timeline: started.timeline,
  }).catch((err: unknown) => {
    const why =
      err instanceof CancelledError ? 'the run was cancelled while waiting for the rollback' : describeBreak(err);
    return {
      id: deploymentId,
      form: 'in-place',
      succeeded: false,
      outcome: err instanceof CancelledError ? 'requested' : 'error',
      message: why,
    } satisfies RollbackResult;
  });
  deps.log.endGroup?.();
  return rollback;
}

/**
 * Waits for a final status, runs the checks, then applies the rollback policy, as `decideSettling`
 * decides. Whatever breaks on the way (a read that fails for good, a bug, a closed output) ends as
 * outcome `error`, and the deployment is rolled back when the rules cover failures: a crash never
 * leaves a release live and unchecked. `broke` starts there at once (a failure between the trigger
 * and the wait).
 */
async function settle(
  deps: CommandDeps,
  started: Started,
  policy: Policy,
  pollFirst: boolean,
  broke?: { outcome: 'cancelled' } | { outcome: 'error'; error: unknown },
): Promise<DeployResult> {
  const waited: Found = broke
    ? { ...(broke.outcome === 'error' ? broken(broke.error) : broke), status: started.status, url: started.url }
    : await waitToSettle(deps, started, policy, pollFirst);
  const durationMs = waited.foundFinal ? finalDuration(waited.foundFinal) : deps.clock.now() - deps.startedAt;
  const { found, checks, gate } = await checkSettled(deps, started, waited);
  const { status, url } = found;
  const decision = decideSettling({ ...started, ...found, durationMs, checks, gate, words: wordsOf(deps) }, policy);
  const rollback = decision.rollBack
    ? await rollBackSettled(deps, started, status, policy, decision.rollBack.wait)
    : undefined;
  const { outcome } = decision;
  // The baseline's own checks stay out of the result: `comparison` carries what they showed.
  const shown: Omit<Started, 'baseline'> & { baseline?: undefined } = { ...started, baseline: undefined };
  return {
    ...shown,
    status,
    url,
    outcome,
    durationMs,
    rollback,
    checks,
    ...(gate ? { comparison: gate.comparison } : {}),
    ok: outcome === 'succeeded',
    message: rollback ? withRollback(decision.message, rollback) : decision.message,
  };
}

/** The Claw's current deployment, else its newest one; an empty id when it has none. */
async function currentDeployment(
  deps: CommandDeps,
  clawId: string,
): Promise<{ deploymentId: string; statusBefore?: string }> {
  const options = { deadline: deps.deadline, signal: deps.signal };
  const claw = await deps.client.getClaw(clawId, options);
  if (claw.deploymentId) return { deploymentId: claw.deploymentId, statusBefore: claw.deploymentStatus };
  const recent = await deps.client.listDeployments({ ...options, clawId });
  // Newest first by creation time when the service gives one; otherwise the list's own order.
  const newest = recent.some((d) => d.createdAt !== undefined)
    ? [...recent].sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0))[0]
    : recent[0];
  return { deploymentId: newest?.id ?? '', statusBefore: newest?.status };
}

/** The rollback command's outcome and message, from how the rollback went. */
function rolledBack(deploymentId: string, rollback: RollbackResult): { outcome: Outcome; message: string } {
  const cancelled = rollback.outcome === 'requested';
  const message = rollback.succeeded
    ? `Deployment ${deploymentId} was rolled back (${rollback.message}).`
    : cancelled
      ? `The run was cancelled while rolling back deployment ${deploymentId} (${rollback.message}).`
      : `Rolling back deployment ${deploymentId} failed: ${rollback.message}.`;
  const outcome: Outcome = rollback.succeeded
    ? 'succeeded'
    : cancelled
      ? 'cancelled'
      : rollback.outcome === 'timed-out' || rollback.outcome === 'paused'
        ? rollback.outcome
        : 'failed';
  return { outcome, message };
}

/** The rollback command: rolls back `deploymentId`, or the Claw's current deployment. */
export async function rollbackCommand(
  deps: CommandDeps,
  target: { deploymentId: string; clawId: string },
  policy: Policy,
): Promise<DeployResult> {
  const { client, clock, log, startedAt, signal } = deps;
  const options = { deadline: deps.deadline, signal };
  let deploymentId = target.deploymentId;
  let statusBefore: string | undefined;
  if (deploymentId) {
    statusBefore = (await client.getDeployment(deploymentId, options)).status;
  } else {
    ({ deploymentId, statusBefore } = await currentDeployment(deps, target.clawId));
    if (!deploymentId) {
      return {
        command: 'rollback',
        clawId: target.clawId,
        timeline: [],
        ok: false,
        message: `Claw ${target.clawId} has no deployment to roll back.`,
      };
    }
    log.info(
      `Claw ${target.clawId}'s current deployment is ${deploymentId}${statusBefore ? ` (${statusBefore})` : ''}.`,
    );
  }
  deps.onProgress?.({ deploymentId, final: true });
  const timeline: TimelineEntry[] = [];
  const base = { command: 'rollback' as const, clawId: target.clawId || undefined, deploymentId, timeline };
  // A second rollback of a rolled-back deployment would undo nothing the first did not: say so, send nothing.
  if (statusBefore !== undefined && policy.classify(statusBefore) === 'rolled_back') {
    return {
      ...base,
      status: statusBefore,
      outcome: 'succeeded',
      durationMs: clock.now() - startedAt,
      ok: true,
      message: `Deployment ${deploymentId} is already rolled back (status "${statusBefore}"): no rollback was sent.`,
    };
  }
  try {
    const rollback = await rollBack(deps, {
      deploymentId,
      clawId: target.clawId || undefined,
      statusBefore,
      timeoutMs: policy.timeoutMs,
      pollIntervalMs: policy.pollIntervalMs,
      classify: policy.classify,
      wait: true,
      timeline,
    });
    const durationMs = clock.now() - startedAt;
    const { outcome, message } = rolledBack(deploymentId, rollback);
    return { ...base, status: rollback.status, outcome, durationMs, rollback, ok: rollback.succeeded, message };
  } catch (err) {
    if (!(err instanceof CancelledError)) throw err;
    return {
      ...base,
      outcome: 'cancelled',
      durationMs: clock.now() - startedAt,
      ok: false,
      message: `The run was cancelled while rolling back deployment ${deploymentId}.`,
    };
  }
}
