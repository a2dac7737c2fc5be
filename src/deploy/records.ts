// What a run's deployments leave on the history branch: one record per deployment this run made
// or rolled back (a single deploy, each Claw of a fleet, the rollback command), from the results
// the commands already return. Pure: the run's facts in, the records out; commands/deploy.ts writes
// them (health/deployment-log.ts). A deployment never triggered, or one the run did not wait for,
// has no outcome yet and no record; `wait` does not know the Claw and records nothing.
import type { Compared } from '../checks/comparison.js';
import type { ClawComparison } from '../checks/comparison.js';
import { isValidId } from '../shared/identifiers.js';
import {
  type DeploymentOutcome,
  type DeploymentRecord,
  type PassRateFigures,
  type RunFacts,
  readDeploymentRecord,
  deploymentRecordJson,
} from '../health/deployment-records.js';
import type { DeployResult } from './deploy.js';
import type { FleetEntry, FleetResult } from './fleet.js';

/** The record's outcome for the run's: paused and error are failures; triggered has none yet. */
function outcomeOf(outcome: string | undefined): DeploymentOutcome | undefined {
  if (outcome === 'succeeded' || outcome === 'failed' || outcome === 'timed-out' || outcome === 'cancelled')
    return outcome;
  if (outcome === 'paused' || outcome === 'error') return 'failed';
  return undefined;
}

/** The suite's pass rate before and after, from a comparison, when both sides measured one. */
export function passRateOf(compared: Compared): PassRateFigures | undefined {
  const suite = compared.metrics.find((m) => m.check === '*' && m.metric === 'pass-rate');
  if (!suite || suite.baseline.value === null || suite.candidate.value === null) return undefined;
  return {
    before: suite.baseline.value,
    beforeN: suite.baseline.n,
    after: suite.candidate.value,
    afterN: suite.candidate.n,
    ...(suite.low !== null ? { low: suite.low } : {}),
    ...(suite.high !== null ? { high: suite.high } : {}),
  };
}

/**
 * The record as it will read back, or undefined: a fact the reader would refuse (a run id or an
 * actor GitHub would not give) is left out rather than lose the whole record.
 */
function usable(record: DeploymentRecord): DeploymentRecord | undefined {
  const reads = (r: DeploymentRecord): boolean =>
    typeof readDeploymentRecord(JSON.parse(JSON.stringify(deploymentRecordJson(r)))) !== 'string';
  if (reads(record)) return record;
  const bare: DeploymentRecord = {
    at: record.at,
    claw: record.claw,
    deployment: record.deployment,
    outcome: record.outcome,
    run: '',
  };
  if (!reads(bare)) return undefined;
  let kept = bare;
  for (const key of Object.keys(record) as (keyof DeploymentRecord)[]) {
    if (key in bare && key !== 'run') continue;
    const next = { ...kept, [key]: record[key] };
    if (reads(next)) kept = next;
  }
  return kept;
}

function record(
  facts: RunFacts,
  claw: string | undefined,
  deployment: string | undefined,
  outcome: DeploymentOutcome | undefined,
  extra: Partial<DeploymentRecord>,
): DeploymentRecord | undefined {
  if (!claw || !deployment || !outcome || !isValidId(claw) || !isValidId(deployment)) return undefined;
  const { at, run, commit, committedAt, firstCommitAt, mergedAt, actor } = facts;
  return usable({
    at,
    claw,
    deployment,
    outcome,
    run,
    ...extra,
    ...(commit ? { commit } : {}),
    ...(committedAt !== undefined ? { committedAt } : {}),
    ...(firstCommitAt !== undefined ? { firstCommitAt } : {}),
    ...(mergedAt !== undefined ? { mergedAt } : {}),
    ...(actor ? { actor } : {}),
  });
}

function comparisonFacts(compared: Compared | undefined): Partial<DeploymentRecord> {
  if (!compared || compared.behaviour === '') return {};
  const passRate = passRateOf(compared);
  return { behaviour: compared.behaviour, ...(passRate ? { passRate } : {}) };
}

/** The record of a deploy's or the rollback command's result (none for `wait` or without an outcome). */
export function deployRecords(result: DeployResult, facts: RunFacts): DeploymentRecord[] {
  if (result.command === 'rollback') {
    // The rollback command: the deployment it rolled back, now failed; a rollback that did not go through changed nothing.
    if (!result.rollback?.succeeded) return [];
    const r = record(facts, result.clawId, result.deploymentId, 'rolled-back', {
      rollback: result.rollback.id,
      ...(result.durationMs !== undefined ? { durationMs: result.durationMs } : {}),
    });
    return r ? [r] : [];
  }
  if (result.command !== 'deploy') return [];
  const r = record(facts, result.clawId, result.deploymentId, outcomeOf(result.outcome), {
    ...(result.strategy ? { strategy: result.strategy } : {}),
    ...(result.durationMs !== undefined ? { durationMs: result.durationMs } : {}),
    ...(result.rollback?.succeeded ? { rollback: result.rollback.id } : {}),
    ...comparisonFacts(result.comparison),
  });
  return r ? [r] : [];
}

/** One record per Claw of a fleet that was deployed (skipped Claws were not). */
export function fleetRecords(result: FleetResult, strategy: string, facts: RunFacts): DeploymentRecord[] {
  const compared = new Map((result.comparisons ?? []).map((c: ClawComparison) => [c.clawId, c.compared]));
  const records: DeploymentRecord[] = [];
  for (const e of result.entries as FleetEntry[]) {
    const r = record(facts, e.clawId, e.deploymentId, outcomeOf(e.outcome), {
      ...(strategy ? { strategy } : {}),
      ...(e.durationMs !== undefined ? { durationMs: e.durationMs } : {}),
      ...(e.rolledBack ? { rollback: e.rollbackId ?? e.deploymentId } : {}),
      ...comparisonFacts(compared.get(e.clawId)),
    });
    if (r) records.push(r);
  }
  return records;
}
