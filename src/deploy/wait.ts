// Polls one deployment until its status is final, the deadline passes, or the run is cancelled.
import { wordsOf } from '../shared/words.js';
import type { Deployment } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { RunContext } from '../api/context.js';
import { formatDuration } from '../shared/format.js';
import { pollEvery } from '../api/poll.js';
import { type DeploymentHistory, type Expectation, nextPollDelay } from './history.js';
import { type Classifier, type StatusClass, describeClass } from '../shared/status.js';

export type WaitOutcome = 'succeeded' | 'failed' | 'paused' | 'timed-out';

export interface TimelineEntry {
  /** Milliseconds since the run started. */
  atMs: number;
  deploymentId: string;
  status: string;
  reading: StatusClass;
  /** What the row is, when not this run's own deployment (another one it waited for). */
  note?: string;
}

export interface WaitRequest {
  deploymentId: string;
  /** The Claw deployed, when known (the schedule learns from its history). */
  clawId?: string;
  deadline: number;
  pollIntervalMs: number;
  classify: Classifier;
  /** Poll at once (wait command) or after one interval (just triggered). */
  pollFirst: boolean;
  /** Maps a final reading to an outcome; undefined keeps polling. Defaults to a deployment's reading. */
  outcomeOf?: (reading: StatusClass, status: string) => WaitOutcome | undefined;
  /** Appended to as statuses change; shared with the caller so a cancel keeps what was seen. */
  timeline: TimelineEntry[];
  /** Called with each newly seen status. */
  onStatus?: (entry: TimelineEntry) => void;
}

export interface WaitResult {
  outcome: WaitOutcome;
  status?: string;
  deployment?: Deployment;
  polls: number;
  /** Why it ended, when the status alone does not say (deadline, unreadable responses). */
  note?: string;
}

export function deploymentOutcome(reading: StatusClass): WaitOutcome | undefined {
  switch (reading) {
    case 'succeeded':
      return 'succeeded';
    case 'failed':
    case 'rolled_back': // someone else reverted it: this deployment did not succeed
      return 'failed';
    case 'paused':
      return 'paused';
    default:
      return undefined;
  }
}

export async function waitForFinalStatus(
  deps: RunContext & { history?: DeploymentHistory },
  request: WaitRequest,
): Promise<WaitResult> {
  const { client, clock, signal } = deps;
  const { deploymentId, deadline } = request;
  const outcomeOf = request.outcomeOf ?? deploymentOutcome;
  let polls = 0;
  let last: Deployment | undefined;
  const timedOutNote = (): string => `no final status within ${formatDuration(deadline - waitStart)}`;
  const waitStart = clock.now();

  // The schedule: from the trigger (or the deployment's creation, for a deployment found running),
  // shaped by the Claw's history once the Claw is known: the first wait is the interval whatever
  // the history says, so it is learned at the first poll.
  let since = waitStart;
  let clawId = request.clawId;
  let expectation: Expectation | undefined;
  let learned = false;
  const learn = async (): Promise<void> => {
    if (learned || !clawId || !deps.history) return;
    learned = true;
    expectation = await deps.history.expect(clawId, request.classify, request.pollIntervalMs);
  };
  const poller = pollEvery(
    deps,
    () => nextPollDelay(request.pollIntervalMs, clock.now() - since, expectation),
    deadline,
  );
  const sleepUntilNextPoll = (): Promise<boolean> => poller.next();
  // The first poll reads the recent list when the run has not yet: it is the history read, and it
  // shows this deployment's status too, so learning costs no request of its own.
  const firstPoll = async (): Promise<Deployment | undefined> => {
    const page = await deps.history?.readFresh();
    return page?.find((d) => d.id === deploymentId && d.status !== undefined);
  };

  if (!request.pollFirst && !(await sleepUntilNextPoll())) {
    return { outcome: 'timed-out', polls, note: timedOutNote() };
  }
  for (;;) {
    try {
      last =
        (polls === 0 ? await firstPoll() : undefined) ??
        (await client.getDeployment(deploymentId, { deadline, signal }));
      polls += 1;
      if (!clawId && last.clawId) {
        // Waiting on a deployment someone else started: its age counts, on our clock.
        clawId = last.clawId;
        if (last.createdAt !== undefined) since = Math.min(waitStart, client.transport.toLocalTime(last.createdAt));
      }
      // From the second poll on, the schedule follows the Claw's history (the first wait is the interval anyway).
      await learn();
    } catch (err) {
      const ran = ranOutOfTime(err, () => clock.now() >= deadline - 1, timedOutNote);
      if (ran) return { outcome: 'timed-out', status: last?.status, deployment: last, polls, note: ran };
      throw err;
    }
    const status = last.status;
    const reading = noteStatus(deps, request, status, polls);
    const outcome = status === undefined ? undefined : outcomeOf(reading, status);
    if (outcome) return { outcome, status, deployment: last, polls };
    if (!(await sleepUntilNextPoll())) {
      return { outcome: 'timed-out', status, deployment: last, polls, note: timedOutNote() };
    }
  }
}

/**
 * A read that failed for good, when it is the deadline it ran into: why the wait timed out. Retries
 * already happened below; past the deadline, the wait has simply run out of time.
 */
function ranOutOfTime(err: unknown, pastDeadline: () => boolean, timedOutNote: () => string): string | undefined {
  if (err instanceof ApiError && err.transient && pastDeadline())
    return `${timedOutNote()} (last error: ${err.message})`;
  if (err instanceof ApiError && err.kind === 'deadline') return err.message;
  return undefined;
}

/** Reads a polled status: a new one goes on the timeline and in the log; none at all is warned of once. */
function noteStatus(deps: RunContext, request: WaitRequest, status: string | undefined, polls: number): StatusClass {
  const { clock, log, startedAt } = deps;
  const { deploymentId, timeline } = request;
  const reading = request.classify(status);
  const previous = timeline.at(-1);
  if (status !== undefined && (previous?.status !== status || previous.deploymentId !== deploymentId)) {
    const entry: TimelineEntry = { atMs: clock.now() - startedAt, deploymentId, status, reading };
    timeline.push(entry);
    log.info(`[${formatDuration(entry.atMs)}] deployment ${deploymentId}: ${status} (${describeClass(reading)})`);
    request.onStatus?.(entry);
  } else if (status === undefined && polls === 1) {
    log.warning(
      `Deployment ${deploymentId} has no status or state field; still polling. Add its words to ${wordsOf(deps).input('success-statuses')} or ${wordsOf(deps).input('failure-statuses')} if they are unusual.`,
    );
  }
  return reading;
}
