// One line per deployment this action made or rolled back, for the figures teams track (dora.ts)
// and for naming a suspect when behaviour changes. The lines come back from a branch anyone with
// push access can write: each is validated field by field and one bad line costs only itself.
import { isValidId } from '../shared/identifiers.js';
import { readTime, runId } from './records.js';

/** How a deployment ended, as this action saw it. */
export type DeploymentOutcome = 'succeeded' | 'failed' | 'timed-out' | 'cancelled' | 'rolled-back';
const OUTCOMES: readonly DeploymentOutcome[] = ['succeeded', 'failed', 'timed-out', 'cancelled', 'rolled-back'];

/** A comparison's verdict on the deployment, when its gate compared it with a baseline. */
export type Behaviour = 'regressed' | 'improved' | 'unchanged' | 'inconclusive';
const BEHAVIOURS: readonly Behaviour[] = ['regressed', 'improved', 'unchanged', 'inconclusive'];

/**
 * The suite's pass rate before and after the deployment, as its gate compared them: fractions, the
 * attempts each rests on, and the change's 95% interval (candidate minus baseline) when there is one.
 */
export interface PassRateFigures {
  before: number;
  beforeN: number;
  after: number;
  afterN: number;
  low?: number;
  high?: number;
}

/** Where the records are kept on the history branch: one NDJSON file per month, parts past 1 MiB. */
export const DEPLOYMENTS_DIR = 'history/deployments';
/** The kind a record's seal binds: its month's file (a line moved to another month does not verify). */
export const deploymentKind = (month: string): `deployment-record ${string}` => `deployment-record ${month}`;

export interface DeploymentRecord {
  /** When the deployment reached its outcome (epoch milliseconds). */
  at: number;
  claw: string;
  deployment: string;
  outcome: DeploymentOutcome;
  /** The workflow run that made it ('' outside GitHub). */
  run: string;
  strategy?: string;
  durationMs?: number;
  /** The rollback's own deployment id, when this one was rolled back. */
  rollback?: string;
  /** The commit deployed (40 hex digits) and when it was made. */
  commit?: string;
  committedAt?: number;
  /** When the change began, for lead time: the earliest commit of the push (the event's `commits[]`). */
  firstCommitAt?: number;
  /** When the pull request deployed was merged (`pull_request.merged_at`), on a merged pull request's run. */
  mergedAt?: number;
  actor?: string;
  behaviour?: Behaviour;
  /** The suite's pass rate before and after, when the gate compared (`baseline: before`). */
  passRate?: PassRateFigures;
}

/** What a run knows of itself, the same for each of its records. */
export interface RunFacts {
  /** When the run recorded its deployments (epoch ms). */
  at: number;
  /** The workflow run's id ('' outside GitHub). */
  run: string;
  /** The commit deployed, and when it was made (when the host could tell). */
  commit?: string;
  committedAt?: number;
  /** When the change began (written at deploy time from the event payload): see DeploymentRecord. */
  firstCommitAt?: number;
  mergedAt?: number;
  actor?: string;
}

const MAX_DURATION_MS = 30 * 24 * 3600_000;
/** The times a record may carry besides `at`, none later than it. */
const TIMES = ['committedAt', 'firstCommitAt', 'mergedAt'] as const;

/** A deployment record, or what is wrong with the line. */
export function readDeploymentRecord(data: unknown): DeploymentRecord | string {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'not a JSON object';
  const r = data as Record<string, unknown>;
  const at = readTime(r.at);
  if (at === undefined) return 'no usable time in "at"';
  if (!runId(r.run)) return 'no usable run id in "run"';
  if (typeof r.claw !== 'string' || !isValidId(r.claw)) return 'no usable Claw id in "claw"';
  if (typeof r.deployment !== 'string' || !isValidId(r.deployment)) return 'no usable id in "deployment"';
  if (!OUTCOMES.includes(r.outcome as DeploymentOutcome)) return 'an unknown "outcome"';
  const record: DeploymentRecord = {
    at,
    claw: r.claw,
    deployment: r.deployment,
    outcome: r.outcome as DeploymentOutcome,
    run: r.run,
  };
  if (r.strategy !== undefined) {
    if (typeof r.strategy !== 'string' || !/^[\w.:-]{1,100}$/.test(r.strategy)) return 'an unusable "strategy"';
    record.strategy = r.strategy;
  }
  if (r.durationMs !== undefined) {
    const d = r.durationMs;
    if (typeof d !== 'number' || !Number.isFinite(d) || d < 0 || d > MAX_DURATION_MS) return 'an unusable "durationMs"';
    record.durationMs = d;
  }
  if (r.rollback !== undefined) {
    if (typeof r.rollback !== 'string' || !isValidId(r.rollback)) return 'an unusable "rollback" id';
    record.rollback = r.rollback;
  }
  if (r.commit !== undefined) {
    if (typeof r.commit !== 'string' || !/^[0-9a-f]{40}$/.test(r.commit)) return 'an unusable "commit"';
    record.commit = r.commit;
  }
  for (const field of TIMES) {
    if (r[field] === undefined) continue;
    const time = readTime(r[field]);
    if (time === undefined || time > at) return `an unusable "${field}"`;
    record[field] = time;
  }
  if (r.actor !== undefined) {
    // A GitHub login: letters, digits, single hyphens, at most 39; apps end in [bot].
    if (typeof r.actor !== 'string' || !/^[A-Za-z\d](?:[A-Za-z\d-]{0,38})(?:\[bot\])?$/.test(r.actor))
      return 'an unusable "actor"';
    record.actor = r.actor;
  }
  if (r.behaviour !== undefined) {
    if (!BEHAVIOURS.includes(r.behaviour as Behaviour)) return 'an unknown "behaviour"';
    record.behaviour = r.behaviour as Behaviour;
  }
  if (r.passRate !== undefined) {
    const passRate = readPassRate(r.passRate);
    if (passRate === undefined) return 'unusable "passRate" figures';
    record.passRate = passRate;
  }
  return record;
}

const MAX_ATTEMPTS = 1_000_000;
const fraction = (v: unknown, low = 0): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= low && v <= 1;
const attempts = (v: unknown): v is number =>
  Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_ATTEMPTS;

function readPassRate(v: unknown): PassRateFigures | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const p = v as Record<string, unknown>;
  if (!fraction(p.before) || !fraction(p.after) || !attempts(p.beforeN) || !attempts(p.afterN)) return undefined;
  const figures: PassRateFigures = { before: p.before, beforeN: p.beforeN, after: p.after, afterN: p.afterN };
  for (const end of ['low', 'high'] as const) {
    if (p[end] === undefined) continue;
    if (!fraction(p[end], -1)) return undefined;
    figures[end] = p[end];
  }
  return figures;
}

/** The line's JSON, times as ISO strings (what `readDeploymentRecord` reads back). */
export function deploymentRecordJson(record: DeploymentRecord): Record<string, unknown> {
  const { at, committedAt, firstCommitAt, mergedAt, ...rest } = record;
  const iso = (field: string, time: number | undefined) =>
    time === undefined ? {} : { [field]: new Date(time).toISOString() };
  return {
    at: new Date(at).toISOString(),
    ...rest,
    ...iso('committedAt', committedAt),
    ...iso('firstCommitAt', firstCommitAt),
    ...iso('mergedAt', mergedAt),
  };
}
