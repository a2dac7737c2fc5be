// A fleet rollout: several Claws in one step, in waves, under one budget. Each wave triggers its
// deployments (one write at a time, paced), follows them all with one list request per round,
// then bakes: the Claws deployed so far must stay healthy for `bake`. Too many failures, or a
// pause, halt the rollout; what this run deployed is then rolled back, latest wave first.
import { wordsOf } from '../shared/words.js';
import type { Deployment } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { Logger } from '../shared/clock.js';
import { CancelledError, errorMessage } from '../shared/errors.js';
import { formatDuration } from '../shared/format.js';
import { type Share, shareOf } from '../shared/share.js';
import { CONCURRENCY, mapWithConcurrency } from '../shared/concurrency.js';
import { checkClaw } from '../health/health.js';
import type { ReplyPattern } from '../shared/pattern.js';
import type { Json } from '../api/shapes.js';
import { pollEvery } from '../api/poll.js';
import { type CheckEntry, type ChecksResult, describeFailedChecks } from '../checks/result.js';
import { type ClawComparison, describeComparison, entriesOf, gateFails, worstBehaviour } from '../checks/comparison.js';
import { triggerPastConflicts } from './conflict.js';
import { type Expectation, nextPollDelay } from './history.js';
import { CANCEL_ROLLBACK_MS, type CommandDeps, type Outcome, type Policy, rollsBack } from './deploy.js';
import { rollBack } from './rollback.js';
import { describeClass } from '../shared/status.js';
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
  /** The conversation checks of every wave, when there is a checks file. */
  checks?: ChecksResult;
  /** `baseline: before`: each checked Claw's comparison of its checks before and after its deployment. */
  comparisons?: ClawComparison[];
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

const FAILED: ReadonlySet<FleetEntry['outcome']> = new Set(['failed', 'paused', 'timed-out', 'error']);

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

/** Why the rollout stopped before its last wave. */
interface Halt {
  outcome: Exclude<Outcome, 'triggered' | 'succeeded'>;
  reason: string;
}

export async function rolloutFleet(deps: CommandDeps, request: FleetRequest, policy: Policy): Promise<FleetResult> {
  const { client, deadline, signal } = deps;
  const ids = request.targets.all
    ? (await client.listClaws({ deadline, signal })).map((c) => c.id)
    : request.targets.ids;
  if (ids.length === 0) {
    return {
      entries: [],
      waves: 0,
      outcome: 'failed',
      ok: false,
      message: 'No Claws to deploy: the workspace lists none.',
      durationMs: 0,
    };
  }
  return new FleetRollout(deps, request, policy, ids).run();
}

/**
 * One rollout. The state its phases share is named here once: `entries` (the report, one per
 * Claw), `live` (what this run triggered, in order: what a halt rolls back) and `halt`. Each
 * phase is one method: trigger, followToFinal, bake, checkHalt, rollBackAll.
 */
class FleetRollout {
  private readonly plan: [start: number, end: number][];
  private readonly entries: FleetEntry[];
  private readonly live: Live[] = [];
  private halt?: Halt;
  /** What each Claw's history says of its deployments' durations: the rounds' schedule (learned after the first round). */
  private readonly expectations = new Map<string, Expectation | undefined>();
  /** Every wave's check results, for the report. */
  private readonly checks: CheckEntry[] = [];
  /** `baseline: before`: the wave's checks before its trigger, then each Claw's comparison. */
  private baseline?: ChecksResult;
  private readonly comparisons: ClawComparison[] = [];
  /** How many Claws may fail before the rollout halts. */
  private readonly budget: number;
  private readonly log: Logger;

  constructor(
    private readonly deps: CommandDeps,
    private readonly request: FleetRequest,
    private readonly policy: Policy,
    ids: string[],
  ) {
    this.log = deps.log;
    this.plan = planWaves(ids.length, request.waves);
    this.entries = ids.map((clawId, i) => ({
      clawId,
      wave: this.plan.findIndex(([start, end]) => i >= start && i < end) + 1,
      outcome: 'skipped',
      rolledBack: false,
    }));
    this.budget = shareOf(request.maxFailures, ids.length, 'down');
  }

  private get options() {
    return { deadline: this.deps.deadline, signal: this.deps.signal };
  }

  async run(): Promise<FleetResult> {
    const { clock, deadline, startedAt } = this.deps;
    const { entries, plan, policy } = this;
    this.log.info(`Rolling out ${entries.length} Claw(s) in ${plan.length} wave(s); up to ${this.budget} may fail.`);
    try {
      for (const [index, [start, end]] of plan.entries()) {
        if (this.halt) break;
        await this.runWave(index + 1, entries.slice(start, end));
      }
    } catch (err) {
      // A cancel, a request that met the deadline, or anything else that broke once deployments
      // were triggered: what is in flight ends as such, and the rollback policy still applies (an
      // error as a failure), so a crash never leaves a wave live and unchecked.
      const timedOut = err instanceof ApiError && err.kind === 'deadline';
      const outcome = timedOut ? 'timed-out' : err instanceof CancelledError ? 'cancelled' : 'error';
      const reason = {
        'timed-out': `the deadline came first (${errorMessage(err)})`,
        cancelled: 'the run was cancelled',
        error: `the rollout stopped on ${err instanceof ApiError ? 'an error' : 'an unexpected error'}: ${errorMessage(err)}`,
      }[outcome];
      this.halt = { outcome, reason };
      for (const entry of this.inFlight()) this.finish(entry, outcome);
      if (outcome === 'error' && this.live.length === 0) throw err;
    }
    if (!this.halt && clock.now() >= deadline && entries.some((e) => e.outcome === 'skipped')) {
      this.halt = {
        outcome: 'timed-out',
        reason: `the rollout did not finish within ${formatDuration(policy.timeoutMs)}`,
      };
    }
    const outcome = this.halt?.outcome ?? 'succeeded';
    if (rollsBack(policy, outcome)) await this.rollBackAll(outcome === 'cancelled');
    return {
      entries,
      checks: this.deps.checks ? { passed: this.checks.every((c) => c.passed), entries: this.checks } : undefined,
      ...(this.deps.behaviour ? { comparisons: this.comparisons } : {}),
      waves: plan.length,
      outcome,
      ok: outcome === 'succeeded',
      message: this.message(),
      durationMs: clock.now() - startedAt,
    };
  }

  /** A wave: trigger its Claws one at a time, follow them to a final status, then bake. */
  private async runWave(number: number, wave: FleetEntry[]): Promise<void> {
    this.log.startGroup?.(`Wave ${number} of ${this.plan.length}: ${wave.map((e) => e.clawId).join(', ')}`);
    try {
      // `baseline: before`: the wave's live Claws checked, every attempt, before any of them changes.
      if (this.deps.behaviour && this.deps.checks) {
        this.baseline = await this.deps.checks(
          wave.map((e) => e.clawId),
          undefined,
          { comparing: true },
        );
        if (this.baseline.cancelled) throw new CancelledError();
      }
      for (const entry of wave) {
        if (this.halt || this.deps.clock.now() >= this.deps.deadline) break;
        await this.trigger(entry);
      }
      await this.followToFinal();
      if (!this.halt) await this.gate(wave);
      if (!this.halt && this.request.bakeMs > 0) await this.bake(this.entries.filter((e) => e.outcome === 'succeeded'));
    } finally {
      this.log.endGroup?.();
    }
  }

  private inFlight(): Live[] {
    return this.live.filter((e) => e.outcome === 'in-progress');
  }

  private finish(entry: Live, outcome: FleetOutcome): void {
    entry.outcome = outcome;
    entry.durationMs = this.deps.clock.now() - entry.triggeredAt;
  }

  /** A Claw that could not be deployed at all (its trigger refused): failed, with the reason. */
  private refuse(entry: FleetEntry, outcome: 'failed' | 'timed-out', detail: string): void {
    entry.outcome = outcome;
    entry.detail = detail;
    this.log.warning(`Claw ${entry.clawId}: ${detail}`);
    this.checkHalt();
  }

  /** Triggers one Claw's deployment; a Claw already deploying is met by `on-conflict`. */
  private async trigger(entry: FleetEntry): Promise<void> {
    const { request, policy } = this;
    let result;
    try {
      result = await triggerPastConflicts(
        this.deps,
        { clawId: entry.clawId, strategy: request.strategy || undefined, payload: request.payload },
        {
          onConflict: policy.onConflict,
          pollIntervalMs: policy.pollIntervalMs,
          classify: policy.classify,
          timeline: [],
        },
      );
    } catch (err) {
      if (!(err instanceof ApiError) || err.kind === 'deadline') throw err;
      return this.refuse(entry, 'failed', `the trigger failed: ${err.message}`);
    }
    if (result.kind === 'blocked') {
      return this.refuse(entry, result.outcome === 'error' ? 'failed' : 'timed-out', result.message);
    }
    const deployment = result.deployment;
    this.live.push(
      Object.assign(entry, {
        deploymentId: deployment.id,
        triggeredAt: this.deps.clock.now(),
        status: deployment.status,
        outcome: 'in-progress' as const,
      }),
    );
    this.reportInFlight();
    this.log.info(`Triggered deployment ${deployment.id} of Claw ${entry.clawId}.`);
  }

  /** What the history says of each Claw in flight, once: the first round's list read is the history. */
  private async learnExpectations(): Promise<void> {
    const { history } = this.deps;
    if (!history) return;
    for (const entry of this.inFlight()) {
      if (this.expectations.has(entry.clawId)) continue;
      this.expectations.set(
        entry.clawId,
        await history.expect(entry.clawId, this.policy.classify, this.policy.pollIntervalMs),
      );
    }
  }

  /**
   * The wait before the next round: the schedule of the deployment in flight expected to end
   * first (its trigger plus its Claw's shortest recent duration). A Claw without history has no
   * expected end: while one is in flight, rounds keep to the interval.
   */
  private nextRoundDelay(): number {
    const now = this.deps.clock.now();
    let first: { end: number; delay: number } | undefined;
    for (const entry of this.inFlight()) {
      const expectation = this.expectations.get(entry.clawId);
      if (!expectation) return this.policy.pollIntervalMs;
      const end = entry.triggeredAt + expectation.shortestMs;
      if (!first || end < first.end) {
        first = { end, delay: nextPollDelay(this.policy.pollIntervalMs, now - entry.triggeredAt, expectation) };
      }
    }
    return first?.delay ?? this.policy.pollIntervalMs;
  }

  private reportInFlight(): void {
    this.deps.onFleetProgress?.(this.inFlight().map((e) => e.deploymentId));
  }

  /** Follows every deployment in flight to a final status: one list request per round when it can. */
  private async followToFinal(): Promise<void> {
    const { client, clock, startedAt, deadline } = this.deps;
    const { policy } = this;
    let useList = true;
    const poller = pollEvery(this.deps, () => this.nextRoundDelay(), deadline);
    for (;;) {
      const pending = this.inFlight();
      if (pending.length === 0) return;
      if (!(await poller.next())) {
        for (const entry of pending) this.finish(entry, 'timed-out');
        this.halt ??= {
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
            this.options,
          )
          .catch((err: unknown) => {
            if (err instanceof ApiError && err.kind !== 'deadline') return undefined; // read them one by one
            throw err;
          });
        if (listed) this.deps.history?.offer(listed.firstPage);
        if (!listed || !listed.statuses) {
          useList = false;
          this.log.info('The deployments list shows no statuses; polling each deployment instead.');
        } else for (const [id, d] of listed.found) found.set(id, d);
      }
      await this.learnExpectations();
      for (const entry of pending) {
        if (found.has(entry.deploymentId)) continue;
        try {
          found.set(entry.deploymentId, await client.getDeployment(entry.deploymentId, this.options));
        } catch (err) {
          if (!(err instanceof ApiError) || err.kind === 'deadline') throw err;
          entry.detail = err.message;
          this.finish(entry, 'failed');
        }
      }
      for (const entry of pending) {
        const status = found.get(entry.deploymentId)?.status;
        if (status === undefined || entry.outcome !== 'in-progress') continue;
        const reading = policy.classify(status);
        if (status !== entry.status) {
          this.log.info(
            `[${formatDuration(clock.now() - startedAt)}] ${entry.clawId} (${entry.deploymentId}): ${status} (${describeClass(reading)})`,
          );
        }
        entry.status = status;
        const outcome = deploymentOutcome(reading);
        if (outcome) this.finish(entry, outcome);
      }
      this.reportInFlight();
      this.checkHalt();
    }
  }

  /**
   * The behaviour gate: the wave's deployed Claws run their checks. One that does not pass has
   * failed (against `max-failures`); its new release is live and misbehaving, so when the rollback
   * rules cover failures it is rolled back at once, even while the rollout goes on.
   */
  private async gate(wave: FleetEntry[]): Promise<void> {
    const run = this.deps.checks;
    const deployed = wave.filter((e): e is Live => e.outcome === 'succeeded' && e.deploymentId !== undefined);
    if (!run || deployed.length === 0) return;
    const { behaviour } = this.deps;
    const baseline = behaviour ? this.baseline : undefined;
    const result = await run(
      deployed.map((e) => e.clawId),
      undefined,
      baseline ? { comparing: true } : undefined,
    );
    this.checks.push(...result.entries);
    // A cancel during the checks: what they found is kept, and the rollout ends as cancelled.
    if (result.cancelled) throw new CancelledError();
    const { policy } = this;
    const rollBackNow = policy.autoRollback && (policy.rollbackOn as string[]).includes('failed');
    const waveComparisons: ClawComparison[] = [];
    for (const entry of deployed) {
      const own = { passed: true, entries: entriesOf(result, entry.clawId) };
      own.passed = own.entries.every((c) => c.passed);
      let fails = !own.passed;
      let why = () => `its checks did not pass: ${describeFailedChecks(own)}`;
      if (behaviour && baseline) {
        const compared = behaviour.compare(
          { label: 'before', entries: entriesOf(baseline, entry.clawId) },
          { label: 'after', entries: own.entries },
        );
        waveComparisons.push({ clawId: entry.clawId, compared });
        fails = gateFails(behaviour.failOn, own.passed, compared);
        if (behaviour.failOn !== 'failure') why = () => `it behaves worse than before: ${describeComparison(compared)}`;
      }
      if (!fails) continue;
      entry.outcome = 'failed';
      entry.detail = why();
      this.log.warning(`Claw ${entry.clawId}: ${entry.detail}`);
      if (rollBackNow) await this.rollBackOne(entry, false);
    }
    if (waveComparisons.length) {
      this.comparisons.push(...waveComparisons);
      // The wave's verdict: the worst of its Claws'.
      const worst = worstBehaviour(waveComparisons.map((c) => c.compared.behaviour));
      this.log.info(`The wave's behaviour compared with before it: ${worst || 'nothing compared'}.`);
    }
    this.checkHalt();
  }

  /** The bake: every Claw deployed so far checked at most once per poll interval, for `bake`. */
  private async bake(deployed: FleetEntry[]): Promise<void> {
    const { clock, deadline } = this.deps;
    const { request, policy } = this;
    const until = Math.min(clock.now() + request.bakeMs, deadline);
    this.log.info(`Baking ${deployed.length} Claw(s) for ${formatDuration(request.bakeMs)}.`);
    const check = { ...request, pollIntervalMs: policy.pollIntervalMs, classify: policy.classify, deadline };
    const poller = pollEvery(this.deps, policy.pollIntervalMs, until);
    for (;;) {
      const results = await mapWithConcurrency(deployed, CONCURRENCY, (e) => checkClaw(this.deps, e.clawId, check));
      results.forEach((health, i) => {
        if (health.healthy) return;
        deployed[i].outcome = 'failed';
        deployed[i].detail = `unhealthy during the bake: ${health.detail}`;
        this.log.warning(`Claw ${deployed[i].clawId} is ${health.verdict} during the bake: ${health.detail}`);
      });
      this.checkHalt();
      if (this.halt) return;
      deployed = deployed.filter((e) => e.outcome === 'succeeded');
      if (deployed.length === 0 || !(await poller.next())) return;
    }
  }

  /** The halt rule: a paused Claw, or more failures than `max-failures` allows. */
  private checkHalt(): void {
    if (this.halt) return;
    const paused = this.entries.find((e) => e.outcome === 'paused');
    const failed = tally(this.entries).failed;
    if (paused) this.halt = { outcome: 'paused', reason: `Claw ${paused.clawId} is paused: it needs a human` };
    else if (failed > this.budget) {
      this.halt = {
        outcome: 'failed',
        reason: `${failed} Claw(s) failed, more than the ${this.budget} ${wordsOf(this.deps).input('max-failures')} allows`,
      };
    }
  }

  /** Every Claw this run deployed, once each, latest wave first; on cancel, requested only. */
  private async rollBackAll(cancelled: boolean): Promise<void> {
    const cancelDeadline = this.deps.clock.now() + CANCEL_ROLLBACK_MS;
    // A Claw its checks already had rolled back is not rolled back twice.
    const toRollBack = this.live.filter((e) => e.rollbackId === undefined);
    this.log.startGroup?.(`Rolling back ${toRollBack.length} Claw(s), latest wave first`);
    try {
      for (let wave = this.plan.length; wave >= 1; wave--) {
        const group = toRollBack.filter((e) => e.wave === wave).reverse();
        await Promise.all(group.map((entry) => this.rollBackOne(entry, cancelled, cancelDeadline)));
      }
    } finally {
      this.log.endGroup?.();
    }
  }

  /** One Claw's rollback, followed as for one Claw (on cancel: requested within the grace, not followed). */
  private async rollBackOne(entry: Live, cancelled: boolean, cancelDeadline = Infinity): Promise<void> {
    const { clock, signal } = this.deps;
    const { policy } = this;
    const timeoutMs = cancelled ? Math.max(0, cancelDeadline - clock.now()) : policy.timeoutMs;
    const result = await rollBack(
      { ...this.deps, signal: cancelled ? undefined : signal },
      {
        deploymentId: entry.deploymentId,
        clawId: entry.clawId,
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
  }

  private message(): string {
    const t = tally(this.entries);
    const parts = [`${t.deployed} of ${this.entries.length} Claw(s) deployed`];
    if (t.failed > 0) {
      // Named, so the one line a person reads (stdout, the summary) says which to look at.
      const failed = this.entries.filter((e) => FAILED.has(e.outcome)).map((e) => e.clawId);
      const names =
        failed.length > 10 ? `${failed.slice(0, 10).join(', ')} and ${failed.length - 10} more` : failed.join(', ');
      parts.push(`${t.failed} failed (${names})`);
    }
    if (t.cancelled > 0) parts.push(`${t.cancelled} cancelled`);
    if (t.skipped > 0) parts.push(`${t.skipped} skipped`);
    if (t.rolledBack > 0) parts.push(`${t.rolledBack} rolled back`);
    const summary = parts.join(', ');
    const after = formatDuration(this.deps.clock.now() - this.deps.startedAt);
    return this.halt
      ? `The rollout halted (${this.halt.outcome}): ${this.halt.reason}. ${summary}, after ${after}.`
      : `The rollout succeeded: ${summary}, after ${after}.`;
  }
}
