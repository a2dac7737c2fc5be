// Health over time as figures: per Claw, uptime over 24 hours, 7, 30 and 90 days, a 90-day strip
// of daily bars, latency per day with the deployments, and the checks' pass rate. Plain data in,
// plain data out: the status page, status.json, the badges and the job summary render it.
// Uptime counts runs that could tell (healthy or unhealthy); `unknown` runs say nothing either way.
import type { DeploymentRow } from './deployment-watch.js';
import type { HistoryView } from './history.js';
import type { DoraReport } from './dora.js';
import { type ClawRecord, type DailyRecord, type RunStatus, aggregateDay, dayOf, isClawRecord } from './records.js';

export const STRIP_DAYS = 90;
const DAY_MS = 24 * 3600_000;
/**
 * The most Claws the page, status.json and the badges show, the most recently checked first: the
 * history branch may name any number of them (anyone with push access writes it), and every one is
 * a section, an entry and a file written on every run.
 */
export const MAX_CLAWS = 1000;

/**
 * One Claw's day: the same figures a daily record keeps, and the deployments that were new that
 * day (the Claw's deployment changed from the one its previous record named).
 */
export type DayStat = Omit<DailyRecord, 'claw'> & { newDeployments: string[] };

/** A day's bar, by the share of its runs that were up: all, half or more, fewer than half, or none known. */
export type DayClass = 'up' | 'minor' | 'major' | 'none';

export function dayClass(day: DayStat): DayClass {
  const told = day.healthy + day.unhealthy;
  if (told === 0) return 'none';
  if (day.unhealthy === 0) return 'up';
  return day.healthy * 2 >= told ? 'minor' : 'major';
}

/** What each bar says, on the page and in the summary alike. */
export const DAY_CLASS_TEXT: Record<DayClass, string> = {
  up: 'all up',
  minor: 'partly down (half the runs or more up)',
  major: 'mostly down (fewer than half the runs up)',
  none: 'no data',
};

/** Healthy runs among those that could tell, 0 to 1; undefined when none could. */
export function uptimeOf(stats: { healthy: number; unhealthy: number }[]): number | undefined {
  const healthy = stats.reduce((n, s) => n + s.healthy, 0);
  const told = healthy + stats.reduce((n, s) => n + s.unhealthy, 0);
  return told === 0 ? undefined : healthy / told;
}

export interface ClawStatus {
  claw: string;
  /** The latest run's reading of it. */
  current?: RunStatus;
  lastCheckedAt?: number;
  uptime: { day?: number; week?: number; month?: number; quarter?: number };
  /** The last 90 days, oldest first, today last; days without runs have `runs: 0`. */
  days: DayStat[];
  /** Checks passed among those run over the 90 days, and how many ran. */
  checks?: { rate: number; passed: number; total: number };
  /** Its open incident, when there is one. */
  incident?: { number: number; url: string };
}

export interface StatusModel {
  generatedAt: number;
  /** `owner/repo`, for the page's title; '' outside GitHub. */
  repository: string;
  claws: ClawStatus[];
  /** An open incident about the service or the key. */
  serviceIncident?: { number: number; url: string; title: string };
  /** Incidents open after this run, and those this run closed, as the run knows them. */
  incidents?: { title: string; number: number; url: string; state: 'open' | 'closed' }[];
  /** Claws of the history past MAX_CLAWS, left out. */
  leftOut?: number;
  /** The deployments of the watch's window, newest first, and the window in days. */
  deployments?: { windowDays: number; rows: DeploymentRow[] };
  /** The figures teams track, from the deployment records (dora-report.ts renders them). */
  dora?: DoraReport;
}

/** The Claws the history names in the last 90 days, the most recently checked first. */
export function clawIds(view: HistoryView, now: number): string[] {
  const first = dayOf(now - (STRIP_DAYS - 1) * DAY_MS);
  const seen = new Map<string, number>();
  const saw = (claw: string, at: number): void => void seen.set(claw, Math.max(seen.get(claw) ?? 0, at));
  for (const d of view.daily) if (d.day >= first) saw(d.claw, Date.parse(`${d.day}T00:00:00Z`));
  for (const r of view.recent) if (isClawRecord(r) && dayOf(r.at) >= first) saw(r.claw, r.at);
  return [...seen].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([claw]) => claw);
}

/**
 * Each Claw's figures from what the history holds (this run's records included), worst first. The
 * Claws this run `checked` are always among them, however many others the history names.
 */
export function clawStatuses(view: HistoryView, now: number, checked: string[] = []): ClawStatus[] {
  const today = dayOf(now);
  const claws = new Set([...new Set([...checked, ...clawIds(view, now)])].slice(0, MAX_CLAWS));
  const clawRecords = view.recent.filter((r) => isClawRecord(r) && claws.has(r.claw)) as ClawRecord[];
  const days = Array.from({ length: STRIP_DAYS }, (_, i) => dayOf(now - (STRIP_DAYS - 1 - i) * DAY_MS));
  const out: ClawStatus[] = [];
  for (const claw of [...claws].sort()) {
    const own = clawRecords.filter((r) => r.claw === claw);
    const folded = new Map<string, DailyRecord>(view.daily.filter((d) => d.claw === claw).map((d) => [d.day, d]));
    const raw = new Map<string, ClawRecord[]>();
    for (const r of own) raw.set(dayOf(r.at), [...(raw.get(dayOf(r.at)) ?? []), r]);
    let previous: string | undefined;
    const stats: DayStat[] = days.map((day) => {
      const kept = day === today ? undefined : folded.get(day);
      const daily = kept ?? (raw.has(day) ? aggregateDay(day, claw, raw.get(day)!) : undefined);
      if (!daily) return { day, runs: 0, healthy: 0, unhealthy: 0, unknown: 0, deployments: [], newDeployments: [] };
      const { runs, healthy, unhealthy, unknown, latencyP50, latencyP95, checks, deployments } = daily;
      // A deployment is new where the id changed; the first one the history shows may be older.
      const newDeployments = deployments.filter((id, i) =>
        i === 0 ? previous !== undefined && id !== previous : true,
      );
      previous = deployments.at(-1) ?? previous;
      return { day, runs, healthy, unhealthy, unknown, latencyP50, latencyP95, checks, deployments, newDeployments };
    });
    const last = own.filter((r) => r.at <= now).at(-1) ?? own.at(-1);
    const lastDays = (n: number): DayStat[] => stats.slice(-n);
    const checks = stats.reduce(
      (sum, d) => ({
        passed: sum.passed + (d.checks?.passed ?? 0),
        total: sum.total + (d.checks ? d.checks.passed + d.checks.failed + d.checks.errors : 0),
      }),
      { passed: 0, total: 0 },
    );
    const dayRecords = own.filter((r) => r.at > now - DAY_MS);
    out.push({
      claw,
      current: last?.status,
      lastCheckedAt: last?.at,
      uptime: {
        day: uptimeOf(
          dayRecords.map((r) => ({
            healthy: Number(r.status === 'healthy'),
            unhealthy: Number(r.status === 'unhealthy'),
          })),
        ),
        week: uptimeOf(lastDays(7)),
        month: uptimeOf(lastDays(30)),
        quarter: uptimeOf(lastDays(90)),
      },
      days: stats,
      ...(checks.total ? { checks: { rate: checks.passed / checks.total, ...checks } } : {}),
    });
  }
  return out.sort(worstFirst);
}

const RANK: Record<RunStatus, number> = { unhealthy: 0, unknown: 1, healthy: 2 };

/** Down first, then unknown, then up; within each, the lower uptime (24 hours, then 7 days) first. */
function worstFirst(a: ClawStatus, b: ClawStatus): number {
  return (
    RANK[a.current ?? 'unknown'] - RANK[b.current ?? 'unknown'] ||
    (a.uptime.day ?? 1) - (b.uptime.day ?? 1) ||
    (a.uptime.week ?? 1) - (b.uptime.week ?? 1) ||
    a.claw.localeCompare(b.claw)
  );
}

/** A share as people read it: 99.95 %, 100 %, or — when nothing is known. */
export function percent(value: number | undefined): string {
  if (value === undefined) return '—';
  if (value === 1) return '100%';
  // Never round a failure up to 100 %.
  const digits = value >= 0.99 ? 2 : 1;
  const text = (Math.floor(value * 100 * 10 ** digits) / 10 ** digits).toFixed(digits);
  return `${text}%`;
}
