// A fleet rollout: several Claws in one step, in waves, under one budget. Each wave triggers its
// deployments (one write at a time, paced), follows them all with one list request per round,
// then bakes: the Claws deployed so far must stay healthy for `bake`. Too many failures, or a
// pause, halt the rollout; what this run deployed is then rolled back, latest wave first.
import type { Deployment } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { CancelledError } from '../errors.js';
import { formatDuration } from '../format.js';
import { type Share, shareOf } from '../share.js';
import { CONCURRENCY, checkClaw, mapWithConcurrency } from '../health/health.js';
import type { ReplyPattern } from '../pattern.js';
import type { Json } from '../api/shapes.js';
import { pollEvery } from '../poll.js';
import { CANCEL_ROLLBACK_MS, type CommandDeps, type Outcome, type Policy } from './deploy.js';
import { rollBack } from './rollback.js';
import { describeClass } from '../status.js';
import { deploymentOutcome } from './wait.js';

export type FleetOutcome = Exclude<Outcome, 'triggered'> | 'skipped';

export interface FleetEntry {
  clawId: string;
  /** 1-based. */
  wave: number;
  deploymentId?: string;
  status?: string;
  /** `in-progress` only while the rollout runs; every entry has a final outcome at the end. */
  outcome: FleetOutcome | 'in-progress';
  rolledBack: boolean;
  rollbackId?: string;
  durationMs?: number;
  /** Why a Claw failed when its status does not say (a refused trigger, an unhealthy bake). */
  detail?: string;
}

export interface FleetResult {
  entries: FleetEntry[];
  waves: number;
  outcome: Exclude<Outcome, 'triggered'>;
  ok: boolean;
  message: string;
  durationMs: number;
}

export interface FleetRequest {
  targets: { all: boolean; ids: string[] };
  strategy: string;
  payload: Json;
  waves: Share[];
  bakeMs: number;
  maxFailures: Share;
  probeMessage: string;
  probeExpect?: ReplyPattern;
}

/** Cumulative wave sizes as index ranges over `total` Claws; a last 100% is implied. */
export function planWaves(total: number, waves: Share[]): [start: number, end: number][] {
  const ranges: [number, number][] = [];
  let start = 0;
  for (const end of [...waves.map((w) => shareOf(w, total)), total]) {
    if (end <= start) continue;
    ranges.push([start, end]);
    start = end;
  }
  return ranges;
}

const FAILED: ReadonlySet<FleetEntry['outcome']> = new Set(['failed', 'paused', 'timed-out']);

export interface FleetTally {
  deployed: number;
  /** Failed, paused or timed out: what counts against `max-failures`. */
  failed: number;
  cancelled: number;
  skipped: number;
  rolledBack: number;
}

/** The fleet's entries counted once, for the message, the summary's headline and GitHub. */
export function tally(entries: FleetEntry[]): FleetTally {
  const count = (test: (e: FleetEntry) => boolean): number => entries.filter(test).length;
  return {
    deployed: count((e) => e.outcome === 'succeeded'),
    failed: count((e) => FAILED.has(e.outcome)),
    cancelled: count((e) => e.outcome === 'cancelled'),
    skipped: count((e) => e.outcome === 'skipped'),
    rolledBack: count((e) => e.rolledBack),
  };
}

/** An entry whose deployment is under way; `triggeredAt` times its duration. */
type Live = FleetEntry & { deploymentId: string; triggeredAt: number };

export async function rolloutFleet(deps: CommandDeps, request: FleetRequest, policy: Policy): Promise<FleetResult> {
  const { client, clock, log, signal, startedAt, deadline } = deps;
  const options = { deadline, signal };
  const ids = request.targets.all ? (await client.listClaws(options)).map((c) => c.id) : request.targets.ids;
  const plan = planWaves(ids.length, request.waves);
  const entries: FleetEntry[] = ids.map((clawId, i) => ({
    clawId,
    wave: plan.findIndex(([start, end]) => i >= start && i < end) + 1,
    outcome: 'skipped',
    rolledBack: false,
  }));
  if (entries.length === 0) {
    return {
      entries,
      waves: 0,
      outcome: 'failed',
      ok: false,
      message: 'No Claws to deploy: the workspace lists none.',
      durationMs: 0,
    };
  }
  const budget = shareOf(request.maxFailures, entries.length, 'down');
  const failures = (): number => tally(entries).failed;
  let halt: { outcome: Exclude<Outcome, 'triggered' | 'succeeded'>; reason: string } | undefined;
  const checkHalt = (): void => {
    if (halt) return;
    const paused = entries.find((e) => e.outcome === 'paused');
    if (paused) halt = { outcome: 'paused', reason: `Claw ${paused.clawId} is paused: it needs a human` };
    else if (failures() > budget) {
      halt = {
        outcome: 'failed',
        reason: `${failures()} Claw(s) failed, more than the ${budget} 'max-failures' allows`,
      };
    }
  };
  const finish = (entry: FleetEntry, outcome: FleetOutcome, at: number, triggeredAt?: number): void => {
    entry.outcome = outcome;
    if (triggeredAt !== undefined) entry.durationMs = at - triggeredAt;
  };
  log.info(`Rolling out ${entries.length} Claw(s) in ${plan.length} wave(s); up to ${budget} may fail.`);

  const live: Live[] = [];
  try {
    for (const [index, [start, end]] of plan.entries()) {
      if (halt) break;
      const wave = entries.slice(start, end);
      log.startGroup?.(`Wave ${index + 1} of ${plan.length}: ${wave.map((e) => e.clawId).join(', ')}`);
      try {
        for (const entry of wave) {
          if (halt || clock.now() >= deadline) break;
          await trigger(entry);
        }
        await followToFinal();
        if (!halt && request.bakeMs > 0) await bake(entries.filter((e) => e.outcome === 'succeeded'));
      } finally {
        log.endGroup?.();
      }
    }
  } catch (err) {
    // A cancel, or a request that met the deadline: what is in flight ends as such, and the
    // rollback policy still applies.
    const timedOut = err instanceof ApiError && err.kind === 'deadline';
    if (!(err instanceof CancelledError) && !timedOut) throw err;
    const outcome = timedOut ? 'timed-out' : 'cancelled';
    halt = { outcome, reason: timedOut ? `the deadline came first (${err.message})` : 'the run was cancelled' };
    for (const entry of live) {
      if (entry.outcome === 'in-progress') finish(entry, outcome, clock.now(), entry.triggeredAt);
    }
  }
  if (!halt && clock.now() >= deadline && entries.some((e) => e.outcome === 'skipped')) {
    halt = { outcome: 'timed-out', reason: `the rollout did not finish within ${formatDuration(policy.timeoutMs)}` };
  }

  const outcome = halt?.outcome ?? 'succeeded';
  if (policy.autoRollback && (policy.rollbackOn as string[]).includes(outcome))
    await rollBackAll(outcome === 'cancelled');
  return {
    entries,
    waves: plan.length,
    outcome,
    ok: outcome === 'succeeded',
    message: message(),
    durationMs: clock.now() - startedAt,
  };

  async function trigger(entry: FleetEntry): Promise<void> {
    let deployment: Deployment;
    try {
      deployment = await client.triggerDeployment(
        { clawId: entry.clawId, strategy: request.strategy || undefined, payload: request.payload },
        options,
      );
    } catch (err) {
      if (!(err instanceof ApiError) || err.kind === 'deadline') throw err;
      entry.outcome = 'failed';
      entry.detail = `the trigger failed: ${err.message}`;
      log.warning(`Claw ${entry.clawId}: ${entry.detail}`);
      checkHalt();
      return;
    }
    const started: Live = Object.assign(entry, {
      deploymentId: deployment.id,
      triggeredAt: clock.now(),
      status: deployment.status,
      outcome: 'in-progress' as const,
    });
    live.push(started);
    reportInFlight();
    log.info(`Triggered deployment ${deployment.id} of Claw ${entry.clawId}.`);
  }

  function reportInFlight(): void {
    deps.onFleetProgress?.(live.filter((e) => e.outcome === 'in-progress').map((e) => e.deploymentId));
  }

  /** Follows every deployment in flight to a final status: one list request per round when it can. */
  async function followToFinal(): Promise<void> {
    let useList = true;
    const poller = pollEvery(deps, policy.pollIntervalMs, deadline);
    for (;;) {
      const pending = live.filter((e) => e.outcome === 'in-progress');
      if (pending.length === 0) return;
      if (!(await poller.next())) {
        for (const entry of pending) finish(entry, 'timed-out', clock.now(), entry.triggeredAt);
        halt ??= {
          outcome: 'timed-out',
          reason: `deployments were still in progress after ${formatDuration(policy.timeoutMs)}`,
        };
        return;
      }
      const found = new Map<string, Deployment>();
      if (useList) {
        const listed = await client
          .findDeployments(
            pending.map((e) => e.deploymentId),
            options,
          )
          .catch((err: unknown) => {
            if (err instanceof ApiError && err.kind !== 'deadline') return undefined; // read them one by one
            throw err;
          });
        if (!listed || !listed.statuses) {
          useList = false;
          log.info('The deployments list shows no statuses; polling each deployment instead.');
        } else for (const [id, d] of listed.found) found.set(id, d);
      }
      for (const entry of pending) {
        if (found.has(entry.deploymentId)) continue;
        try {
          found.set(entry.deploymentId, await client.getDeployment(entry.deploymentId, options));
        } catch (err) {
          if (!(err instanceof ApiError) || err.kind === 'deadline') throw err;
          entry.detail = err.message;
          finish(entry, 'failed', clock.now(), entry.triggeredAt);
        }
      }
      for (const entry of pending) {
        const status = found.get(entry.deploymentId)?.status;
        if (status === undefined || entry.outcome !== 'in-progress') continue;
        const reading = policy.classify(status);
        if (status !== entry.status) {
          log.info(
            `[${formatDuration(clock.now() - startedAt)}] ${entry.clawId} (${entry.deploymentId}): ${status} (${describeClass(reading)})`,
          );
        }
        entry.status = status;
        const outcome = deploymentOutcome(reading);
        if (outcome) finish(entry, outcome, clock.now(), entry.triggeredAt);
      }
      reportInFlight();
      checkHalt();
    }
  }

  /** The bake: every Claw deployed so far checked at most once per poll interval, for `bake`. */
  async function bake(deployed: FleetEntry[]): Promise<void> {
    const until = Math.min(clock.now() + request.bakeMs, deadline);
    log.info(`Baking ${deployed.length} Claw(s) for ${formatDuration(request.bakeMs)}.`);
    const check = { ...request, pollIntervalMs: policy.pollIntervalMs, classify: policy.classify, deadline };
    const poller = pollEvery(deps, policy.pollIntervalMs, until);
    for (;;) {
      const results = await mapWithConcurrency(deployed, CONCURRENCY, (e) => checkClaw(deps, e.clawId, check));
      results.forEach((health, i) => {
        if (health.healthy) return;
        deployed[i].outcome = 'failed';
        deployed[i].detail = `unhealthy during the bake: ${health.detail}`;
        log.warning(`Claw ${deployed[i].clawId} is ${health.verdict} during the bake: ${health.detail}`);
      });
      checkHalt();
      if (halt) return;
      deployed = deployed.filter((e) => e.outcome === 'succeeded');
      if (deployed.length === 0 || !(await poller.next())) return;
    }
  }

  /** Every Claw this run deployed, once each, latest wave first; on cancel, requested only. */
  async function rollBackAll(cancelled: boolean): Promise<void> {
    const cancelDeadline = clock.now() + CANCEL_ROLLBACK_MS;
    const deployed = live.filter((e) => e.deploymentId);
    log.startGroup?.(`Rolling back ${deployed.length} Claw(s), latest wave first`);
    try {
      for (let wave = plan.length; wave >= 1; wave--) {
        const group = deployed.filter((e) => e.wave === wave).reverse();
        await Promise.all(
          group.map(async (entry) => {
            const timeoutMs = cancelled ? Math.max(0, cancelDeadline - clock.now()) : policy.timeoutMs;
            const result = await rollBack(
              { ...deps, signal: cancelled ? undefined : signal },
              {
                deploymentId: entry.deploymentId,
                statusBefore: entry.status,
                timeoutMs,
                pollIntervalMs: policy.pollIntervalMs,
                classify: policy.classify,
                wait: !cancelled,
                timeline: [],
              },
            ).catch((err: unknown) => {
              if (!(err instanceof CancelledError)) throw err;
              return undefined;
            });
            if (!result) return;
            entry.rolledBack = result.succeeded;
            entry.rollbackId = result.id;
            if (!result.succeeded && result.outcome !== 'requested') entry.detail = result.message;
          }),
        );
      }
    } finally {
      log.endGroup?.();
    }
  }

  function message(): string {
    const t = tally(entries);
    const parts = [`${t.deployed} of ${entries.length} Claw(s) deployed`];
    if (t.failed > 0) parts.push(`${t.failed} failed`);
    if (t.cancelled > 0) parts.push(`${t.cancelled} cancelled`);
    if (t.skipped > 0) parts.push(`${t.skipped} skipped`);
    if (t.rolledBack > 0) parts.push(`${t.rolledBack} rolled back`);
    const summary = parts.join(', ');
    const after = formatDuration(clock.now() - startedAt);
    return halt
      ? `The rollout halted (${halt.outcome}): ${halt.reason}. ${summary}, after ${after}.`
      : `The rollout succeeded: ${summary}, after ${after}.`;
  }
}
