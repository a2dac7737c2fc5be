// The figures teams track (DORA's four keys), for Claws: deployment frequency, lead time, change
// failure rate and failed-deployment recovery time, per Claw and for the whole set, over fixed
// windows. Pure: the records and incidents come in, the figures go out.
//
// Counting rules (docs/health.md says the same):
// - A deployment is one Claw's deployment id: seen twice (a copied line, a retried write, its
//   rollback's record) it counts once, with every fact its records give (a failure in any wins).
// - The failure rate is always numerator / denominator: deployments that failed, timed out, were
//   cancelled, were rolled back, were `regressed` at their gate, or were named the suspect of an
//   incident, over every deployment with an outcome in the window.
// - Lead time runs from the commit's time to the deployment being live, for those that went live.
// - Recovery runs from a failure (the deployment's outcome, or the suspect incident's opening) to
//   the Claw healthy again: its next healthy health run or its next live deployment that did not
//   fail. A failure not yet recovered is counted as open, never as zero.
import type { DeploymentRecord } from './deployment-records.js';
import type { HistoryView } from './history.js';
import { isClawRecord } from './records.js';

export const DORA_WINDOWS_DAYS = [7, 30, 90] as const;
const DAY_MS = 24 * 3600_000;

/** An incident as the figures need it: which Claw, when, and the deployment it names. */
export interface IncidentSpan {
  claw: string;
  openedAt: number;
  closedAt?: number;
  /** The suspect deployment's id, when the incident names one. */
  suspect?: string;
}

/** When a Claw was seen healthy by a health run. */
export interface HealthySighting {
  claw: string;
  at: number;
}

export interface Median {
  /** Milliseconds; null with no data. */
  median: number | null;
  n: number;
}

export interface DoraFigures {
  /** The window's length: `perWeek` is `deployments` / `days` × 7. */
  days: number;
  deployments: number;
  /** Deployments per week over the window. */
  perWeek: number;
  leadTimeMs: Median;
  changeFailureRate: { failed: number; total: number; rate: number | null };
  recoveryMs: Median & { open: number };
}

export interface DoraReport {
  windowsDays: number[];
  overall: Record<string, DoraFigures>;
  claws: Record<string, Record<string, DoraFigures>>;
}

/** One deployment after its records are merged. */
interface Deployment {
  claw: string;
  id: string;
  at: number;
  liveAt?: number;
  committedAt?: number;
  failedAt?: number;
}

const FAILED_OUTCOMES = new Set(['failed', 'timed-out', 'cancelled', 'rolled-back']);

/** The records merged by Claw and id, each failure at its earliest known time. */
export function mergeDeployments(records: DeploymentRecord[], incidents: IncidentSpan[]): Deployment[] {
  const byKey = new Map<string, Deployment>();
  const earliest = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);
  for (const r of records) {
    const key = `${r.claw}\u0000${r.deployment}`;
    const d = byKey.get(key) ?? { claw: r.claw, id: r.deployment, at: r.at };
    d.at = Math.min(d.at, r.at);
    if (r.outcome === 'succeeded') d.liveAt = earliest(d.liveAt, r.at);
    d.committedAt = earliest(d.committedAt, r.committedAt);
    const failed = FAILED_OUTCOMES.has(r.outcome) || r.rollback !== undefined || r.behaviour === 'regressed';
    if (failed) d.failedAt = earliest(d.failedAt, r.at);
    byKey.set(key, d);
  }
  for (const incident of incidents) {
    if (!incident.suspect) continue;
    const d = byKey.get(`${incident.claw}\u0000${incident.suspect}`);
    if (d) d.failedAt = earliest(d.failedAt, Math.max(incident.openedAt, d.at));
  }
  return [...byKey.values()].sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
}

export function median(values: number[]): Median {
  if (values.length === 0) return { median: null, n: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const value = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median: value, n: values.length };
}

/**
 * When each failed deployment's Claw was next healthy after the failure: a healthy run, or a later
 * live deployment that did not fail (undefined: not yet). Each Claw's own times only, once per
 * deployment whatever the windows.
 */
function recoveries(all: Deployment[], healthy: HealthySighting[]): Map<Deployment, number | undefined> {
  const times = new Map<string, number[]>();
  const add = (claw: string, at: number): void => void (times.get(claw) ?? times.set(claw, []).get(claw)!).push(at);
  for (const h of healthy) add(h.claw, h.at);
  for (const d of all) if (d.failedAt === undefined && d.liveAt !== undefined) add(d.claw, d.liveAt);
  const found = new Map<Deployment, number | undefined>();
  for (const d of all) {
    if (d.failedAt === undefined) continue;
    let best: number | undefined;
    for (const at of times.get(d.claw) ?? []) if (at > d.failedAt && (best === undefined || at < best)) best = at;
    found.set(d, best);
  }
  return found;
}

function figures(deployments: Deployment[], recovered: Map<Deployment, number | undefined>, days: number): DoraFigures {
  const failed = deployments.filter((d) => d.failedAt !== undefined);
  const leads = deployments
    .filter((d) => d.liveAt !== undefined && d.committedAt !== undefined)
    .map((d) => (d.liveAt as number) - (d.committedAt as number));
  const recoveries: number[] = [];
  let open = 0;
  for (const d of failed) {
    const at = recovered.get(d);
    if (at === undefined) open += 1;
    else recoveries.push(at - (d.failedAt as number));
  }
  return {
    days,
    deployments: deployments.length,
    perWeek: Math.round((deployments.length / days) * 7 * 100) / 100,
    leadTimeMs: median(leads),
    changeFailureRate: {
      failed: failed.length,
      total: deployments.length,
      rate: deployments.length ? failed.length / deployments.length : null,
    },
    recoveryMs: { ...median(recoveries), open },
  };
}

/** The figures per window (days ending at `now`), for every Claw with a deployment and overall. */
export function doraReport(
  records: DeploymentRecord[],
  incidents: IncidentSpan[],
  healthy: HealthySighting[],
  now: number,
  windowsDays: readonly number[] = DORA_WINDOWS_DAYS,
): DoraReport {
  const all = mergeDeployments(records, incidents);
  const recovered = recoveries(all, healthy);
  const report: DoraReport = { windowsDays: [...windowsDays], overall: {}, claws: {} };
  const claws = [...new Set(all.map((d) => d.claw))].sort();
  for (const days of windowsDays) {
    const inWindow = all.filter((d) => d.at > now - days * DAY_MS && d.at <= now);
    report.overall[String(days)] = figures(inWindow, recovered, days);
    const byClaw = new Map<string, Deployment[]>(claws.map((claw) => [claw, []]));
    for (const d of inWindow) byClaw.get(d.claw)!.push(d);
    for (const claw of claws) (report.claws[claw] ??= {})[String(days)] = figures(byClaw.get(claw)!, recovered, days);
  }
  return report;
}

/**
 * When each Claw was seen healthy, from what health keeps: every healthy run of the raw records,
 * and for older days (folded) the end of each day that had a healthy run (a recovery is never
 * shorter than it was).
 */
export function healthySightings(view: Pick<HistoryView, 'recent' | 'daily'>): HealthySighting[] {
  const sightings: HealthySighting[] = [];
  const rawFrom = new Map<string, number>();
  for (const r of view.recent) {
    if (!isClawRecord(r)) continue;
    rawFrom.set(r.claw, Math.min(rawFrom.get(r.claw) ?? Infinity, r.at));
    if (r.status === 'healthy') sightings.push({ claw: r.claw, at: r.at });
  }
  for (const d of view.daily) {
    const end = Date.parse(`${d.day}T00:00:00Z`) + DAY_MS - 1;
    if (d.healthy > 0 && end < (rawFrom.get(d.claw) ?? Infinity)) sightings.push({ claw: d.claw, at: end });
  }
  return sightings;
}

/**
 * The figures from what a health run read: the deployment records, the incidents (`IncidentSpan`:
 * the seam where an incident names its suspect deployment), and the Claws' healthy runs.
 */
export function doraOf(
  view: Pick<HistoryView, 'recent' | 'daily' | 'deployments'>,
  incidents: IncidentSpan[],
  now: number,
): DoraReport {
  return doraReport(view.deployments, incidents, healthySightings(view), now);
}
