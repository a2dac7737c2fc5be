// The figures teams track (DORA's four keys), for Claws: deployment frequency, lead time for
// changes, change failure rate and failed deployment recovery time, per Claw and for the whole set,
// over fixed windows, by DORA's definitions (docs/dora.md cites them). Pure: the records and
// incidents come in, the figures go out.
//
// Counting rules (docs/dora.md says the same in words):
// - A deployment is one Claw's deployment id that went live (a record `succeeded`; one the rollback
//   command rolled back; one compared at its gate, which compares the live deployment). One that
//   failed, timed out or was cancelled before going live (rolled back or not) is not a deployment: it is counted apart (`notLive`), never in the rate. Seen twice (a
//   copied line, a retried write, its rollback's record) it counts once, in the window it went live.
// - Lead time runs from the change's start to the deployment going live: the first commit of the
//   push (`firstCommitAt`), else the pull request's merge (`mergedAt`), else the deployed commit's
//   own time (`committedAt`); `from` counts which.
// - A change failure is a live deployment that then needed a remedy: rolled back, `regressed` at its
//   gate or by its watch (the watch's regression opens an incident naming it), or named with
//   evidence as an incident's suspect. The rate is failed / live deployments.
// - Recovery runs from the failing deployment going live to the remedy: the rollback's record (the
//   rollback live), the Claw's next live deployment that did not fail, or the suspect incident
//   closed healthy, the earliest. A failure with no remedy yet is open, never zero.
import type { DeploymentRecord } from './deployment-records.js';
import type { HistoryView } from './history.js';

export const DORA_WINDOWS_DAYS = [7, 30, 90] as const;
const DAY_MS = 24 * 3600_000;

/** An incident as the figures need it: which Claw, when, and the deployment it names. */
export interface IncidentSpan {
  claw: string;
  openedAt: number;
  /** When it closed (the Claw healthy again); absent while open. */
  closedAt?: number;
  /** The suspect deployment's id, when the incident names one (with evidence: incident-plan.ts). */
  suspect?: string;
}

export interface Median {
  /** Milliseconds; null with no data. */
  median: number | null;
  n: number;
}

/** Where each lead time was counted from. */
export interface LeadFrom {
  firstCommit: number;
  merged: number;
  headCommit: number;
}

export interface DoraFigures {
  /** The window's length: `perWeek` is `deployments` / `days` × 7. */
  days: number;
  /** Deployments that went live in the window. */
  deployments: number;
  /** Deployments per week over the window. */
  perWeek: number;
  /** Deployments started in the window that never went live (failed, timed out, cancelled): not deployments. */
  notLive: number;
  leadTimeMs: Median & { from: LeadFrom };
  /** Live deployments that needed a remedy, over live deployments. */
  changeFailureRate: { failed: number; total: number; rate: number | null };
  /** From going live to the remedy; `open`: failures with no remedy yet. */
  recoveryMs: Median & { open: number };
}

export interface DoraReport {
  windowsDays: number[];
  overall: Record<string, DoraFigures>;
  claws: Record<string, Record<string, DoraFigures>>;
}

/** One deployment after its records are merged. */
export interface Deployment {
  claw: string;
  id: string;
  /** Its earliest record. */
  at: number;
  /** When it went live; absent: it never did. */
  liveAt?: number;
  /** When the change started, and from what. */
  change?: { at: number; from: keyof LeadFrom };
  /** It needed a remedy. */
  failed: boolean;
  /** The remedies known: the rollback live, the incident naming it closed. */
  remedies: number[];
}

const earliest = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

function changeOf(r: DeploymentRecord): Deployment['change'] {
  if (r.firstCommitAt !== undefined) return { at: r.firstCommitAt, from: 'firstCommit' };
  if (r.mergedAt !== undefined) return { at: r.mergedAt, from: 'merged' };
  if (r.committedAt !== undefined) return { at: r.committedAt, from: 'headCommit' };
  return undefined;
}

const SOURCES: (keyof LeadFrom)[] = ['firstCommit', 'merged', 'headCommit'];

/** The records merged by Claw and id, with the incidents that name them. */
export function mergeDeployments(records: DeploymentRecord[], incidents: IncidentSpan[]): Deployment[] {
  const byKey = new Map<string, Deployment>();
  for (const r of [...records].sort((a, b) => a.at - b.at)) {
    const key = `${r.claw}\u0000${r.deployment}`;
    const d = byKey.get(key) ?? { claw: r.claw, id: r.deployment, at: r.at, failed: false, remedies: [] };
    byKey.set(key, d);
    d.at = Math.min(d.at, r.at);
    if (r.outcome === 'succeeded') d.liveAt = earliest(d.liveAt, r.at);
    const change = changeOf(r);
    if (change && (!d.change || SOURCES.indexOf(change.from) < SOURCES.indexOf(d.change.from))) d.change = change;
    // Live though its run did not succeed: rolled back by the rollback command, or compared at its
    // gate (the comparison runs on the live deployment). Its run began `durationMs` before.
    if (d.liveAt === undefined && (r.outcome === 'rolled-back' || r.behaviour !== undefined))
      d.liveAt = r.at - (r.durationMs ?? 0);
    if (r.outcome === 'rolled-back' || r.rollback !== undefined) {
      d.failed = true;
      d.remedies.push(r.at);
    }
    if (r.behaviour === 'regressed') d.failed = true;
  }
  for (const incident of incidents) {
    if (!incident.suspect) continue;
    const d = byKey.get(`${incident.claw}\u0000${incident.suspect}`);
    if (!d || d.liveAt === undefined) continue;
    d.failed = true;
    if (incident.closedAt !== undefined) d.remedies.push(incident.closedAt);
  }
  for (const d of byKey.values()) if (d.liveAt === undefined) d.failed = false;
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
 * When each failed deployment was remedied: its rollback live, the incident naming it closed, or
 * the Claw's next live deployment that did not fail, the earliest after it went live (undefined:
 * not yet). Once per deployment whatever the windows.
 */
function remediedAt(all: Deployment[]): Map<Deployment, number | undefined> {
  const good = new Map<string, number[]>();
  for (const d of all)
    if (!d.failed && d.liveAt !== undefined) (good.get(d.claw) ?? good.set(d.claw, []).get(d.claw)!).push(d.liveAt);
  const found = new Map<Deployment, number | undefined>();
  for (const d of all) {
    if (!d.failed || d.liveAt === undefined) continue;
    const live = d.liveAt;
    let best: number | undefined;
    const take = (at: number) => void (best = best === undefined ? at : Math.min(best, at));
    for (const at of d.remedies) if (at >= live) take(at);
    for (const at of good.get(d.claw) ?? []) if (at > live) take(at);
    found.set(d, best);
  }
  return found;
}

function figures(
  deployments: Deployment[],
  notLive: number,
  remedied: Map<Deployment, number | undefined>,
  days: number,
): DoraFigures {
  const failed = deployments.filter((d) => d.failed);
  const from: LeadFrom = { firstCommit: 0, merged: 0, headCommit: 0 };
  const leads: number[] = [];
  for (const d of deployments) {
    if (!d.change) continue;
    from[d.change.from] += 1;
    leads.push(Math.max(0, (d.liveAt as number) - d.change.at));
  }
  const recoveries: number[] = [];
  let open = 0;
  for (const d of failed) {
    const at = remedied.get(d);
    if (at === undefined) open += 1;
    else recoveries.push(at - (d.liveAt as number));
  }
  return {
    days,
    deployments: deployments.length,
    perWeek: Math.round((deployments.length / days) * 7 * 100) / 100,
    notLive,
    leadTimeMs: { ...median(leads), from },
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
  now: number,
  windowsDays: readonly number[] = DORA_WINDOWS_DAYS,
): DoraReport {
  const all = mergeDeployments(records, incidents);
  const remedied = remediedAt(all);
  const report: DoraReport = { windowsDays: [...windowsDays], overall: {}, claws: {} };
  const claws = [...new Set(all.map((d) => d.claw))].sort();
  const inside = (at: number, days: number) => at > now - days * DAY_MS && at <= now;
  for (const days of windowsDays) {
    const live = all.filter((d) => d.liveAt !== undefined && inside(d.liveAt, days));
    const notLive = all.filter((d) => d.liveAt === undefined && inside(d.at, days));
    const count = (claw?: string) => notLive.filter((d) => claw === undefined || d.claw === claw).length;
    report.overall[String(days)] = figures(live, count(), remedied, days);
    const byClaw = new Map<string, Deployment[]>(claws.map((claw) => [claw, []]));
    for (const d of live) byClaw.get(d.claw)!.push(d);
    for (const claw of claws)
      (report.claws[claw] ??= {})[String(days)] = figures(byClaw.get(claw)!, count(claw), remedied, days);
  }
  return report;
}

/**
 * The figures from what a health run read: the deployment records, the incidents (`IncidentSpan`:
 * the seam where an incident names its suspect deployment and closes).
 */
export function doraOf(view: Pick<HistoryView, 'deployments'>, incidents: IncidentSpan[], now: number): DoraReport {
  return doraReport(view.deployments, incidents, now);
}
