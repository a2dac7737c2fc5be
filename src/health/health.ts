// The health command: each Claw's verdict from its record, and optionally a chat probe.
import type { Claw } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { CancelledError, errorMessage } from '../shared/errors.js';
import { formatDuration } from '../shared/format.js';
import { ID_EXPECTED, isValidId } from '../shared/identifiers.js';
import type { Classifier } from '../shared/status.js';
import type { RunContext } from '../api/context.js';
import type { ReplyPattern } from '../shared/pattern.js';
import { runProbe } from './probe.js';
import { type ChecksResult, type ChecksRunner, describeFailedChecks, verdictOf } from '../checks/result.js';
import { CONCURRENCY, mapWithConcurrency } from '../shared/concurrency.js';
import { type Verdict, clawVerdict } from './verdict.js';

/** Why a Claw is `unknown`: what stood between the run and an answer. */
export type UnknownCause = 'service' | 'rate-limited' | 'deadline' | 'judge' | 'unreadable';

export interface HealthEntry {
  clawId: string;
  healthy: boolean;
  verdict: Verdict;
  /** The words read: the Claw's status and its deployment's, as the service spelled them. */
  status: string;
  /** First characters of the probe's reply, when probed. */
  reply?: string;
  /** The probe's reply time (from the message on the wire), when it replied; never the status read's. */
  latencyMs?: number;
  detail: string;
  /** Its current deployment, as the Claw's record names it. */
  deploymentId?: string;
  /** What fails, for an unhealthy Claw: its status, its probe, or checks (by name). */
  failure?: { kind: 'down' | 'probe' | 'checks'; checks?: string[] };
  /** Why it is unknown, for an unknown Claw. */
  cause?: UnknownCause;
}

export interface HealthResult {
  healthy: boolean;
  entries: HealthEntry[];
  /** The conversation checks, when there is a checks file: a Claw that does not pass is unhealthy. */
  checks?: ChecksResult;
  message: string;
}

export interface HealthRequest {
  targets: { all: boolean; ids: string[] };
  probeMessage: string;
  probeExpect?: ReplyPattern;
  pollIntervalMs: number;
  classify: Classifier;
  /** The conversation checks, when there is a checks file (the probe is then one of them). */
  checks?: ChecksRunner;
  /** A failed probe is tried once more this much later, before it counts. */
  probeRetryMs?: number;
}

const REPLY_EXCERPT = 200;

export async function checkHealth(deps: RunContext, request: HealthRequest): Promise<HealthResult> {
  const { client, log, signal, deadline } = deps;
  let claws: (Claw | string)[] = request.targets.ids;
  if (request.targets.all) {
    // One Claw the action cannot address (made by another tool) is skipped, not the whole run.
    const unusable: string[] = [];
    claws = await client.listClaws({ deadline, signal, unusable });
    if (unusable.length) {
      log.warning(
        `Skipped ${unusable.length} Claw(s) the service listed with an id this action cannot use: ${unusable
          .slice(0, 10)
          .map((id) => JSON.stringify(id))
          .join(', ')}${unusable.length > 10 ? ', …' : ''} (expected ${ID_EXPECTED}).`,
      );
    }
    log.info(`Checking ${claws.length} Claw(s) in the workspace.`);
  }

  const missing = new Set<string>();
  const checkOne = (target: Claw | string): Promise<HealthEntry> =>
    checkClaw(deps, typeof target === 'string' ? target : target.id, { ...request, deadline, missing });
  const entries = await mapWithConcurrency(claws, CONCURRENCY, checkOne);
  // Every Claw asked for missing at once is more likely a wrong address (a gateway answering each
  // unknown path with the service's own error body) than a fleet gone: the list of Claws, asked
  // once, says which. Missing too, it throws the address's error: no incident, nothing kept.
  if (!request.targets.all && entries.length > 0 && missing.size === entries.length)
    await client.listClaws({ deadline, signal });
  // Claws healthy by their status must also behave; one already unhealthy is not talked to.
  let checks: ChecksResult | undefined;
  if (request.checks) {
    checks = await request.checks(
      entries.filter((e) => e.healthy).map((e) => e.clawId),
      deadline,
    );
    // A cancel during the checks says nothing of the Claws: the run ends as cancelled, counting nothing.
    if (checks.cancelled) throw new CancelledError();
    for (const entry of entries) {
      const own = checks.entries.filter((c) => c.clawId === entry.clawId);
      entry.latencyMs ??= medianOf(own.flatMap((c) => (c.latencyMs === undefined ? [] : [c.latencyMs])));
      if (own.every((c) => c.passed)) continue;
      // A check that failed is the Claw's fault; one that could not be judged (the judge or the
      // chat unavailable) says nothing of it: the Claw is unknown, which opens no incident.
      const failed = own.filter((c) => verdictOf(c) === 'failed');
      entry.healthy = false;
      entry.verdict = failed.length ? 'unhealthy' : 'unknown';
      if (failed.length) entry.failure = { kind: 'checks', checks: [...new Set(failed.map((c) => c.check))].sort() };
      else entry.cause = 'judge';
      entry.detail = `${entry.detail}; checks did not pass: ${describeFailedChecks({ passed: false, entries: own })}`;
    }
  }
  for (const e of entries) log.info(`${e.healthy ? '✅' : '❌'} ${e.clawId}: ${e.verdict} (${e.detail})`);
  const unhealthy = entries.filter((e) => !e.healthy);
  const healthy = unhealthy.length === 0 && entries.length > 0;
  const cancelled = checks?.cancelled ? 'The run was cancelled during the checks. ' : '';
  const message =
    cancelled +
    (entries.length === 0
      ? 'No Claws to check: the workspace lists none.'
      : healthy
        ? entries.length === 1
          ? 'The Claw is healthy.'
          : `All ${entries.length} Claws are healthy.`
        : `${entries.length === 1 ? 'The Claw is' : `${unhealthy.length} of ${entries.length} Claws ${unhealthy.length === 1 ? 'is' : 'are'}`} not healthy: ${unhealthy.map((e) => `${e.clawId} (${e.verdict})`).join(', ')}.`);
  return { healthy, entries, checks, message };
}

/** The middle value (the lower of the two middle ones), or undefined for none. */
function medianOf(values: number[]): number | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : undefined;
}

/** What one check needs: the health words, the probe (optional), and the deadline. */
export interface ClawCheck {
  probeMessage: string;
  probeExpect?: ReplyPattern;
  pollIntervalMs: number;
  classify: Classifier;
  deadline: number;
  /** A failed probe is tried once more this much later, before it counts. */
  probeRetryMs?: number;
  /** Where a Claw the service answers 404 for is named. */
  missing?: Set<string>;
}

/** Why a call failed, when the failure says nothing of the Claw. */
export function unknownCause(err: unknown): UnknownCause {
  if (!(err instanceof ApiError)) return 'unreadable';
  if (err.status === 429) return 'rate-limited';
  if (err.kind === 'deadline')
    return err.failing ? 'service' : /\(429\)/.test(err.message) ? 'rate-limited' : 'deadline';
  return err.kind === 'unreadable' ? 'unreadable' : 'service';
}

/** One Claw's health: its record read by the health rules, then the chat probe when asked for. */
export async function checkClaw(deps: RunContext, clawId: string, check: ClawCheck): Promise<HealthEntry> {
  const { client, clock, signal } = deps;
  const { deadline } = check;
  const known: { deploymentId?: string } = {};
  const entry = (
    verdict: Verdict,
    status: string,
    detail: string,
    extra: Pick<HealthEntry, 'reply' | 'latencyMs' | 'failure' | 'cause'> = {},
  ): HealthEntry => ({
    clawId,
    healthy: verdict === 'healthy',
    verdict,
    status,
    reply: extra.reply === undefined ? undefined : extra.reply.slice(0, REPLY_EXCERPT),
    ...(extra.latencyMs !== undefined ? { latencyMs: extra.latencyMs } : {}),
    detail,
    ...(known.deploymentId ? { deploymentId: known.deploymentId } : {}),
    ...(extra.failure ? { failure: extra.failure } : {}),
    ...(extra.cause ? { cause: extra.cause } : {}),
  });
  let claw: Claw;
  try {
    claw = await client.getClaw(clawId, { deadline, signal });
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    // A refused key, a missing scope or a wrong address says nothing of the Claw: the step cannot check at all.
    if (err instanceof ApiError && ['unauthorized', 'forbidden', 'unreachable', 'address'].includes(err.kind))
      throw err;
    if (err instanceof ApiError && err.kind === 'not_found') {
      check.missing?.add(clawId);
      return entry('unhealthy', '', errorMessage(err), { failure: { kind: 'down' } });
    }
    return entry('unknown', '', errorMessage(err), { cause: unknownCause(err) });
  }
  if (claw.deploymentId && isValidId(claw.deploymentId)) known.deploymentId = claw.deploymentId;
  const words = [claw.status, claw.deploymentStatus];
  const status = words.filter(Boolean).join(' / ');
  const { verdict, rolledBack } = clawVerdict(words, check.classify);
  const read =
    verdict === 'unknown' && !status
      ? 'no status could be read from the Claw'
      : `status ${status}${rolledBack ? ' (its deployment was rolled back: it serves the previous release)' : ''}`;
  if (verdict === 'unhealthy') return entry(verdict, status, read, { failure: { kind: 'down' } });
  if (verdict === 'unknown') return entry(verdict, status, read, { cause: 'unreadable' });
  if (!check.probeMessage) return entry(verdict, status, read);
  let probed = await probeOnce(deps, clawId, check);
  if (!probed.ok && !probed.cause && check.probeRetryMs !== undefined && clock.now() + check.probeRetryMs < deadline) {
    // One failed request is not an incident: try once more, a short while later, before it counts.
    deps.log.info(
      `${clawId}: the probe failed (${probed.detail}); trying once more in ${formatDuration(check.probeRetryMs)}.`,
    );
    await clock.sleep(check.probeRetryMs, signal);
    probed = await probeOnce(deps, clawId, check);
  }
  const detail = `${rolledBack ? `${read}; ` : ''}probe: ${probed.detail}`;
  const replied = { reply: probed.reply, latencyMs: probed.latencyMs };
  if (probed.ok) return entry('healthy', status, detail, replied);
  if (probed.cause) return entry('unknown', status, detail, { ...replied, cause: probed.cause });
  return entry('unhealthy', status, detail, { ...replied, failure: { kind: 'probe' } });
}

/** One probe: its verdict, or why it says nothing of the Claw (the service, the deadline). */
async function probeOnce(
  deps: RunContext,
  clawId: string,
  check: ClawCheck,
): Promise<{ ok: boolean; detail: string; reply?: string; latencyMs?: number; cause?: UnknownCause }> {
  try {
    const probe = await runProbe(deps, {
      clawId,
      message: check.probeMessage,
      expect: check.probeExpect,
      deadline: check.deadline,
      pollIntervalMs: check.pollIntervalMs,
      classify: check.classify,
    });
    // A reply still awaited when the run's own time is up is the run's timeout, not the Claw's fault.
    if (!probe.ok && probe.reply === undefined && deps.clock.now() >= check.deadline) {
      return { ...probe, cause: 'deadline' };
    }
    return probe;
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    const forbidden = err instanceof ApiError && err.kind === 'forbidden' && /tasks/.test(err.message);
    const detail = forbidden
      ? `the key may not read tasks (403 on GET /v1/tasks/:taskId). The spec names no scope for it; try chat:read. ${errorMessage(err)}`
      : errorMessage(err);
    return { ok: false, detail, cause: forbidden ? 'unreadable' : unknownCause(err) };
  }
}
