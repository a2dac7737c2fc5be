// Rolling a deployment back exactly once, and waiting for the rollback in either form the
// service may use: a new deployment to follow, or the original moving to `rolled_back`.
import { ApiError } from '../api/errors.js';
import { CancelledError, errorMessage } from '../shared/errors.js';
import type { StatusClass } from '../shared/status.js';
import type { RunContext } from '../api/context.js';
import type { Deployment } from '../api/client.js';
import { type TimelineEntry, type WaitOutcome, waitForFinalStatus } from './wait.js';
import type { Classifier } from '../shared/status.js';

export interface RollbackResult {
  /** The deployment that carries the rollback: a new one, or the original. */
  id: string;
  form: 'new-deployment' | 'in-place';
  status?: string;
  /** A URL the service gave for the rollback's deployment, if any. */
  url?: string;
  succeeded: boolean;
  outcome: WaitOutcome | 'requested' | 'error';
  /** One line on how it went, for the log and the step's message. */
  message: string;
}

export interface RollbackRequest {
  deploymentId: string;
  /** The Claw, when known: its history shapes the poll schedule. */
  clawId?: string;
  /** The original's last known status, to tell a rollback that has not started from one that failed. */
  statusBefore?: string;
  timeoutMs: number;
  pollIntervalMs: number;
  classify: Classifier;
  /** False on cancel: send the request, do not wait. */
  wait: boolean;
  timeline: TimelineEntry[];
  onStatus?: (entry: TimelineEntry) => void;
}

/** Polls of an unchanged pre-rollback status before it is taken as the rollback's result. */
const STALE_POLLS = 3;

export async function rollBack(deps: RunContext, request: RollbackRequest): Promise<RollbackResult> {
  const { client, clock, log } = deps;
  const { deploymentId } = request;
  const deadline = clock.now() + request.timeoutMs;
  log.info(`Rolling back deployment ${deploymentId}.`);
  let answer;
  try {
    answer = await client.rollbackDeployment(deploymentId, {
      deadline,
      signal: request.wait ? deps.signal : undefined,
    });
  } catch (err) {
    const why = err instanceof ApiError ? err.message : errorMessage(err);
    return {
      id: deploymentId,
      form: 'in-place',
      succeeded: false,
      outcome: 'error',
      message: `the rollback request failed: ${why}`,
    };
  }
  const form = answer && answer.id !== deploymentId ? 'new-deployment' : 'in-place';
  const id = form === 'new-deployment' && answer ? answer.id : deploymentId;
  log.info(
    form === 'new-deployment'
      ? `Rollback started as deployment ${id}.`
      : `Rollback started on deployment ${id} itself.`,
  );
  if (!request.wait) {
    return {
      id,
      form,
      status: answer?.status,
      succeeded: false,
      outcome: 'requested',
      message: `rollback ${id} was requested; not waited for`,
    };
  }
  return followRollback(deps, request, { id, form, answer, deadline });
}

/** Follows a rollback that was sent until it is final; a cancel or a break is reported, never thrown. */
async function followRollback(
  deps: RunContext,
  request: RollbackRequest,
  sent: { id: string; form: RollbackResult['form']; answer: Deployment | undefined; deadline: number },
): Promise<RollbackResult> {
  const { id, form, answer, deadline } = sent;
  let result;
  try {
    result = await waitForFinalStatus(deps, {
      deploymentId: id,
      clawId: request.clawId,
      deadline,
      pollIntervalMs: request.pollIntervalMs,
      classify: request.classify,
      pollFirst: false,
      outcomeOf: rollbackOutcome(form, request.statusBefore),
      timeline: request.timeline,
      onStatus: request.onStatus,
    });
  } catch (err) {
    // Sent, and its id known: a cancel stops the following, never the report of what was sent.
    if (err instanceof CancelledError) {
      return {
        id,
        form,
        status: answer?.status,
        succeeded: false,
        outcome: 'requested',
        message: `the run was cancelled while waiting for rollback ${id}`,
      };
    }
    // The rollback was sent: a wait that breaks says so, and never hides that it was requested.
    return {
      id,
      form,
      status: answer?.status,
      succeeded: false,
      outcome: 'error',
      message: `rollback ${id} was requested, then following it failed: ${errorMessage(err)}`,
    };
  }
  const succeeded = result.outcome === 'succeeded';
  const status = result.status ?? answer?.status;
  const message = succeeded
    ? `rollback ${id} finished: ${status}`
    : result.outcome === 'timed-out'
      ? `rollback ${id} did not finish: ${result.note ?? 'timed out'}${status ? ` (last status ${status})` : ''}`
      : `rollback ${id} did not succeed: ${status ?? result.outcome}`;
  return { id, form, status, url: result.deployment?.url ?? answer?.url, succeeded, outcome: result.outcome, message };
}

/**
 * How a rollback's following reads a status. A new deployment is done when it succeeds; the
 * original is done when it reads rolled back.
 */
function rollbackOutcome(
  form: RollbackResult['form'],
  statusBefore: string | undefined,
): (reading: StatusClass, status: string) => WaitOutcome | undefined {
  let stalePolls = 0;
  return (reading, status) => {
    if (form === 'new-deployment') {
      if (reading === 'succeeded' || reading === 'rolled_back') return 'succeeded';
      return reading === 'failed' ? 'failed' : reading === 'paused' ? 'paused' : undefined;
    }
    if (reading === 'rolled_back') return 'succeeded';
    if (reading === 'in_progress') return undefined;
    // The original still showing the status it had before the request: the rollback may not
    // have begun. Give it a few polls before taking that status as the answer.
    if (status === statusBefore && ++stalePolls < STALE_POLLS) return undefined;
    return reading === 'paused' ? 'paused' : 'failed';
  };
}
