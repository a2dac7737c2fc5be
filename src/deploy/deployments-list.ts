// A Claw's deployments as the deployments command reports them: the service's list, read page by
// page and bounded, joined with this tool's records of them on the history branch (or folder). The service's values are untrusted: each is read by its shape, cut
// to one short line and redacted here, before any report escapes it for its medium.
import type { AmsClient, Deployment } from '../api/client.js';
import type { Clock, Logger } from '../shared/clock.js';
import { clip, flattenControls } from '../shared/format.js';
import type { DeploymentRecord } from '../health/deployment-records.js';
import { HealthHistory } from '../health/history.js';
import { type HealthHost, hostError, isQuiet } from '../health/host.js';
import type { SealKey } from '../shared/seal.js';

/** The longest status or strategy kept from the service. */
const MAX_WORD = 40;

/** One deployment as the command reports it; the record's fields only when this tool recorded it. */
export interface ListedDeployment {
  id: string;
  /** ISO time the service gave, or null. */
  at: string | null;
  status: string | null;
  strategy: string | null;
  commit?: string;
  /** How it ended as this tool saw it (succeeded, rolled-back…), and the comparison's verdict. */
  outcome?: string;
  behaviour?: string;
  /** The workflow run that made it, and its page when known. */
  run?: string;
  runUrl?: string;
}

export interface DeploymentsList {
  clawId: string;
  deployments: ListedDeployment[];
  /** The list went on past what was read (the count or the page bound). */
  more: boolean;
  /** Whether records were read, and how many of the listed deployments have one. */
  records: 'read' | 'none' | 'unreadable';
}

/** A word from the service (a status, a strategy): one line, cut, redacted; null when absent. */
function word(value: unknown, redact: (text: string) => string): string | null {
  if (typeof value !== 'string' || value === '') return null;
  return redact(clip(flattenControls(value), MAX_WORD));
}

/** The service's deployments joined with this tool's records of them (by deployment id). */
export function joinRecords(
  listed: Deployment[],
  records: DeploymentRecord[],
  runUrl: (run: string) => string | undefined,
  redact: (text: string) => string,
): ListedDeployment[] {
  const byId = new Map(records.map((r) => [r.deployment, r]));
  return listed
    .map((d, order) => ({ d, order }))
    .sort((a, b) => (b.d.createdAt ?? -Infinity) - (a.d.createdAt ?? -Infinity) || a.order - b.order)
    .map(({ d }) => {
      const r = byId.get(d.id);
      const url = r?.run ? runUrl(r.run) : undefined;
      return {
        id: redact(d.id),
        at: d.createdAt === undefined ? null : new Date(d.createdAt).toISOString(),
        status: word(d.status, redact),
        strategy: word(d.raw.strategy, redact) ?? (r?.strategy ? redact(r.strategy) : null),
        ...(r?.commit ? { commit: r.commit } : {}),
        ...(r ? { outcome: r.outcome } : {}),
        ...(r?.behaviour ? { behaviour: r.behaviour } : {}),
        ...(r?.run ? { run: r.run } : {}),
        ...(url ? { runUrl: url } : {}),
      };
    });
}

/** The most deployments listed, and the most pages of the service's list read to find them. */
export const MAX_LISTED = 20;
export const MAX_PAGES = 10;

/** What listing needs: the run's client and clock, and the history to join when there is one. */
export interface ListRequest {
  clawId: string;
  /** The history branch (or folder) and its host; none: the service's list alone. */
  history?: { name: string; host: HealthHost; seal: SealKey };
  redact: (text: string) => string;
}

/**
 * The Claw's newest deployments, newest first, joined with this tool's records of them. An unknown
 * Claw is the run's error (could not act), never an empty list; history that cannot be read is one
 * warning, and the list stands without it.
 */
export async function listClawDeployments(
  deps: { client: AmsClient; clock: Clock; log: Logger; signal?: AbortSignal; deadline: number },
  request: ListRequest,
): Promise<DeploymentsList & { pages: number }> {
  const { client, log, clock, signal, deadline } = deps;
  const { clawId, history } = request;
  await client.getClaw(clawId, { deadline, signal });
  const listed = await client.clawDeployments(clawId, { limit: MAX_LISTED, maxPages: MAX_PAGES, deadline, signal });
  let records: DeploymentRecord[] = [];
  let read: DeploymentsList['records'] = 'none';
  if (history) {
    try {
      const branch = new HealthHistory(history.host.branch, {
        clock,
        log,
        signal,
        name: history.name,
        seal: history.seal,
      });
      records = (await branch.load(clock.now())).deployments.filter((r) => r.claw === clawId);
      read = 'read';
    } catch (err) {
      read = 'unreadable';
      if (!isQuiet(err))
        log.warning(
          `History: could not read '${history.name}' (${hostError(err, 'contents: write')}); the deployments are listed without this tool's records.`,
        );
    }
  }
  return {
    clawId,
    deployments: joinRecords(listed.deployments, records, (run) => history?.host.runUrl(run), request.redact),
    more: listed.more,
    records: read,
    pages: listed.pages,
  };
}
