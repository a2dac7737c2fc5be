// The watch after each deployment, per Claw, from the sealed health records and deployment records
// (docs/health.md, "Which deployment changed behaviour"): each deployment of the window that went
// live is watched with the comparison engine's sequential rule, the health runs since against the
// runs of the window before; the suspect an incident names is decided here. Pure: records in,
// facts out, for the incident rules, status.json and the page.
import { DEFAULT_WINDOW_DAYS, type WatchResult, type WatchRun, watchDeployment } from '../compare/index.js';
import type { SuspectView, WatchFigures } from './incident-report.js';
import type { DeploymentRecord } from './deployment-records.js';
import type { DeploymentFacts } from './incident-plan.js';
import { type ClawRecord, type RunRecord, isClawRecord } from './records.js';

const DAY_MS = 24 * 3600_000;
/** The most deployments of one Claw watched in a run: the newest (records anyone with push access can add). */
export const MAX_WATCHED = 50;

/** Where a deployment's run and commits are shown. */
export interface DeploymentLinks {
  run(runId: string): string | undefined;
  /** `serverUrl/owner/repo`, or undefined outside GitHub. */
  repositoryUrl?: string;
}

export interface WatchedDeployment {
  record: Deployed;
  /** The Claw's deployment before it, for the compare link. */
  previous?: DeploymentRecord;
  /** Its watch; only a deployment that went live is watched. */
  watch?: WatchResult;
  view: SuspectView;
}

export interface ClawWatch {
  claw: string;
  /** The deployments of the window, oldest first. */
  deployments: WatchedDeployment[];
  /** What the incident rules need. */
  facts: DeploymentFacts;
}

/** A deployment after its records are joined: whether it went live, and when a rollback ended it. */
export type Deployed = DeploymentRecord & { live: boolean; endedAt?: number };

/**
 * One entry per deployment id of a Claw, from its earliest record (a copied or retried line is
 * one deployment); a later record rolling it back makes it `rolled-back` and ends its watch there.
 * A record reached after the run's time is not yet one.
 */
function deploymentsOf(records: readonly DeploymentRecord[], now: number): Map<string, Deployed[]> {
  const byKey = new Map<string, Deployed>();
  const byClaw = new Map<string, Deployed[]>();
  for (const r of [...records].sort((a, b) => a.at - b.at)) {
    if (r.at > now) continue;
    const key = JSON.stringify([r.claw, r.deployment]);
    const known = byKey.get(key);
    if (!known) {
      const d: Deployed = { ...r, live: r.outcome === 'succeeded' };
      byKey.set(key, d);
      const own = byClaw.get(r.claw);
      if (own) own.push(d);
      else byClaw.set(r.claw, [d]);
    } else if (r.outcome === 'rolled-back' && known.outcome !== 'rolled-back') {
      known.outcome = 'rolled-back';
      if (r.rollback) known.rollback = r.rollback;
      if (known.live) known.endedAt = r.at;
    }
  }
  return byClaw;
}

/**
 * A Claw's health runs as the watch counts them: its checks' passes and failures (errors are
 * unjudged) when it has checks; otherwise each run's status is one attempt (unknown: unjudged).
 */
export function watchRuns(records: readonly ClawRecord[]): WatchRun[] {
  const withChecks = records.some((r) => r.checks);
  return records.flatMap((r): WatchRun[] => {
    if (r.checks) return [{ at: r.at, passed: r.checks.passed, failed: r.checks.failed, unjudged: r.checks.errors }];
    if (withChecks) return [];
    return [
      {
        at: r.at,
        passed: Number(r.status === 'healthy'),
        failed: Number(r.status === 'unhealthy'),
        unjudged: Number(r.status === 'unknown'),
      },
    ];
  });
}

export const figuresOf = (w: WatchResult): WatchFigures => ({
  before: { passRate: w.before.passRate, n: w.before.n, runs: w.before.runs },
  after: { passRate: w.after.passRate, n: w.after.n, runs: w.after.runs },
  change: w.change,
  low: w.low,
  high: w.high,
});

function suspectView(d: Omit<WatchedDeployment, 'view'>, links: DeploymentLinks): SuspectView {
  const { record, previous, watch } = d;
  const repo = links.repositoryUrl;
  const previousCommit = previous?.commit && previous.commit !== record.commit ? previous.commit : undefined;
  return {
    id: record.deployment,
    at: record.at,
    outcome: record.outcome,
    run: { id: record.run, url: record.run ? links.run(record.run) : undefined },
    ...(record.commit ? { commit: record.commit } : {}),
    ...(record.commit && repo ? { commitUrl: `${repo}/commit/${record.commit}` } : {}),
    ...(previousCommit ? { previousCommit } : {}),
    ...(previousCommit && record.commit && repo
      ? { compareUrl: `${repo}/compare/${previousCommit}...${record.commit}` }
      : {}),
    ...(watch && watch.before.n > 0 ? { figures: figuresOf(watch) } : {}),
  };
}

/**
 * A deployment's watch, cut where the Claw's next deployment changed what it serves: the runs
 * after that are the next one's, never blamed on this one. Cut before it decided, it is
 * inconclusive.
 */
function watchUntilNext(
  runs: WatchRun[],
  records: Deployed[],
  i: number,
  now: number,
  windowDays: number,
): WatchResult {
  const ends = [records[i].endedAt, records.slice(i + 1).find((r) => r.live)?.at].filter((t) => t !== undefined);
  const next = ends.length ? Math.min(...ends) : undefined;
  const until = next === undefined ? now : Math.min(now, next - 1);
  const watch = watchDeployment({ runs, deployedAt: records[i].at, now: until, windowDays });
  if (next === undefined || next > now || watch.verdict !== 'watching') return watch;
  return { ...watch, verdict: 'inconclusive', reason: 'the next deployment came before the watch could tell' };
}

/** The start of the UTC week (Monday 00:00) holding `now`: the quiet watch's anchor. */
export function weekStart(now: number): number {
  const day = Math.floor(now / DAY_MS);
  // 1970-01-01 was a Thursday: Monday is 3 days before a multiple of 7.
  return (day - ((day + 3) % 7)) * DAY_MS;
}

export interface WatchRequest {
  /** Health runs of the history (this run's included). */
  runs: readonly RunRecord[];
  deployments: readonly DeploymentRecord[];
  now: number;
  /** The Claws this run checked: each gets its facts, deployed or not. */
  claws: readonly string[];
  windowDays?: number;
  links: DeploymentLinks;
}

/** Each Claw's watched deployments and what an incident about it names. */
export function watchClaws(request: WatchRequest): Map<string, ClawWatch> {
  const { now, links } = request;
  const windowDays = request.windowDays ?? DEFAULT_WINDOW_DAYS;
  const since = now - windowDays * DAY_MS;
  const byClaw = deploymentsOf(request.deployments, now);
  const runsOf = new Map<string, ClawRecord[]>();
  for (const r of request.runs) {
    if (!isClawRecord(r) || r.at > now) continue;
    const own = runsOf.get(r.claw);
    if (own) own.push(r);
    else runsOf.set(r.claw, [r]);
  }
  const out = new Map<string, ClawWatch>();
  for (const claw of new Set([...request.claws, ...byClaw.keys()])) {
    const runs = watchRuns(runsOf.get(claw) ?? []);
    const records = byClaw.get(claw) ?? [];
    // The window's deployments (the newest MAX_WATCHED: a flood of records costs a bounded time)
    // and the latest one, whose regression holds however old it is.
    const first = Math.max(0, records.length - MAX_WATCHED);
    const lastLive = records.findLastIndex((r) => r.live);
    const picked = records
      .map((record, i) => ({ record, i }))
      .filter(({ record, i }) => i >= first && (record.at > since || i === lastLive));
    const watched: WatchedDeployment[] = picked.map(({ record, i }) => {
      const base = {
        record,
        previous: records[i - 1],
        ...(record.live ? { watch: watchUntilNext(runs, records, i, now, windowDays) } : {}),
      };
      return { ...base, view: suspectView(base, links) };
    });
    const inWindow = watched.filter((d) => d.record.at > since);
    const facts: DeploymentFacts = {
      windowDays,
      known: inWindow.map((d) => d.view),
      ...(inWindow.length ? { suspect: inWindow.at(-1)!.view } : {}),
    };
    const regression = regressionOf(watched, inWindow.length > 0, runs, now, windowDays);
    if (regression) {
      facts.regression = regression;
      const own = watched.find((d) => d.record.deployment === regression.deployment);
      if (own && !facts.known.includes(own.view)) facts.known.push(own.view);
    }
    out.set(claw, { claw, deployments: inWindow, facts });
  }
  return out;
}

/**
 * A regression that still holds: the watch of the Claw's latest live deployment said `regressed`
 * (while it is still the latest: a later one, a fix or a rollback, ends it); with nothing deployed
 * in the window, the quiet watch: this UTC week's runs against the week before.
 */
function regressionOf(
  watched: { record: Deployed; watch?: WatchResult }[],
  deployedInWindow: boolean,
  runs: WatchRun[],
  now: number,
  windowDays: number,
): DeploymentFacts['regression'] {
  // The deployment the Claw serves now: the last that went live, unless a rollback ended it.
  const latest = watched.findLast((d) => d.record.live);
  if (latest?.watch?.verdict === 'regressed' && latest.record.endedAt === undefined)
    return {
      figures: figuresOf(latest.watch),
      deployment: latest.record.deployment,
      signature: `regressed:${latest.record.deployment}`,
    };
  if (deployedInWindow) return undefined;
  const anchor = weekStart(now);
  const quiet = watchDeployment({ runs, deployedAt: anchor, now, windowDays });
  if (quiet.verdict !== 'regressed') return undefined;
  return { figures: figuresOf(quiet), signature: `regressed:quiet:${new Date(anchor).toISOString().slice(0, 10)}` };
}

/** The most deployments the page and status.json list, the newest first (the rest are counted). */
export const MAX_DEPLOYMENT_ROWS = 200;

/** A deployment of the window as the page and status.json show it. */
export interface DeploymentRow {
  claw: string;
  id: string;
  at: number;
  outcome: DeploymentRecord['outcome'];
  commit?: string;
  commitUrl?: string;
  run: string;
  runUrl?: string;
  /** The comparison at deploy time (`baseline: before`), when there was one. */
  gate?: DeploymentRecord['behaviour'];
  /** The watch's verdict; absent for a deployment that did not go live. */
  watch?: WatchResult['verdict'];
  /**
   * What the row is coloured by: `regressed` when the gate or the watch said so; otherwise the
   * watch's verdict once it decided, else the gate's, else `watching` while it watches; null
   * for a deployment that neither went live nor was compared.
   */
  verdict: WatchResult['verdict'] | null;
  figures?: WatchFigures;
  /** An open incident names it as its suspect. */
  suspect: boolean;
  incident?: { number: number; url: string };
}

function verdictOf(gate: DeploymentRow['gate'], watch: DeploymentRow['watch']): DeploymentRow['verdict'] {
  if (gate === 'regressed' || watch === 'regressed') return 'regressed';
  if (watch && watch !== 'watching') return watch;
  return gate ?? watch ?? null;
}

/** The window's deployments of every Claw, newest first, with the incidents that name them. */
export function deploymentRows(
  watches: Map<string, ClawWatch>,
  incidents: Map<string, { number: number; url: string; suspect?: string | null }>,
): DeploymentRow[] {
  const rows: DeploymentRow[] = [];
  for (const { claw, deployments } of watches.values()) {
    const incident = incidents.get(`claw:${claw}`);
    for (const { record, watch, view } of deployments) {
      const named = incident !== undefined && incident.suspect === record.deployment;
      rows.push({
        claw,
        id: record.deployment,
        at: record.at,
        outcome: record.outcome,
        ...(record.commit ? { commit: record.commit } : {}),
        ...(view.commitUrl ? { commitUrl: view.commitUrl } : {}),
        run: record.run,
        ...(view.run.url ? { runUrl: view.run.url } : {}),
        ...(record.behaviour ? { gate: record.behaviour } : {}),
        ...(watch ? { watch: watch.verdict } : {}),
        verdict: verdictOf(record.behaviour, watch?.verdict),
        ...(view.figures ? { figures: view.figures } : {}),
        suspect: named,
        ...(named ? { incident: { number: incident.number, url: incident.url } } : {}),
      });
    }
  }
  return rows.sort((a, b) => b.at - a.at || a.claw.localeCompare(b.claw));
}
