// A pull request opened or pushed to: for each Claw it changes, find its preview (by the comment's
// state, never by assuming the id asked for was honoured) or create it from production's config
// with the manifest merged in; update it with a plan against the preview itself; deploy and wait;
// run the checks on the preview and on production side by side; keep one comment. A pull request
// that closes while this runs gets what this run created removed, and nothing else written.
import { ApiError } from '../api/errors.js';
import type { Json } from '../api/shapes.js';
import type { CheckSuite } from '../checks/check.js';
import { deployClaw } from '../deploy/deploy.js';
import { LiveSequential } from '../checks/sequential-gate.js';
import { comparisonCost } from '../checks/cost.js';
import { CancelledError, errorMessage } from '../shared/errors.js';
import { isValidId } from '../shared/identifiers.js';
import { applyPlan } from '../manifest/apply.js';
import type { ClawSpec, Manifest } from '../manifest/manifest.js';
import { makePlan } from '../manifest/plan.js';
import { previewComment } from './preview-report.js';
import { compareChecks } from './compare.js';
import { compareRuns, comparisonFails, suitePower, worstBehaviour } from '../checks/comparison.js';
import { type PreviewDeps, type PreviewRequest, guardedId } from './request.js';
import { removePreview } from './cleanup.js';
import { previewConfig } from './config.js';
import { type PreviewEntry, type PreviewResult, emptyResult } from './result.js';
import {
  type PreviewRecord,
  type PreviewState,
  commentWithState,
  decodeState,
  encodeState,
  previewId,
  previewMarker,
  previewOf,
  registerProblem,
  skippedWarning,
} from './state.js';

export async function up(deps: PreviewDeps, request: PreviewRequest, pr: number): Promise<PreviewResult> {
  const { host } = deps;
  const { manifest } = request;
  const declared = manifest.claws.map((c) => c.id);
  const marker = previewMarker(manifest.file);
  const result = emptyResult('up', request.event.headSha, pr);
  if ((await host.pullRequest(pr)).state === 'closed') {
    return { ...result, message: `Pull request #${pr} is already closed: no preview.` };
  }
  let state: PreviewState | undefined;
  let held: PreviewRecord[];
  try {
    ({ state, held } = await readState(deps, request, pr, marker, declared));
  } catch (err) {
    // The comment is the register of this pull request's previews: without it, a new preview
    // would hide the one already there, which nothing would ever delete.
    result.ok = false;
    result.message = `Could not read the preview comment of #${pr} (${errorMessage(err)}): nothing was created or updated, since this pull request's previews are known only from its sealed state. Run the job again.`;
    return result;
  }
  const known = state?.previews ?? [];

  const targets = await clawsToPreview(deps, request);
  if (targets.length === 0) {
    result.message = `Pull request #${pr} changes no Claw of ${manifest.file}: no preview.`;
    await writeComment(deps, request, result, registerOf(result, known), held);
    return result;
  }

  const { allowed, capped, why } = await withinCaps(deps, request, pr, targets, known, held);
  const cappedEntries = capped.map((spec) => ({ ...emptyEntry(spec.id), outcome: 'capped', notes: [why] }));
  if (allowed.length === 0) {
    result.entries = cappedEntries;
    result.message = `No preview for pull request #${pr}: ${why}. Close or merge other pull requests, or raise max-previews.`;
    result.notices.push(result.message);
    result.failStep = false;
    await writeComment(deps, request, result, registerOf(result, known), held);
    return result;
  }
  if (capped.length > 0) {
    result.notices.push(
      `No preview for ${capped.map((spec) => spec.id).join(', ')} on pull request #${pr}: ${why}. Close or merge other pull requests, or raise max-previews.`,
    );
  }

  for (const spec of allowed) {
    // A push racing the close: look again before each Claw is created or deployed.
    if ((await host.pullRequest(pr)).state === 'closed') return closedDuringRun(deps, request, result, known, held);
    result.entries.push(await upClaw(deps, request, pr, spec, known, held));
  }
  result.entries.push(...cappedEntries);

  if (deps.runChecks && request.suite) await checkBesideProduction(deps, deps.runChecks, request.suite, result);
  if ((await host.pullRequest(pr)).state === 'closed') return closedDuringRun(deps, request, result, known, held);

  result.regressions = result.entries.reduce((n, e) => n + e.regressions, 0);
  result.ok = passes(request.failOn, result);
  const previews = result.entries.map((e) => `${e.claw} → ${e.previewId ?? '(none)'} (${e.outcome})`).join(', ');
  const regressions = result.regressions ? `; ${result.regressions} metric(s) regressed against production` : '';
  result.message = `Previews for pull request #${pr}: ${previews}${regressions}.`;
  await writeComment(deps, request, result, registerOf(result, known), held);
  return result;
}

/**
 * The checks on each live preview and its production Claw side by side, both asked in alternating
 * rounds at the same time and looked at after each round (the sequential rule a deploy's baseline
 * uses: a pair decided early is asked no more once every pair is): the comparison's evidence, kept
 * on each entry. What it may cost is said before the first request.
 */
async function checkBesideProduction(
  deps: PreviewDeps,
  runChecks: NonNullable<PreviewDeps['runChecks']>,
  suite: CheckSuite,
  result: PreviewResult,
): Promise<void> {
  const live = result.entries.filter((e) => e.outcome === 'succeeded' && e.previewId);
  if (live.length === 0) return;
  const { log, pacer } = deps.ctx;
  for (const entry of live) {
    const cost = comparisonCost(suite, suitePower(suite, entry.claw), {
      sides: 2,
      limit: pacer?.reading().limit,
      clawId: entry.claw,
    });
    log.info(`Comparing preview ${entry.previewId} with ${entry.claw}: ${cost.line}.`);
  }
  const sequential = new LiveSequential(
    {
      compare: (b, c, o) => compareRuns(b, c, suite, o),
      ...(suite.tolerance ? { tolerance: suite.tolerance } : {}),
    },
    live.map((e) => ({
      baseline: { clawId: e.claw, label: 'production' },
      candidate: { clawId: e.previewId!, label: 'preview' },
    })),
    log,
  );
  const checks = await runChecks(
    suiteForPreviews(suite, live),
    live.flatMap((e) => [e.claw, e.previewId!]),
    // select-best and max-score compare a production Claw with its own preview only.
    live.map((e) => [e.claw, e.previewId!]),
    { comparing: true, rounds: sequential.rounds },
  );
  // A cancel during the checks: nothing is compared or commented on half a run.
  if (checks.cancelled) throw new CancelledError();
  result.checks = checks;
  for (const [i, entry] of live.entries()) {
    entry.rows = compareChecks(checks, entry.claw, entry.previewId!);
    // A flaky check that behaves the same on both sides is no regression: only a metric the
    // comparison calls `regressed` counts, never one check passing on one side and not the other.
    entry.comparison = sequential.verdict(i, checks.entries);
    entry.regressions = entry.comparison.metrics.filter((m) => m.verdict === 'regressed').length;
    entry.checksPassed = entry.rows.every((r) => r.preview?.passed === true);
  }
}

/**
 * Whether the step passes: every preview up (a cap never fails it: it was said in a notice), and
 * the checks as `fail-on` reads them.
 */
function passes(failOn: PreviewRequest['failOn'], result: PreviewResult): boolean {
  const { entries } = result;
  const failed = entries.filter((e) => e.outcome !== 'succeeded' && e.outcome !== 'capped');
  const checksFailed = entries.some((e) => e.checksPassed === false);
  return (
    failed.length === 0 &&
    (failOn === 'never' ||
      (failOn === 'regression' && result.regressions === 0) ||
      (failOn === 'inconclusive' &&
        !comparisonFails(worstBehaviour(entries.map((e) => e.comparison?.behaviour ?? '')), 'inconclusive')) ||
      (failOn === 'failure' && !checksFailed))
  );
}

async function readState(
  deps: PreviewDeps,
  request: PreviewRequest,
  pr: number,
  marker: string,
  declared: string[],
): Promise<{ state?: PreviewState; held: PreviewRecord[] }> {
  const body = await deps.host.readComment(pr, marker);
  if (!body) return { held: [] };
  const read = decodeState(body, { pr, declared }, request.seal);
  if (read.problem) deps.ctx.log.warning(`The preview comment's hidden state is ignored: ${read.problem}.`);
  const skipped = skippedWarning(read, pr);
  if (skipped) deps.ctx.log.warning(skipped);
  return { state: read.state, held: read.held ?? [] };
}

/**
 * The caps, on every push: the previews running in the workspace (other pull requests' by their
 * names, this one's by its register) plus those this push would create stay within
 * `max-previews`, and the register within what reads back whole. Claws past a cap get no preview,
 * in the manifest's order; `why` says which cap.
 */
async function withinCaps(
  deps: PreviewDeps,
  request: PreviewRequest,
  pr: number,
  targets: ClawSpec[],
  known: PreviewRecord[],
  held: PreviewRecord[],
): Promise<{ allowed: ClawSpec[]; capped: ClawSpec[]; why: string }> {
  const { ctx } = deps;
  const declared = request.manifest.claws.map((c) => c.id);
  const listed = new Set((await ctx.client.listClaws({ deadline: ctx.deadline, signal: ctx.signal })).map((c) => c.id));
  const register = [...known, ...held];
  const ours = new Set(register.map((r) => r.id));
  const others = [...listed].filter((id) => !ours.has(id) && (previewOf(id, declared)?.pr ?? pr) !== pr).length;
  const running = register.filter((r) => listed.has(r.id)).length;
  const live = (spec: ClawSpec) => known.some((r) => r.claw === spec.id && listed.has(r.id));
  const blocked = (spec: ClawSpec) => held.some((r) => r.claw === spec.id);
  let room = request.maxPreviews - others - running;
  // The longest id this run asks for, and a GitHub Deployment: the register of the worst case.
  const records = [...register];
  const allowed: ClawSpec[] = [];
  const capped: ClawSpec[] = [];
  let why = '';
  for (const spec of targets) {
    if (live(spec) || blocked(spec)) {
      allowed.push(spec);
      continue;
    }
    const next = [
      ...records,
      { claw: spec.id, id: `${previewId(spec.id, pr)}-3`, githubDeployment: Number.MAX_SAFE_INTEGER },
    ];
    const full = registerProblem({ pr, head: request.event.headSha, previews: next });
    if (room <= 0 || full) {
      capped.push(spec);
      why ||= full
        ? `${full}: no preview is created that the register could not name`
        : `${others} preview Claw(s) of other pull requests${running ? ` and ${running} of this one` : ''} are running and 'max-previews' is ${request.maxPreviews}`;
      continue;
    }
    room--;
    records.push(next.at(-1)!);
    allowed.push(spec);
  }
  return { allowed, capped, why };
}

/** The Claws whose plan against production has operations, or every Claw with `preview-claws: all`. */
async function clawsToPreview(deps: PreviewDeps, request: PreviewRequest): Promise<ClawSpec[]> {
  const { manifest } = request;
  if (request.previewClaws === 'all') return manifest.claws;
  const changed: ClawSpec[] = [];
  for (const spec of manifest.claws) {
    const plan = await makePlan(deps.ctx, single(manifest, spec));
    if (plan.changes > 0 || plan.blocked.length > 0) changed.push(spec);
  }
  return changed;
}

/** A manifest of one Claw (and none of the team), for a plan of that Claw alone. */
function single(manifest: Manifest, spec: ClawSpec): Manifest {
  const prune = new Set([...manifest.prune].filter((p) => p === 'skills'));
  return { ...manifest, claws: [spec], members: undefined, prune };
}

function emptyEntry(claw: string): PreviewEntry {
  return { claw, outcome: 'error', regressions: 0, rows: [], notes: [], created: false };
}

async function upClaw(
  deps: PreviewDeps,
  request: PreviewRequest,
  pr: number,
  spec: ClawSpec,
  known: PreviewRecord[],
  held: PreviewRecord[],
): Promise<PreviewEntry> {
  const { ctx } = deps;
  const { manifest } = request;
  const options = { deadline: ctx.deadline, signal: ctx.signal };
  const entry = emptyEntry(spec.id);
  const record = known.find((r) => r.claw === spec.id);
  const declaredPreview = held.find((r) => r.claw === spec.id);
  if (!record && declaredPreview) {
    // Its preview is a Claw the manifest now declares: never written to, and no second one made.
    entry.notes.push(
      `its preview ${declaredPreview.id} is declared by ${manifest.file} as a Claw of its own: not updated, and no other preview is made while it is`,
    );
    ctx.log.warning(`Preview of ${spec.id}: ${entry.notes[0]}.`);
    return entry;
  }
  try {
    const id =
      record && (await exists(deps, record.id))
        ? await updatePreview(deps, manifest, spec, record.id)
        : await createRegistered(deps, request, pr, spec, entry, known, held);
    entry.previewId = id;
    const deployed = await deployClaw(
      { ...ctx, checks: undefined, onProgress: undefined },
      { clawId: guardedId(manifest, id), strategy: request.strategy, payload: request.payload, wait: true },
      { ...request.policy, autoRollback: false },
    );
    entry.deploymentId = deployed.deploymentId;
    entry.outcome = deployed.outcome ?? 'error';
    entry.url = (await ctx.client.getClaw(id, options).catch(() => undefined))?.url ?? deployed.url;
    if (request.environment) await showOnGithub(deps, request.environment, pr, entry, record);
  } catch (err) {
    if (err instanceof ApiError && (err.kind === 'unauthorized' || err.kind === 'forbidden')) throw err;
    if ((err as Error).name === 'CancelledError') throw err;
    entry.outcome = 'error';
    entry.notes.push(errorMessage(err));
    ctx.log.warning(`Preview of ${spec.id}: ${errorMessage(err)}`);
  }
  return entry;
}

/** Later pushes: only what changed since, as a plan against the preview itself. */
async function updatePreview(deps: PreviewDeps, manifest: Manifest, spec: ClawSpec, id: string): Promise<string> {
  const { ctx } = deps;
  const plan = await makePlan(ctx, single(manifest, { ...spec, id, create: false }));
  const applied = await applyPlan(ctx, plan, { rewriteSecrets: false });
  if (applied.failed) throw new Error(`updating preview ${id} stopped: ${applied.failed.message}`);
  ctx.log.info(`Preview ${id} of ${spec.id}: ${plan.changes} change(s) since the last push.`);
  return id;
}

/**
 * A new preview, registered in the sealed state before anything else happens to it: a run cut
 * short still leaves it named. One that cannot be registered is removed at once.
 */
async function createRegistered(
  deps: PreviewDeps,
  request: PreviewRequest,
  pr: number,
  spec: ClawSpec,
  entry: PreviewEntry,
  known: PreviewRecord[],
  held: PreviewRecord[],
): Promise<string> {
  const id = await createPreview(deps, request, pr, spec, entry, known);
  entry.created = true;
  known.push({ claw: spec.id, id });
  const registering = { ...emptyResult('up', request.event.headSha, pr), message: `Creating previews…` };
  await writeComment(deps, request, registering, known, held);
  if (registering.comment !== 'written') {
    // Not in a sealed state, it would never be found again, nor deleted: take it away now.
    known.pop();
    await removePreview(deps, request, { claw: spec.id, id });
    throw new Error(
      `removed preview ${id} at once: it could not be recorded in the pull request's comment (see the warning above), and a preview no sealed state names is never cleaned up`,
    );
  }
  return id;
}

/** The preview as a GitHub Deployment of `environment` (one per preview, kept across pushes), with its outcome. */
async function showOnGithub(
  deps: PreviewDeps,
  environment: string,
  pr: number,
  entry: PreviewEntry,
  record: PreviewRecord | undefined,
): Promise<void> {
  const { host } = deps;
  const id = entry.previewId!;
  entry.githubDeployment =
    record?.githubDeployment ??
    (await host.createDeployment(`${environment}-${entry.claw}-pr-${pr}`, `Preview of ${entry.claw} for #${pr}`, {
      claw: entry.claw,
      preview: id,
    }));
  if (entry.githubDeployment === undefined) return;
  const state =
    entry.outcome === 'succeeded'
      ? 'success'
      : entry.outcome === 'failed' || entry.outcome === 'paused'
        ? 'failure'
        : 'error';
  await host.deploymentStatus(entry.githubDeployment, state, `Preview ${id}: ${entry.outcome}`, entry.url);
}

async function exists(deps: PreviewDeps, id: string): Promise<boolean> {
  try {
    await deps.ctx.client.getClaw(id, { deadline: deps.ctx.deadline, signal: deps.ctx.signal });
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.kind === 'not_found') return false;
    throw err;
  }
}

/**
 * Creates the preview under the id asked for, or the next one when a Claw is in the way. A 409 is
 * this pull request's preview only when a sealed state names it (then it is adopted); otherwise
 * the Claw in the way is someone else's and is never touched: the next id is asked for, and after
 * a few the run stops naming the Claws in the way.
 */
async function createUnderFreeId(
  deps: PreviewDeps,
  request: PreviewRequest,
  pr: number,
  claw: string,
  config: Json,
  known: PreviewRecord[],
): Promise<string> {
  const { ctx } = deps;
  const options = { deadline: ctx.deadline, signal: ctx.signal };
  const inTheWay: string[] = [];
  for (const asked of [previewId(claw, pr), `${previewId(claw, pr)}-2`, `${previewId(claw, pr)}-3`]) {
    guardedId(request.manifest, asked);
    try {
      const id = (await ctx.client.createClaw({ ...(config as Record<string, Json>), id: asked }, options)).id;
      if (id !== asked) ctx.log.info(`The service named the preview of ${claw} ${id} (asked for ${asked}).`);
      return id;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
      if (known.some((r) => r.id === asked)) return asked;
      ctx.log.warning(
        `A Claw ${asked} already exists and no sealed state of pull request #${pr} names it: it is not this action's preview and is left alone.`,
      );
      inTheWay.push(asked);
    }
  }
  throw new Error(
    `could not create a preview of ${claw}: ${inTheWay.join(', ')} already exist and are not this action's previews (no sealed state names them); delete or rename them`,
  );
}

/** A new Claw: production's config (or none, for a Claw the manifest creates) with the declaration merged in. */
async function createPreview(
  deps: PreviewDeps,
  request: PreviewRequest,
  pr: number,
  spec: ClawSpec,
  entry: PreviewEntry,
  known: PreviewRecord[],
): Promise<string> {
  const { ctx } = deps;
  const options = { deadline: ctx.deadline, signal: ctx.signal };
  let production: Json = {};
  try {
    production = (await ctx.client.getClaw(spec.id, options)).raw;
  } catch (err) {
    if (!(err instanceof ApiError && err.kind === 'not_found' && spec.create)) throw err;
  }
  const { config, unset } = previewConfig(production, spec.config);
  if (unset.length) {
    entry.notes.push(
      `runs without ${unset.join(', ')}: the variable(s) are not set in this run (as on a pull request from a fork)`,
    );
  }
  const id = await createUnderFreeId(deps, request, pr, spec.id, config, known);
  if (!isValidId(id)) throw new Error(`the service returned an unusable id for the preview of ${spec.id}`);
  guardedId(request.manifest, id);
  for (const skill of spec.skills ?? []) await ctx.client.installSkill(id, skill, {}, options);
  ctx.log.info(
    `Created preview ${id} of ${spec.id}${spec.skills?.length ? ` with ${spec.skills.length} skill(s)` : ''}.`,
  );
  return id;
}

/** The same checks for a preview as for its production Claw: a check limited to a Claw covers its preview too. */
function suiteForPreviews(suite: CheckSuite, entries: PreviewEntry[]): CheckSuite {
  return {
    ...suite,
    checks: suite.checks.map((check) =>
      check.claws
        ? {
            ...check,
            claws: [...check.claws, ...entries.filter((e) => check.claws!.includes(e.claw)).map((e) => e.previewId!)],
          }
        : check,
    ),
  };
}

/** The pull request closed while this ran: remove what this run created, write nothing else. */
async function closedDuringRun(
  deps: PreviewDeps,
  request: PreviewRequest,
  result: PreviewResult,
  known: PreviewRecord[],
  held: PreviewRecord[],
): Promise<PreviewResult> {
  const created = result.entries.filter((e) => e.created && e.previewId);
  for (const entry of created) {
    const record = { claw: entry.claw, id: entry.previewId!, githubDeployment: entry.githubDeployment };
    if (await removePreview(deps, request, record)) {
      result.removed.push({ id: record.id, why: 'created by this run, which the close overtook' });
    }
  }
  // The register named what this run created: it now names only what is left for the close to remove.
  if (created.length > 0) {
    const left = registerOf(result, known).filter((r) => !result.removed.some((x) => x.id === r.id));
    await writeComment(deps, request, { ...result, mode: 'down' }, left, held);
  }
  const removed = result.removed.length
    ? `; removed what this run created: ${result.removed.map((r) => r.id).join(', ')}`
    : '';
  return {
    ...result,
    ok: true,
    failStep: false,
    message: `Pull request #${result.pr} closed during the run: stopped${removed}.`,
  };
}

/** The register after this run: its previews, and those of earlier pushes this push did not touch. */
function registerOf(result: PreviewResult, known: PreviewRecord[]): PreviewRecord[] {
  const records: PreviewRecord[] = result.entries
    .filter((e) => e.previewId)
    .map((e) => ({
      claw: e.claw,
      id: e.previewId!,
      ...(e.githubDeployment ? { githubDeployment: e.githubDeployment } : {}),
    }));
  for (const record of known) if (!records.some((r) => r.claw === record.claw)) records.push(record);
  return records;
}

/**
 * Writes the comment: what it shows, and the sealed register of `records` and `held`. A register
 * that would not read back whole is not written (one warning): the caller removes what it names.
 */
async function writeComment(
  deps: PreviewDeps,
  request: PreviewRequest,
  result: PreviewResult,
  records: PreviewRecord[],
  held: PreviewRecord[],
): Promise<void> {
  const previews = [...records, ...held.filter((h) => !records.some((r) => r.id === h.id))];
  const state: PreviewState = { pr: result.pr!, head: result.headSha, previews };
  const full = registerProblem(state);
  if (full) {
    deps.ctx.log.warning(`The preview comment of #${result.pr} was not written: ${full}.`);
    result.comment = 'refused';
    return;
  }
  const sealed = encodeState(state, request.seal);
  const shown = previewComment(request.manifest.file, result, deps.ctx.clock.now(), request.redact, sealed.length);
  const body = commentWithState(request.manifest.file, shown, sealed);
  const written = await deps.host.writeComment(result.pr!, previewMarker(request.manifest.file), body);
  result.comment = written ? 'written' : 'refused';
}
