// The watch after each deployment, per Claw, from the sealed health records and deployment records
// (docs/health.md, "Which deployment changed behaviour"): each deployment of the window that went
// live is watched with the comparison engine's sequential rule, the health runs since against the
// runs of the window before; the suspect an incident names is decided here. Pure: records in,
// facts out, for the incident rules, status.json and the page.
import { DEFAULT_WINDOW_DAYS, type WatchResult, type WatchRun, quietWatch, watchDeployment } from '../compare/index.js';
import { type SuspectView, type WatchFigures, notNamedText } from './incident-report.js';
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

/**
 * The watch's figures as shown. The sequence's interval is a normal one, so on a large drop it can
 * pass what a change of pass rate can be: shown within it (the after rate between 0 and 1), a
 * display bound only, which never changes a verdict (they read the other end).
 */
export const figuresOf = (w: WatchResult): WatchFigures => {
  const before = w.before.passRate;
  const within = (v: number | null, lo: number, hi: number) => (v === null ? null : Math.min(hi, Math.max(lo, v)));
  const [lo, hi] = before === null ? [-1, 1] : [-before, 1 - before];
  return {
    before: { passRate: before, n: w.before.n, runs: w.before.runs },
    after: { passRate: w.after.passRate, n: w.after.n, runs: w.after.runs },
    change: w.change,
    low: within(w.low, lo, hi),
    high: within(w.high, lo, hi),
  };
};

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

/** The start of the UTC week (Monday 00:00) holding `now`. */
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
 * The runs of a deployment's first runs that the evidence rule allows the change to begin in: a
 * change that begins after the deployment ran this many health runs unchanged (or healthy) is not
 * its doing. The watch's boundary is tightest at 3 runs, so a deployment's own change shows by then.
 */
export const CLEAR_AFTER_RUNS = 3;

/**
 * Where the pass rate of `runs` changed, if it dropped: the single change point of most binomial
 * likelihood (the runs before it at one rate, from it on at a lower one), as the time of the first
 * run after it. Linear in the runs (prefix sums).
 */
export function dropPoint(runs: readonly WatchRun[]): number | undefined {
  const judged = runs.filter((r) => r.passed + r.failed > 0);
  if (judged.length < 2) return undefined;
  const ll = (p: number, n: number) =>
    (p > 0 ? p * Math.log(p / n) : 0) + (n - p > 0 ? (n - p) * Math.log((n - p) / n) : 0);
  const totalP = judged.reduce((t, r) => t + r.passed, 0);
  const totalN = judged.reduce((t, r) => t + r.passed + r.failed, 0);
  let [p, n, best, at] = [0, 0, -Infinity, undefined as number | undefined];
  for (let i = 0; i < judged.length - 1; i++) {
    p += judged[i].passed;
    n += judged[i].passed + judged[i].failed;
    const [p2, n2] = [totalP - p, totalN - n];
    if (p2 / n2 >= p / n) continue; // a rise is no failure
    const score = ll(p, n) + ll(p2, n2);
    if (score > best) [best, at] = [score, judged[i + 1].at];
  }
  return at;
}

/**
 * Whether the change began at the deployment: the drop point falls between the last run before it
 * and its CLEAR_AFTER_RUNS-th run after. Otherwise the time the change began (after: the deployment
 * ran unchanged first; before: it was already there).
 */
function changeAtDeployment(
  runs: readonly WatchRun[],
  deployedAt: number,
  until: number,
  windowDays: number,
): { at: true } | { at: false; changeAt: number } {
  const span = runs.filter((r) => r.at >= deployedAt - windowDays * DAY_MS && r.at <= until);
  const changeAt = dropPoint(span);
  if (changeAt === undefined) return { at: true };
  const after = span.filter((r) => r.at >= deployedAt);
  const lastAllowed = after[CLEAR_AFTER_RUNS - 1]?.at ?? Infinity;
  const before = span.filter((r) => r.at < deployedAt).at(-1)?.at ?? -Infinity;
  return changeAt >= before && changeAt <= lastAllowed ? { at: true } : { at: false, changeAt };
}

/**
 * A regression that still holds: the watch of the Claw's latest live deployment said `regressed`
 * (while it is still the latest: a later one, a fix or a rollback, ends it); named for that
 * deployment only when the change began at it (changeAtDeployment), otherwise a regression that
 * clears it. With nothing deployed in the window, the quiet watch: one CUSUM over the runs.
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
  if (latest?.watch?.verdict === 'regressed' && latest.record.endedAt === undefined) {
    const { deployment, at } = latest.record;
    const evidence = changeAtDeployment(runs, at, latest.watch.decidedAt ?? now, windowDays);
    if (evidence.at) return { figures: figuresOf(latest.watch), deployment, signature: `regressed:${deployment}` };
    return {
      figures: figuresOf(latest.watch),
      cleared: { deployment, deployedAt: at, changeAt: evidence.changeAt },
      signature: `regressed:after:${deployment}`,
    };
  }
  if (deployedInWindow) return undefined;
  // One ongoing CUSUM (compare/watch.ts, quietWatch), never restarted by the calendar.
  const quiet = quietWatch(runs, now);
  if (!quiet.alarm || quiet.since === undefined) return undefined;
  const change =
    quiet.after.passRate === null || quiet.before.passRate === null
      ? null
      : quiet.after.passRate - quiet.before.passRate;
  const side = (s: typeof quiet.before) => ({ passRate: s.passRate, n: s.n, runs: s.runs });
  return {
    figures: { before: side(quiet.before), after: side(quiet.after), change, low: null, high: null },
    // One signature for the whole alarm: as the scan moves on, a drop that lasts may be read from a
    // later first run, and that is no new incident (nor news to comment on).
    signature: 'regressed:quiet',
  };
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
  /** Why an open incident of its Claw does not name it (incident-report.ts's notNamedText): the same words as the issue. */
  notNamed?: string;
  incident?: { number: number; url: string };
}

function verdictOf(gate: DeploymentRow['gate'], watch: DeploymentRow['watch']): DeploymentRow['verdict'] {
  if (gate === 'regressed' || watch === 'regressed') return 'regressed';
  if (watch && watch !== 'watching') return watch;
  return gate ?? watch ?? null;
}

/**
 * The window's deployment an open incident of the Claw does not name, and why: the watch's
 * regression that began after it, or (a failing Claw) the latest deployment when the sealed suspect
 * is none, from the incident's first failing run.
 */
function notNamedOf(
  facts: DeploymentFacts,
  incident: { suspect?: string | null; since?: number } | undefined,
): { id: string; text: string } | undefined {
  if (!incident || incident.suspect) return undefined;
  const cleared = facts.regression?.cleared;
  if (cleared) return { id: cleared.deployment, text: notNamedText(cleared.deployedAt, cleared.changeAt) };
  if (incident.suspect === null && facts.suspect && incident.since !== undefined && !facts.regression)
    return { id: facts.suspect.id, text: notNamedText(facts.suspect.at, incident.since) };
  return undefined;
}

/** The window's deployments of every Claw, newest first, with the incidents that name them. */
export function deploymentRows(
  watches: Map<string, ClawWatch>,
  incidents: Map<string, { number: number; url: string; suspect?: string | null; since?: number }>,
): DeploymentRow[] {
  const rows: DeploymentRow[] = [];
  for (const { claw, deployments, facts } of watches.values()) {
    const incident = incidents.get(`claw:${claw}`);
    const notNamed = notNamedOf(facts, incident);
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
        ...(notNamed?.id === record.deployment ? { notNamed: notNamed.text } : {}),
        ...(named ? { incident: { number: incident.number, url: incident.url } } : {}),
      });
    }
  }
  return rows.sort((a, b) => b.at - a.at || a.claw.localeCompare(b.claw));
}
