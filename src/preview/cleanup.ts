// Removing previews: every preview of a pull request when it closes, and on a schedule, previews
// of closed pull requests and of ones idle past `preview-ttl`. Only what a sealed state names is
// deleted (a name that fits the pattern is never proof); a read that fails deletes nothing (a
// failure is never read as "no open pull requests").
import { ApiError } from '../api/errors.js';
import { errorMessage } from '../shared/errors.js';
import { formatDuration } from '../shared/format.js';
import { previewComment } from './preview-report.js';
import { type PreviewDeps, type PreviewRequest, guardedId } from './request.js';
import { type PreviewResult, emptyResult } from './result.js';
import { NoSuchPullRequest, type PullRequestInfo } from './host.js';
import {
  type PreviewRecord,
  commentWithState,
  decodeState,
  encodeState,
  previewMarker,
  previewOf,
  skippedWarning,
} from './state.js';

/** The most pull requests one sweep reads (each costs GitHub calls from the repository's quota). */
export const MAX_SWEEP_PULLS = 100;

/**
 * The previews of one pull request: those the sealed state of its comment names, and nothing
 * else. A Claw whose name fits `<claw>-pr-<n>` but no sealed state names is someone else's.
 */
async function previewsOf(
  deps: PreviewDeps,
  request: PreviewRequest,
  pr: number,
): Promise<{ records: PreviewRecord[]; held: PreviewRecord[] }> {
  const declared = request.manifest.claws.map((c) => c.id);
  const body = await deps.host.readComment(pr, previewMarker(request.manifest.file));
  if (!body) return { records: [], held: [] };
  const read = decodeState(body, { pr, declared }, request.seal);
  if (read.problem) deps.ctx.log.warning(`The preview comment's hidden state of #${pr} is ignored: ${read.problem}.`);
  const skipped = skippedWarning(read, pr);
  if (skipped) deps.ctx.log.warning(skipped);
  return { records: read.state?.previews ?? [], held: read.held ?? [] };
}

/** Deletes a preview (a 404 is done) and marks its GitHub Deployment inactive; false when it could not. */
export async function removePreview(
  deps: PreviewDeps,
  request: PreviewRequest,
  record: PreviewRecord,
): Promise<boolean> {
  const { ctx } = deps;
  try {
    await ctx.client.deleteClaw(guardedId(request.manifest, record.id), { deadline: ctx.deadline, signal: ctx.signal });
    ctx.log.info(`Deleted preview ${record.id} of ${record.claw}.`);
  } catch (err) {
    if (!(err instanceof ApiError && err.kind === 'not_found')) {
      ctx.log.warning(`Could not delete preview ${record.id}: ${errorMessage(err)}`);
      return false;
    }
    ctx.log.info(`Preview ${record.id} of ${record.claw} was already gone (404).`);
  }
  if (record.githubDeployment !== undefined) {
    await deps.host.deploymentStatus(record.githubDeployment, 'inactive', `Preview ${record.id} removed`);
  }
  return true;
}

/** A pull request closed (merged or not): its previews deleted, its comment rewritten. */
export async function cleanUp(deps: PreviewDeps, request: PreviewRequest, pr: number): Promise<PreviewResult> {
  const { ctx } = deps;
  const result = emptyResult('down', request.event.headSha, pr);
  const { records, held } = await previewsOf(deps, request, pr);
  const failed: string[] = [];
  for (const record of records) {
    if (await removePreview(deps, request, record))
      result.removed.push({ id: record.id, why: `pull request #${pr} closed` });
    else failed.push(record.id);
  }
  result.ok = failed.length === 0;
  const left = held.length ? `; left ${held.map((r) => r.id).join(', ')} alone: the manifest declares it` : '';
  result.message =
    records.length === 0
      ? `Pull request #${pr} closed: it had no previews${left}.`
      : `Pull request #${pr} closed: removed ${result.removed.length} preview(s)${result.removed.length ? ` (${result.removed.map((r) => r.id).join(', ')})` : ''}${failed.length ? `; could not remove ${failed.join(', ')}` : ''}${left}.`;
  if (records.length > 0) {
    // What the manifest now declares stays named: a later close (with another manifest) removes it.
    const sealed = encodeState({ pr, head: result.headSha, previews: held }, request.seal);
    const shown = previewComment(request.manifest.file, result, ctx.clock.now(), request.redact, sealed.length);
    const body = commentWithState(request.manifest.file, shown, sealed);
    result.comment = (await deps.host.writeComment(pr, previewMarker(request.manifest.file), body))
      ? 'written'
      : 'refused';
  }
  return result;
}

/** A pull request a sweep looks at: its state, and the previews its sealed state names. */
interface SweepPlan {
  pr: number;
  info: PullRequestInfo;
  records: PreviewRecord[];
}

/**
 * Reads the pull requests the listed Claws' names hint at, and their sealed states; throws when one
 * cannot be read. A name that merely fits costs GitHub calls: at most MAX_SWEEP_PULLS pull requests
 * a run, the oldest first, and none past the step's timeout; the rest wait for the next sweep.
 */
async function readPullRequests(
  deps: PreviewDeps,
  request: PreviewRequest,
  byPr: Map<number, string[]>,
  result: PreviewResult,
): Promise<SweepPlan[]> {
  const { ctx } = deps;
  const plans: SweepPlan[] = [];
  const numbers = [...byPr.keys()].sort((a, b) => a - b);
  for (const [i, pr] of numbers.entries()) {
    const late = ctx.deadline !== undefined && ctx.clock.now() >= ctx.deadline;
    if (i >= MAX_SWEEP_PULLS || late) {
      const why = late
        ? "not looked at: the step's timeout came first"
        : `not looked at: a sweep reads at most ${MAX_SWEEP_PULLS} pull requests, the oldest first`;
      for (const id of numbers.slice(i).flatMap((n) => byPr.get(n) ?? [])) result.kept.push({ id, why });
      break;
    }
    let info: PullRequestInfo;
    try {
      info = await deps.host.pullRequest(pr);
    } catch (err) {
      if (!(err instanceof NoSuchPullRequest)) throw err;
      // No pull request, no comment: no sealed state can name these Claws.
      for (const id of byPr.get(pr) ?? []) result.kept.push({ id, why: `not a preview: ${err.message}` });
      continue;
    }
    plans.push({ pr, info, records: (await previewsOf(deps, request, pr)).records });
  }
  return plans;
}

/**
 * The sweep: previews of this manifest's Claws whose pull request is closed, or open but not
 * updated for `preview-ttl`. A listed Claw whose name hints at a pull request only says which
 * pull request to look at; what is deleted is what that pull request's sealed state names. Every
 * pull request is read before anything is deleted; one that cannot be read deletes nothing.
 */
export async function sweep(deps: PreviewDeps, request: PreviewRequest): Promise<PreviewResult> {
  const { ctx } = deps;
  const result = emptyResult('sweep', request.event.headSha);
  const declared = request.manifest.claws.map((c) => c.id);
  let listed: string[];
  try {
    listed = (await ctx.client.listClaws({ deadline: ctx.deadline, signal: ctx.signal })).map((c) => c.id);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // Nothing is deleted without the whole list: say so, and why, in the one result.
    result.ok = false;
    result.message = `The sweep deleted nothing: the list of Claws could not be read (${errorMessage(err)}).`;
    return result;
  }
  const byPr = new Map<number, string[]>();
  for (const id of listed) {
    const of = previewOf(id, declared);
    if (of) byPr.set(of.pr, [...(byPr.get(of.pr) ?? []), id]);
  }
  // Read everything first: a failure here must not turn into "no open pull requests".
  let plans: SweepPlan[];
  try {
    plans = await readPullRequests(deps, request, byPr, result);
  } catch (err) {
    result.ok = false;
    result.kept = [];
    const kept = [...byPr.values()].flat();
    for (const id of kept) result.kept.push({ id, why: 'kept: the sweep could not read every pull request' });
    result.message = `The sweep deleted nothing: a pull request or its comment could not be read (${errorMessage(err)}). Kept ${kept.length} Claw(s): ${kept.join(', ') || 'none'}.`;
    return result;
  }
  const now = ctx.clock.now();
  for (const { pr, info, records } of plans) {
    for (const id of byPr.get(pr) ?? []) {
      if (!records.some((r) => r.id === id)) {
        result.kept.push({ id, why: `no sealed state of pull request #${pr} names it: not this action's preview` });
      }
    }
    const idle = now - info.updatedAt;
    const reason =
      info.state === 'closed'
        ? `pull request #${pr} is ${info.merged ? 'merged' : 'closed'}`
        : idle > request.ttlMs
          ? `pull request #${pr} has not been updated for ${formatDuration(idle)} (preview-ttl ${formatDuration(request.ttlMs)})`
          : undefined;
    for (const record of records) {
      if (!reason) {
        result.kept.push({ id: record.id, why: `pull request #${pr} is open, updated ${formatDuration(idle)} ago` });
      } else if (await removePreview(deps, request, record)) {
        result.removed.push({ id: record.id, why: reason });
      } else {
        result.kept.push({ id: record.id, why: `could not delete it (${reason})` });
      }
    }
  }
  const deleted = result.removed.map((r) => r.id).join(', ');
  result.message = `Sweep: deleted ${result.removed.length} preview(s)${deleted ? ` (${deleted})` : ''}; kept ${result.kept.length}.`;
  return result;
}
