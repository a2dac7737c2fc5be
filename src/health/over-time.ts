// Health over time, after a run has checked its Claws: read the history, keep the incidents, append
// this run's records and render the status page into the branch, in that order. Each part that
// cannot talk to GitHub says so in one warning and the run still reports health; without a
// readable history, incidents count this run only.
import type { Clock, Logger } from '../shared/clock.js';
import { failingReply, failureText, verdictOf } from '../checks/result.js';
import { DEFAULT_WINDOW_DAYS } from '../compare/index.js';
import { clip } from '../shared/format.js';
import { allBadge, clawBadge } from './badge.js';
import { statusJson, statusPage } from './status-page.js';
import type { SealKey } from '../shared/seal.js';
import type { HealthEntry, HealthResult } from './health.js';
import { HealthHistory, type HistoryView } from './history.js';
import { type ClawWatch, deploymentRows, watchClaws } from './deployment-watch.js';
import { type DoraReport, doraOf } from './dora.js';
import { type FileChange, type HealthHost, hostError, isQuiet } from './host.js';
import { type IncidentOptions, type IncidentOutcome, type Observation, trackIncidents } from './incidents.js';
import { type ClawRecord, type RunRecord, type ServiceState, isClawRecord } from './records.js';
import { type ClawStatus, type StatusModel, clawIds, clawStatuses } from './uptime.js';

export interface OverTimeRequest {
  /** The history branch. */
  branch: string;
  statusPage: boolean;
  /** Incidents, when on. */
  incidents?: IncidentOptions;
  seal: SealKey;
  /** The run's redactor: every file, issue and comment passes through it. */
  redact: (text: string) => string;
  repository: string;
  /** The run checked every Claw of the workspace (`*`). */
  listedAll: boolean;
  /** `https://github.com` or the enterprise server: for links to commits. */
  serverUrl?: string;
}

/** What the run found: its Claws' entries, and how the service answered. */
export interface CheckedRun {
  result?: HealthResult;
  service: ServiceState;
  /** Why the service is down or refused the key. */
  serviceProblem?: string;
}

export interface OverTimeResult {
  /** Figures of the Claws this run checked, when the history could be read. */
  statuses: ClawStatus[];
  incidents?: IncidentOutcome;
  /** The history was written (with the page, when asked for). */
  written: boolean;
  /** The figures teams track, from the deployment records read (none when the history could not be read). */
  dora?: DoraReport;
  /** The history's own parts found cut since the action wrote them: one line each, for the summary. */
  historyCuts?: string[];
}

/** Reads the service's state off a run's entries: failing for every Claw is the service failing. */
export function serviceOf(result: HealthResult): ServiceState {
  const { entries } = result;
  return entries.length > 0 && entries.every((e) => e.verdict === 'unknown' && e.cause === 'service') ? 'down' : 'up';
}

export async function healthOverTime(
  ctx: { clock: Clock; log: Logger; signal?: AbortSignal },
  host: HealthHost,
  request: OverTimeRequest,
  checked: CheckedRun,
): Promise<OverTimeResult> {
  const { clock, log } = ctx;
  const now = clock.now();
  const checkedIds = (checked.result?.entries ?? []).map((e) => e.clawId);
  // With `*` the run knows every Claw the service lists: lines about any other are not its own.
  const known = request.listedAll && checked.result ? new Set(checkedIds) : undefined;
  const history = new HealthHistory(host.branch, { ...ctx, name: request.branch, seal: request.seal, known });
  let view: HistoryView | undefined;
  try {
    view = await history.load(now);
  } catch (err) {
    if (!isQuiet(err))
      log.warning(
        `History: could not read the branch '${request.branch}' (${hostError(err, 'contents: write')}); this run's incidents count this run only.`,
      );
  }
  const records = recordsOf(checked, now, host.runId);
  // The watch and the suspects read sealed records only: without a readable history, none.
  const watches = view && watchesOf(view, records, now, checkedIds, host, request);
  let incidents: IncidentOutcome | undefined;
  if (request.incidents) {
    incidents = await trackIncidents(
      {
        issues: host.issues,
        log,
        seal: request.seal,
        redact: request.redact,
        now,
        runId: host.runId,
        runUrl: host.runUrl,
      },
      request.incidents,
      observationsOf(checked, watches),
      view?.recent ?? [],
      request.listedAll && checked.result !== undefined,
    );
  }
  const rows = watches && deploymentRows(watches, incidents?.open ?? new Map());
  const model = (v: HistoryView): StatusModel => {
    const claws = clawStatuses(v, now, checkedIds).map((c) => {
      const open = incidents?.open.get(`claw:${c.claw}`);
      return open ? { ...c, incident: { number: open.number, url: open.url } } : c;
    });
    const service = incidents?.open.get('service');
    const leftOut = new Set([...checkedIds, ...clawIds(v, now)]).size - claws.length;
    const listed = [
      ...[...(incidents?.open.values() ?? [])].map((i) => ({ ...i, state: 'open' as const })),
      ...(incidents?.actions ?? [])
        .filter((a) => a.action === 'closed')
        .map((a) => ({
          title: 'claw' in a.subject ? `${a.subject.claw}: incident closed` : 'The service: incident closed',
          number: a.number,
          url: a.url,
          state: 'closed' as const,
        })),
    ];
    return {
      generatedAt: now,
      repository: request.repository,
      claws,
      dora: doraOf(v, incidents?.spans ?? [], now),
      ...(service ? { serviceIncident: service } : {}),
      ...(listed.length ? { incidents: listed } : {}),
      ...(leftOut > 0 ? { leftOut } : {}),
      ...(rows ? { deployments: { windowDays: DEFAULT_WINDOW_DAYS, rows } } : {}),
    };
  };
  let written: HistoryView | undefined;
  try {
    const down = records.filter((r) => isClawRecord(r) && r.status === 'unhealthy').length;
    const claws = records.filter(isClawRecord).length;
    const message = `health: ${host.runId ? `run ${host.runId}, ` : ''}${claws} Claw(s)${down ? `, ${down} down` : ''}${checked.service !== 'up' ? `, service ${checked.service}` : ''}`;
    const saved = await history.save(
      now,
      records,
      (v) => (request.statusPage ? pageFiles(model(v), v.paths, request.redact) : []),
      message,
    );
    written = saved.view;
    log.info(
      `History: kept ${records.length} record(s) on '${request.branch}'${request.statusPage ? ' and rendered the status page' : ''}.`,
    );
  } catch (err) {
    if (!isQuiet(err))
      log.warning(
        `History: could not write to the branch '${request.branch}' (${hostError(err, 'contents: write')}); this run's records are not kept. Health is reported as usual.`,
      );
  }
  const past = written ?? (view && { ...view, recent: [...view.recent, ...records] });
  const final = past && model(past);
  const statuses = final ? final.claws.filter((c) => checkedIds.includes(c.claw)) : [];
  const dora = final?.dora ? { dora: final.dora } : {};
  const cuts = history.cuts.length ? { historyCuts: [...history.cuts] } : {};
  return { statuses, incidents, written: written !== undefined, ...dora, ...cuts };
}

/** index.html, status.json, the badges, and `.nojekyll` so Pages serves the files as they are. */
function pageFiles(model: StatusModel, paths: string[], redact: (text: string) => string): FileChange[] {
  // A file's name is public too: a Claw id holding a secret is redacted there as in the files.
  const badges = new Map(model.claws.map((c) => [`badges/${redact(c.claw)}.svg`, c]));
  const stale = paths.filter((p) => p.startsWith('badges/') && !badges.has(p));
  return [
    { path: 'index.html', content: redact(statusPage(model)) },
    { path: 'status.json', content: redact(statusJson(model)) },
    { path: 'badge.svg', content: redact(allBadge(model.claws)) },
    ...[...badges].map(([path, claw]) => ({ path, content: redact(clawBadge(claw)) })),
    ...stale.map((path) => ({ path, content: null })),
    ...(paths.includes('.nojekyll') ? [] : [{ path: '.nojekyll', content: '' }]),
  ];
}

function recordsOf(checked: CheckedRun, at: number, run: string): RunRecord[] {
  const records: RunRecord[] = [{ at, run, service: checked.service }];
  const checks = checked.result?.checks?.entries ?? [];
  for (const e of checked.result?.entries ?? []) {
    const own = checks.filter((c) => c.clawId === e.clawId);
    const record: ClawRecord = { at, run, claw: e.clawId, status: e.verdict };
    if (e.verdict !== 'unknown') record.latencyMs = e.latencyMs;
    if (own.length) {
      record.checks = {
        passed: own.filter((c) => c.passed).length,
        failed: own.filter((c) => verdictOf(c) === 'failed').length,
        errors: own.filter((c) => verdictOf(c) === 'error').length,
      };
      const scores = own.flatMap((c) => c.judge?.scores ?? []).slice(0, 50);
      if (scores.length) record.scores = scores;
    }
    if (e.deploymentId) record.deployment = e.deploymentId;
    records.push(record);
  }
  return records;
}

/** Each Claw's watched deployments and suspect, from the history and this run's records. */
function watchesOf(
  view: HistoryView,
  records: RunRecord[],
  now: number,
  claws: string[],
  host: HealthHost,
  request: OverTimeRequest,
): Map<string, ClawWatch> {
  const repositoryUrl =
    request.serverUrl && request.repository ? `${request.serverUrl}/${request.repository}` : undefined;
  return watchClaws({
    runs: [...view.recent, ...records],
    deployments: view.deployments,
    now,
    claws,
    links: { run: host.runUrl, ...(repositoryUrl ? { repositoryUrl } : {}) },
  });
}

function observationsOf(checked: CheckedRun, watches: Map<string, ClawWatch> | undefined): Observation[] {
  const service: Observation =
    checked.service === 'up'
      ? { subject: { service: true }, status: 'healthy' }
      : {
          subject: { service: true },
          status: 'unhealthy',
          failing: {
            signature: checked.service,
            title:
              checked.service === 'refused'
                ? 'The API key is refused by the Agent Management Service'
                : 'The Agent Management Service is failing',
            view: { summary: checked.serviceProblem ?? `the service is ${checked.service}` },
          },
        };
  const checks = checked.result?.checks?.entries ?? [];
  const claws = (checked.result?.entries ?? []).map((e): Observation => {
    const facts = watches?.get(e.clawId)?.facts;
    const deployments = facts ? { deployments: facts } : {};
    if (e.verdict !== 'unhealthy') return { subject: { claw: e.clawId }, status: e.verdict, ...deployments };
    return { subject: { claw: e.clawId }, status: 'unhealthy', failing: failingOf(e, checks), ...deployments };
  });
  return [service, ...claws];
}

function failingOf(e: HealthEntry, checks: NonNullable<HealthResult['checks']>['entries']): Observation['failing'] {
  const kind = e.failure?.kind ?? 'down';
  const names = e.failure?.checks ?? [];
  const failed = checks.filter((c) => c.clawId === e.clawId && verdictOf(c) === 'failed');
  const title =
    kind === 'down'
      ? `${e.clawId} is down`
      : kind === 'probe'
        ? `${e.clawId} fails its probe`
        : `${e.clawId} fails its checks: ${clip(names.join(', '), 120)}`;
  return {
    signature: kind === 'checks' ? `checks:${names.join(',')}` : kind,
    title,
    view: {
      summary: e.detail,
      ...(e.status ? { status: e.status } : {}),
      ...(e.reply !== undefined ? { reply: e.reply } : {}),
      ...(failed.length
        ? { checks: failed.map((c) => ({ name: c.check, failure: failureText(c), reply: failingReply(c) })) }
        : {}),
    },
  };
}
