// The deployments command's report: the `deployments` output (a JSON array, capped) and the job
// summary's table. Every value from the service was redacted and cut (deployments-list.ts); here
// each is escaped for Markdown.
import { MAX_REPORT_BYTES, reportOutput } from '../report/report-output.js';
import { code, escapeText, link, table } from '../report/markdown.js';
import type { DeploymentsList } from './deployments-list.js';

/** `deployments`: one entry per deployment, newest first. */
export function deploymentsOutputs(list: DeploymentsList): { outputs: Record<string, string>; notes: string[] } {
  const { json, notes } = reportOutput(list.deployments, MAX_REPORT_BYTES, 'deployments');
  return { outputs: { deployments: json }, notes };
}

const OUTCOME: Record<string, string> = {
  succeeded: '✅ succeeded',
  failed: '❌ failed',
  'timed-out': '⏱️ timed out',
  cancelled: '⚪ cancelled',
  'rolled-back': '↩️ rolled back',
};

/** The summary's section: a row per deployment; the record's columns say — where this tool kept none. */
export function deploymentsSummary(list: DeploymentsList): string {
  const title = `#### Deployments of ${code(list.clawId)}, newest first`;
  if (list.deployments.length === 0) return `${title}\n\nNone in the service's recent list.\n`;
  const rows = list.deployments.map((d) => [
    code(d.id),
    d.at ?? '—',
    d.status === null ? '—' : escapeText(d.status),
    d.strategy === null ? '—' : escapeText(d.strategy),
    d.commit ? code(d.commit.slice(0, 7)) : '—',
    d.outcome
      ? `${OUTCOME[d.outcome] ?? escapeText(d.outcome)}${d.behaviour ? `, behaviour ${d.behaviour}` : ''}`
      : '—',
    d.run ? link(escapeText(`run ${d.run}`), d.runUrl) : '—',
  ]);
  const records =
    list.records === 'none'
      ? "Commit, verdict and run come from this tool's records on the history branch: set `history` to read them."
      : list.records === 'unreadable'
        ? 'The history could not be read: commit, verdict and run are not shown.'
        : "Commit, verdict and run: this tool's records on the history branch (— where it made no record).";
  return [
    title,
    '',
    table(['Deployment', 'Created', 'Status', 'Strategy', 'Commit', 'Verdict', 'Run'], rows),
    '',
    records,
    ...(list.more ? ['', 'Older deployments, if any, are not listed.'] : []),
    '',
  ].join('\n');
}
