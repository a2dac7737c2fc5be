// The health command: each Claw's verdict from its record, and optionally a chat probe.
import type { Claw } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { CancelledError, errorMessage } from '../errors.js';
import type { Classifier } from '../status.js';
import type { RunContext } from '../context.js';
import type { ReplyPattern } from '../pattern.js';
import { runProbe } from './probe.js';
import { type ChecksResult, type ChecksRunner, describeFailedChecks } from '../checks/result.js';
import { CONCURRENCY, mapWithConcurrency } from '../concurrency.js';
import { type Verdict, clawVerdict } from './verdict.js';

export interface HealthEntry {
  clawId: string;
  healthy: boolean;
  verdict: Verdict;
  /** The words read: the Claw's status and its deployment's, as the service spelled them. */
  status: string;
  /** First characters of the probe's reply, when probed. */
  reply?: string;
  latencyMs: number;
  detail: string;
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
}

const REPLY_EXCERPT = 200;

export async function checkHealth(deps: RunContext, request: HealthRequest): Promise<HealthResult> {
  const { client, log, signal, deadline } = deps;
  let claws: (Claw | string)[] = request.targets.ids;
  if (request.targets.all) {
    claws = await client.listClaws({ deadline, signal });
    log.info(`Checking ${claws.length} Claw(s) in the workspace.`);
  }

  const checkOne = (target: Claw | string): Promise<HealthEntry> =>
    checkClaw(deps, typeof target === 'string' ? target : target.id, { ...request, deadline });
  const entries = await mapWithConcurrency(claws, CONCURRENCY, checkOne);
  // Claws healthy by their status must also behave; one already unhealthy is not talked to.
  let checks: ChecksResult | undefined;
  if (request.checks) {
    checks = await request.checks(entries.filter((e) => e.healthy).map((e) => e.clawId));
    for (const entry of entries) {
      const own = checks.entries.filter((c) => c.clawId === entry.clawId);
      if (own.every((c) => c.passed)) continue;
      entry.healthy = false;
      entry.verdict = 'unhealthy';
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
        ? `All ${entries.length} Claw(s) are healthy.`
        : `${unhealthy.length} of ${entries.length} Claw(s) are not healthy: ${unhealthy.map((e) => `${e.clawId} (${e.verdict})`).join(', ')}.`);
  return { healthy, entries, checks, message };
}

/** What one check needs: the health words, the probe (optional), and the deadline. */
export interface ClawCheck {
  probeMessage: string;
  probeExpect?: ReplyPattern;
  pollIntervalMs: number;
  classify: Classifier;
  deadline: number;
}

/** One Claw's health: its record read by the health rules, then the chat probe when asked for. */
export async function checkClaw(deps: RunContext, clawId: string, check: ClawCheck): Promise<HealthEntry> {
  const { client, clock, signal } = deps;
  const { deadline } = check;
  const began = clock.now();
  const entry = (verdict: Verdict, status: string, detail: string, reply?: string): HealthEntry => ({
    clawId,
    healthy: verdict === 'healthy',
    verdict,
    status,
    reply: reply === undefined ? undefined : reply.slice(0, REPLY_EXCERPT),
    latencyMs: clock.now() - began,
    detail,
  });
  let claw: Claw;
  try {
    claw = await client.getClaw(clawId, { deadline, signal });
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    // A refused key or a missing scope says nothing of the Claw: the step cannot check at all.
    if (err instanceof ApiError && (err.kind === 'unauthorized' || err.kind === 'forbidden')) throw err;
    const verdict: Verdict = err instanceof ApiError && err.kind === 'not_found' ? 'unhealthy' : 'unknown';
    return entry(verdict, '', errorMessage(err));
  }
  const words = [claw.status, claw.deploymentStatus];
  const status = words.filter(Boolean).join(' / ');
  const { verdict, rolledBack } = clawVerdict(words, check.classify);
  const read =
    verdict === 'unknown' && !status
      ? 'no status could be read from the Claw'
      : `status ${status}${rolledBack ? ' (its deployment was rolled back: it serves the previous release)' : ''}`;
  if (verdict !== 'healthy' || !check.probeMessage) return entry(verdict, status, read);
  try {
    const probe = await runProbe(deps, {
      clawId,
      message: check.probeMessage,
      expect: check.probeExpect,
      deadline,
      pollIntervalMs: check.pollIntervalMs,
      classify: check.classify,
    });
    const detail = `${rolledBack ? `${read}; ` : ''}probe: ${probe.detail}`;
    return entry(probe.ok ? 'healthy' : 'unhealthy', status, detail, probe.reply);
  } catch (err) {
    if (err instanceof CancelledError) throw err;
    const forbidden = err instanceof ApiError && err.kind === 'forbidden' && /tasks/.test(err.message);
    const detail = forbidden
      ? `probe: the key may not read tasks (403 on GET /v1/tasks/:taskId). The spec names no scope for it; try chat:read. ${errorMessage(err)}`
      : `probe: ${errorMessage(err)}`;
    return entry('unknown', status, detail);
  }
}
