// What a health run remembers, one NDJSON line each: a record per Claw per run, one for the
// service per run, and a daily aggregate per Claw once a day is over. The lines come back from a
// branch anyone with push access can write, so every line read is validated field by field; a
// line that fails is skipped (and counted for one warning), never a reason to rewrite the file.
import { isValidId } from '../shared/identifiers.js';

export type RunStatus = 'healthy' | 'unhealthy' | 'unknown';
const RUN_STATUSES: readonly RunStatus[] = ['healthy', 'unhealthy', 'unknown'];

export interface CheckCounts {
  passed: number;
  failed: number;
  errors: number;
}

/** One Claw in one run. */
export interface ClawRecord {
  /** When the run checked it (epoch milliseconds). */
  at: number;
  /** The workflow run's id ('' outside GitHub), for links to it. */
  run: string;
  claw: string;
  status: RunStatus;
  /** The probe's (or the read's) latency. */
  latencyMs?: number;
  checks?: CheckCounts;
  /** The judge's scores, 0 to 1, of the model-graded checks. */
  scores?: number[];
  /** The Claw's current deployment. */
  deployment?: string;
}

/** The service in one run: answering, failing for everyone, or refusing the key. */
export type ServiceState = 'up' | 'down' | 'refused';
const SERVICE_STATES: readonly ServiceState[] = ['up', 'down', 'refused'];

export interface ServiceRecord {
  at: number;
  run: string;
  service: ServiceState;
}

export type RunRecord = ClawRecord | ServiceRecord;

/** One Claw over one UTC day, kept after its raw records are gone. */
export interface DailyRecord {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  claw: string;
  runs: number;
  healthy: number;
  unhealthy: number;
  unknown: number;
  latencyP50?: number;
  latencyP95?: number;
  checks?: CheckCounts;
  /** Deployments seen that day, in order. */
  deployments: string[];
}

export const isClawRecord = (r: RunRecord): r is ClawRecord => 'claw' in r;

const MAX_COUNT = 1_000_000;
const MAX_LATENCY_MS = 24 * 3600_000;
const MAX_SCORES = 50;
const MAX_DEPLOYMENTS = 50;
/** Times before this are not this action's (and dates far ahead are forged). */
const EARLIEST = Date.parse('2020-01-01T00:00:00Z');
const LATEST = Date.parse('2200-01-01T00:00:00Z');

const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_COUNT;
const latency = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_LATENCY_MS;
/** A workflow run's id as the runner gives it ('' outside GitHub). */
export const runId = (v: unknown): v is string => typeof v === 'string' && /^\d{0,20}$/.test(v);

/** An ISO time this action could have written, or undefined (before 2020, or far ahead: forged). */
export function readTime(v: unknown): number | undefined {
  if (typeof v !== 'string' || v.length > 40 || !/^\d{4}-\d\d-\d\dT/.test(v)) return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) && ms >= EARLIEST && ms < LATEST ? ms : undefined;
}

function readChecks(v: unknown): CheckCounts | undefined | false {
  if (v === undefined) return undefined;
  const c = v as Record<string, unknown>;
  if (typeof v !== 'object' || v === null || !count(c.passed) || !count(c.failed) || !count(c.errors)) return false;
  return { passed: c.passed, failed: c.failed, errors: c.errors };
}

/** A run record, or what is wrong with the line. */
export function readRunRecord(data: unknown): RunRecord | string {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'not a JSON object';
  const r = data as Record<string, unknown>;
  const at = readTime(r.at);
  if (at === undefined) return 'no usable time in "at"';
  if (!runId(r.run)) return 'no usable run id in "run"';
  if ('service' in r) {
    if (!SERVICE_STATES.includes(r.service as ServiceState)) return 'an unknown service state';
    return { at, run: r.run, service: r.service as ServiceState };
  }
  if (typeof r.claw !== 'string' || !isValidId(r.claw)) return 'no usable Claw id in "claw"';
  if (!RUN_STATUSES.includes(r.status as RunStatus)) return 'an unknown status';
  const record: ClawRecord = { at, run: r.run, claw: r.claw, status: r.status as RunStatus };
  if (r.latencyMs !== undefined) {
    if (!latency(r.latencyMs)) return 'an unusable "latencyMs"';
    record.latencyMs = r.latencyMs;
  }
  const checks = readChecks(r.checks);
  if (checks === false) return 'unusable "checks" counts';
  if (checks) record.checks = checks;
  if (r.scores !== undefined) {
    const scores = r.scores;
    if (
      !Array.isArray(scores) ||
      scores.length > MAX_SCORES ||
      !scores.every((s) => typeof s === 'number' && s >= 0 && s <= 1)
    )
      return 'unusable "scores"';
    record.scores = scores as number[];
  }
  if (r.deployment !== undefined) {
    if (typeof r.deployment !== 'string' || !isValidId(r.deployment)) return 'an unusable "deployment" id';
    record.deployment = r.deployment;
  }
  return record;
}

/** A daily record, or what is wrong with the line. */
export function readDailyRecord(data: unknown): DailyRecord | string {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'not a JSON object';
  const r = data as Record<string, unknown>;
  if (typeof r.day !== 'string' || !/^\d{4}-\d\d-\d\d$/.test(r.day) || readTime(`${r.day}T00:00:00Z`) === undefined)
    return 'no usable day in "day"';
  if (typeof r.claw !== 'string' || !isValidId(r.claw)) return 'no usable Claw id in "claw"';
  if (!count(r.runs) || !count(r.healthy) || !count(r.unhealthy) || !count(r.unknown)) return 'unusable counts';
  if (r.healthy + r.unhealthy + r.unknown !== r.runs) return 'counts that do not add up to "runs"';
  const record: DailyRecord = {
    day: r.day,
    claw: r.claw,
    runs: r.runs,
    healthy: r.healthy,
    unhealthy: r.unhealthy,
    unknown: r.unknown,
    deployments: [],
  };
  for (const key of ['latencyP50', 'latencyP95'] as const) {
    if (r[key] === undefined) continue;
    if (!latency(r[key])) return `an unusable "${key}"`;
    record[key] = r[key];
  }
  const checks = readChecks(r.checks);
  if (checks === false) return 'unusable "checks" counts';
  if (checks) record.checks = checks;
  if (r.deployments !== undefined) {
    const list = r.deployments;
    if (
      !Array.isArray(list) ||
      list.length > MAX_DEPLOYMENTS ||
      !list.every((d) => typeof d === 'string' && isValidId(d))
    )
      return 'unusable "deployments"';
    record.deployments = list as string[];
  }
  return record;
}

/** One NDJSON line for a record: times as ISO 8601, keys in a stable order. */
export function recordLine(record: RunRecord | DailyRecord): string {
  if ('day' in record) return JSON.stringify(record);
  const { at, ...rest } = record;
  return JSON.stringify({ at: new Date(at).toISOString(), ...rest });
}

export interface ParsedLines<T> {
  records: T[];
  /** Lines skipped: their number (from 1) and what was wrong. */
  broken: { line: number; problem: string }[];
}

/** Every line of an NDJSON file through `read`; blank lines are nothing, broken ones are listed. */
export function parseLines<T>(text: string, read: (data: unknown) => T | string): ParsedLines<T> {
  const records: T[] = [];
  const broken: { line: number; problem: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      broken.push({ line: i + 1, problem: 'not JSON' });
      continue;
    }
    const record = read(data);
    if (typeof record === 'string') broken.push({ line: i + 1, problem: record });
    else records.push(record);
  }
  return { records, broken };
}

/** The UTC day of a time: `YYYY-MM-DD`. */
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** The UTC month of a time: `YYYY-MM`. */
export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** The value at `p` (0 to 1) of sorted numbers, nearest rank. */
export function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** One Claw's records of one day, as its daily record. */
export function aggregateDay(day: string, claw: string, records: ClawRecord[]): DailyRecord {
  const latencies = records
    .filter((r) => r.status !== 'unknown' && r.latencyMs !== undefined)
    .map((r) => r.latencyMs as number)
    .sort((a, b) => a - b);
  const withChecks = records.filter((r) => r.checks);
  const deployments: string[] = [];
  for (const r of [...records].sort((a, b) => a.at - b.at)) {
    if (r.deployment && deployments.at(-1) !== r.deployment && deployments.length < MAX_DEPLOYMENTS)
      deployments.push(r.deployment);
  }
  const daily: DailyRecord = {
    day,
    claw,
    runs: records.length,
    healthy: records.filter((r) => r.status === 'healthy').length,
    unhealthy: records.filter((r) => r.status === 'unhealthy').length,
    unknown: records.filter((r) => r.status === 'unknown').length,
    deployments,
  };
  const p50 = percentile(latencies, 0.5);
  const p95 = percentile(latencies, 0.95);
  if (p50 !== undefined) daily.latencyP50 = Math.round(p50);
  if (p95 !== undefined) daily.latencyP95 = Math.round(p95);
  if (withChecks.length) {
    daily.checks = withChecks.reduce(
      (sum, r) => ({
        passed: sum.passed + r.checks!.passed,
        failed: sum.failed + r.checks!.failed,
        errors: sum.errors + r.checks!.errors,
      }),
      { passed: 0, failed: 0, errors: 0 },
    );
  }
  return daily;
}
