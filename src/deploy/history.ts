// Polling from the Claw's own history: how long its recent successful deployments took says when
// the answer is likely, so polls can thin out while it is far and keep to `poll-interval` near it.
// One page of `GET /v1/deployments` per run serves every Claw; without history, the plain schedule.
import type { AmsClient, Deployment } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { readTime } from '../api/shapes.js';
import type { Logger } from '../shared/clock.js';
import { formatDuration } from '../shared/format.js';
import type { Classifier } from '../shared/status.js';

/** What a Claw's history says of its deployments' durations. */
export interface Expectation {
  /** How many recent successful deployments it is drawn from. */
  count: number;
  shortestMs: number;
  longestMs: number;
}

/** Fewer successful deployments than this say too little to thin out polls. */
export const MIN_HISTORY = 3;
/** The newest this many are used: a Claw's deployments change over time. */
const MAX_HISTORY = 20;
/** The most the one history read may take before polling goes on without it. */
export const HISTORY_READ_TIMEOUT_MS = 5000;
/** A duration longer than a day is a misread field, not a deployment. */
const MAX_DURATION_MS = 24 * 3_600_000;

const START_FIELDS = ['createdAt', 'created_at', 'startedAt', 'started_at'];
const END_FIELDS = ['finishedAt', 'finished_at', 'completedAt', 'completed_at', 'endedAt', 'ended_at'];
const UPDATED_FIELDS = ['updatedAt', 'updated_at'];

/**
 * How long a final deployment took by the service's own times (its start to its end, or to its
 * last update), when it carries them and they make sense.
 */
export function finalDuration(d: Deployment): number | undefined {
  const start = readTime(d.raw, START_FIELDS);
  // `updatedAt` of a final deployment is when it became final.
  const end = readTime(d.raw, END_FIELDS) ?? readTime(d.raw, UPDATED_FIELDS);
  if (start === undefined || end === undefined) return undefined;
  const ms = end - start;
  return ms > 0 && ms <= MAX_DURATION_MS ? ms : undefined;
}

/**
 * Durations (ms) of `clawId`'s deployments in the list that reached a success status and carry a
 * start and an end time, newest first as the list gives them. Other Claws', failed or unfinished
 * deployments, and times that are missing or make no sense, are left out.
 */
export function successfulDurations(deployments: Deployment[], clawId: string, classify: Classifier): number[] {
  const durations: number[] = [];
  for (const d of deployments) {
    if (d.clawId !== clawId || d.status === undefined || classify(d.status) !== 'succeeded') continue;
    const ms = finalDuration(d);
    if (ms !== undefined) durations.push(ms);
    if (durations.length === MAX_HISTORY) break;
  }
  return durations;
}

/**
 * The wait before the next poll, `elapsedMs` after the trigger. Without an expectation, the
 * interval. With one: growing with the time elapsed (at most a third of it, never below the
 * interval) until a little before the shortest recent duration; from there on, the interval. So a
 * usual deployment is seen within the interval, an early failure within the interval plus a third
 * of the time elapsed, a long one within the interval. The pacer may still stretch any of these.
 */
export function nextPollDelay(intervalMs: number, elapsedMs: number, expect?: Expectation): number {
  // The wait is ≤ elapsed / 3 before `closeFrom`, and lands on `closeFrom` rather than past it.
  if (!expect) return intervalMs;
  const closeFrom = closeFromMs(intervalMs, expect);
  if (elapsedMs >= closeFrom) return intervalMs;
  return Math.max(intervalMs, Math.min(elapsedMs / 3, closeFrom - elapsedMs));
}

/**
 * When polling returns to the interval: one interval before the shortest recent duration, so a
 * deployment that takes the shortest is seen within the interval. One that ends sooner is an early
 * end, seen within the interval plus a third of the time elapsed, as any early failure is.
 */
function closeFromMs(intervalMs: number, expect: Expectation): number {
  return expect.shortestMs - intervalMs;
}

/** One read of the recent list per run, and what it says of each Claw, said once per Claw in the log. */
export class DeploymentHistory {
  private page?: Promise<{ deployments: Deployment[] } | { why: string }>;
  private readonly told = new Set<string>();

  /** The one read of the run: one attempt of at most HISTORY_READ_TIMEOUT_MS. */
  private load(): Promise<{ deployments: Deployment[] } | { why: string }> {
    this.page ??= this.client.recentDeployments({ ...this.options, timeoutMs: HISTORY_READ_TIMEOUT_MS }).then(
      (deployments) => ({ deployments }),
      (err: unknown) => {
        // The history only saves requests: any failure to read it (a 403, the deadline) costs nothing more.
        if (err instanceof ApiError) return { why: `the list could not be read (${err.message})` };
        throw err;
      },
    );
    return this.page;
  }

  constructor(
    private readonly client: AmsClient,
    private readonly log: Logger,
    private readonly options: { deadline: number; signal?: AbortSignal },
  ) {}

  /**
   * The recent list, read now, when no read of this run has happened yet; undefined otherwise (or
   * when it cannot be read). A wait's first poll uses it: a fresh page shows the deployment's status.
   */
  async readFresh(): Promise<Deployment[] | undefined> {
    if (this.page) return undefined;
    const page = await this.load();
    return 'why' in page ? undefined : page.deployments;
  }

  /** A page of the recent list read for another purpose (a fleet's round): it serves as the history, for no request of its own. */
  offer(deployments: Deployment[]): void {
    this.page ??= Promise.resolve({ deployments });
  }

  /** What the Claw's history says, or undefined (said why in the log) when it says too little. */
  async expect(clawId: string, classify: Classifier, intervalMs: number): Promise<Expectation | undefined> {
    const page = await this.load();
    const durations = 'why' in page ? [] : successfulDurations(page.deployments, clawId, classify);
    const expectation =
      durations.length >= MIN_HISTORY
        ? { count: durations.length, shortestMs: Math.min(...durations), longestMs: Math.max(...durations) }
        : undefined;
    if (!this.told.has(clawId)) {
      this.told.add(clawId);
      const every = `polling every ${formatDuration(intervalMs)}`;
      if (expectation) {
        const from = Math.max(0, closeFromMs(intervalMs, expectation));
        this.log.info(
          `The last ${expectation.count} deployments of ${clawId} took ${range(expectation)}: ${every} from ${formatDuration(from)}, less often before.`,
        );
      } else {
        const why =
          'why' in page
            ? page.why
            : `${durations.length} recent successful deployment(s) with start and end times, fewer than ${MIN_HISTORY}`;
        this.log.debug(`No deployment history for ${clawId} (${why}): ${every}.`);
      }
    }
    return expectation;
  }
}

function range(e: Expectation): string {
  const [low, high] = [formatDuration(e.shortestMs), formatDuration(e.longestMs)];
  return low === high ? low : `${low}–${high}`;
}
