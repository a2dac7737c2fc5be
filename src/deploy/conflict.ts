// A trigger refused because the Claw is already deploying (409): find the deployment in the way,
// then fail at once (`on-conflict: fail`) or follow it to a final status under the run's deadline
// and trigger again as a new write (`wait`). Deploy and the fleet both trigger through here.
import { wordsOf } from '../shared/words.js';
import type { Deployment, TriggerInput } from '../api/client.js';
import { ApiError, ConflictError } from '../api/errors.js';
import type { RunContext } from '../api/context.js';
import { formatDuration } from '../shared/format.js';
import { pollEvery } from '../api/poll.js';
import type { Classifier } from '../shared/status.js';
import { type TimelineEntry, waitForFinalStatus } from './wait.js';

export const ON_CONFLICT = ['wait', 'fail'] as const;
export type OnConflict = (typeof ON_CONFLICT)[number];

export interface TriggerRules {
  onConflict: OnConflict;
  pollIntervalMs: number;
  classify: Classifier;
  /** Rows for the summary's timeline: the wait for the deployment in the way is one of them. */
  timeline: TimelineEntry[];
}

/** A trigger that went through, or one that could not (a conflict it was told not to wait out, or the deadline). */
export type TriggerResult =
  | { kind: 'triggered'; deployment: Deployment; waited?: Waited }
  | { kind: 'blocked'; outcome: 'error' | 'timed-out'; blockingId?: string; message: string };

/** What a trigger waited for before it went through: the deployments in the way, and how long. */
export interface Waited {
  deploymentIds: string[];
  ms: number;
}

export interface Blocker {
  id: string;
  status?: string;
}

/**
 * The deployment in the way: the one the error names; else the Claw's current deployment while it
 * is in progress; else its newest deployment in progress in the recent list. Undefined when none
 * can be found (the lookups are best effort: a failure here is not the step's failure).
 */
export async function findBlocker(
  deps: RunContext,
  clawId: string,
  conflict: ConflictError,
  classify: Classifier,
): Promise<Blocker | undefined> {
  if (conflict.blockingId) return { id: conflict.blockingId };
  const options = { deadline: deps.deadline, signal: deps.signal };
  const inProgress = (status: string | undefined): boolean =>
    status === undefined || classify(status) === 'in_progress';
  try {
    const claw = await deps.client.getClaw(clawId, options);
    if (claw.deploymentId && inProgress(claw.deploymentStatus)) {
      return { id: claw.deploymentId, status: claw.deploymentStatus };
    }
    const recent = await deps.client.listDeployments({ ...options, clawId });
    const running = recent.filter((d) => d.status !== undefined && inProgress(d.status));
    const newest = running.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0))[0];
    return newest && { id: newest.id, status: newest.status };
  } catch (err) {
    if (err instanceof ApiError && err.kind !== 'deadline') {
      deps.log.warning(`Could not find which deployment of Claw ${clawId} is in the way: ${err.message}`);
      return undefined;
    }
    throw err;
  }
}

/**
 * Triggers a deployment of `input.clawId`. A conflict is met by the rules: `fail` returns at once;
 * `wait` follows the deployment in the way, then triggers again, for as long as the deadline allows.
 * Each new trigger is a new write with its own Idempotency-Key (the client makes one per call).
 */
export async function triggerPastConflicts(
  deps: RunContext,
  input: TriggerInput,
  rules: TriggerRules,
): Promise<TriggerResult> {
  const { client, clock, log, deadline, signal } = deps;
  const claw = input.clawId;
  // Paces retries when the service keeps refusing though nothing is seen in progress.
  const retryPoller = pollEvery(deps, rules.pollIntervalMs, deadline);
  let lastBlocker: Blocker | undefined;
  const began = clock.now();
  const waitedFor: string[] = [];
  for (;;) {
    let conflict: ConflictError;
    try {
      const deployment = await client.triggerDeployment(input, { deadline, signal });
      const waited = waitedFor.length ? { deploymentIds: waitedFor, ms: clock.now() - began } : undefined;
      return { kind: 'triggered', deployment, waited };
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      conflict = err;
    }
    const blocker = await findBlocker(deps, claw, conflict, rules.classify);
    lastBlocker = blocker ?? lastBlocker;
    const named = blocker ? `deployment ${blocker.id}` : 'a deployment the service did not name';
    if (rules.onConflict === 'fail') {
      return {
        kind: 'blocked',
        outcome: 'error',
        blockingId: blocker?.id,
        message: `Claw ${claw} is already deploying (${named} is in progress); not deploying, as ${wordsOf(deps).input('on-conflict')} is fail. ${conflict.message}`,
      };
    }
    const timedOut = (): TriggerResult => ({
      kind: 'blocked',
      outcome: 'timed-out',
      blockingId: lastBlocker?.id,
      message: `Claw ${claw} was still busy with ${lastBlocker ? `deployment ${lastBlocker.id}` : 'another deployment'} when the deadline came; no deployment of this run was triggered.`,
    });
    if (clock.now() >= deadline) return timedOut();
    if (!blocker) {
      log.info(`Claw ${claw} is already deploying, but no deployment in progress was found; trying again shortly.`);
      if (!(await retryPoller.next())) return timedOut();
      continue;
    }
    const waitedFrom = clock.now();
    if (!waitedFor.includes(blocker.id)) waitedFor.push(blocker.id);
    rules.timeline.push({
      atMs: waitedFrom - deps.startedAt,
      deploymentId: blocker.id,
      status: blocker.status ?? 'in progress',
      reading: 'in_progress',
      note: 'in the way: waited for it (409 on the trigger)',
    });
    log.info(
      `Claw ${claw} is already deploying: deployment ${blocker.id}${blocker.status ? ` (${blocker.status})` : ''} is in the way. Waiting for it to finish (${wordsOf(deps).input('on-conflict')} is wait).`,
    );
    const ended = await followBlocker(deps, blocker, claw, rules);
    if (ended === 'timed-out') return timedOut();
    log.info(
      `Deployment ${blocker.id} ${ended === 'gone' ? 'is gone' : `ended (${ended})`} after ${formatDuration(clock.now() - waitedFrom)}; triggering Claw ${claw} again.`,
    );
    // A service that still refuses once the one in the way has ended is given a poll interval, not a burst.
    if (clock.now() - waitedFrom < rules.pollIntervalMs && !(await retryPoller.next())) return timedOut();
  }
}

/** Follows the deployment in the way to any final status; `gone` when the service no longer knows it. */
async function followBlocker(
  deps: RunContext,
  blocker: Blocker,
  clawId: string,
  rules: TriggerRules,
): Promise<string | 'timed-out' | 'gone'> {
  try {
    const wait = await waitForFinalStatus(deps, {
      deploymentId: blocker.id,
      clawId,
      deadline: deps.deadline,
      pollIntervalMs: rules.pollIntervalMs,
      classify: rules.classify,
      pollFirst: true,
      timeline: rules.timeline,
    });
    return wait.outcome === 'timed-out' ? 'timed-out' : (wait.status ?? wait.outcome);
  } catch (err) {
    if (err instanceof ApiError && err.kind === 'not_found') return 'gone';
    throw err;
  }
}
