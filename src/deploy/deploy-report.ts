// A deploy, wait or rollback result as the action's outputs and its job summary.
import type { DeployResult } from './deploy.js';
import { describeClass } from '../shared/status.js';
import { formatDuration } from '../shared/format.js';
import { code, escapeText, link, table } from '../report/markdown.js';

/** Every deploy output, always set (empty when it does not apply), so later steps can rely on them. */
export function deployOutputs(result: DeployResult): Record<string, string> {
  return {
    'deployment-id': result.deploymentId ?? '',
    status: result.status ?? '',
    outcome: result.outcome ?? '',
    'rolled-back': String(result.rollback?.succeeded ?? false),
    'rollback-id': result.rollback?.id ?? '',
    'rollback-status': result.rollback?.status ?? '',
    url: result.url ?? '',
    duration: result.durationMs === undefined ? '' : String(Math.round(result.durationMs / 100) / 10),
  };
}

const ICON: Record<string, string> = {
  succeeded: '✅',
  triggered: '🚀',
  failed: '❌',
  'timed-out': '⏱️',
  paused: '⏸️',
  cancelled: '🛑',
  error: '⛔',
};

function title(result: DeployResult): string {
  const icon = ICON[result.outcome ?? 'failed'] ?? '❌';
  const claw = result.clawId ? ` of Claw ${code(result.clawId)}` : '';
  if (result.command === 'rollback') {
    return `${result.ok ? '✅' : '❌'} Rollback${claw} ${result.ok ? 'finished' : 'did not finish'}`;
  }
  return `${icon} Deployment${claw}: ${result.outcome ?? 'not started'}`;
}

/** Where the run is on GitHub, for links in the summary. */
export interface SummaryContext {
  runUrl?: string;
  sha?: string;
  commitUrl?: string;
}

export function deploySummary(result: DeployResult, context: SummaryContext = {}): string {
  const rows: string[][] = [];
  if (result.clawId) rows.push(['Claw', code(result.clawId)]);
  if (result.deploymentId) {
    const id = code(result.deploymentId);
    rows.push(['Deployment', link(id, result.url)]);
  }
  if (result.command === 'deploy') rows.push(['Strategy', result.strategy ? code(result.strategy) : 'team default']);
  if (result.outcome) rows.push(['Outcome', `**${result.outcome}**`]);
  if (result.status) rows.push(['Last status', code(result.status)]);
  if (result.startedAt !== undefined)
    rows.push(['Started', `${new Date(result.startedAt).toISOString().slice(0, 19)} UTC`]);
  if (result.durationMs !== undefined) rows.push(['Duration', formatDuration(result.durationMs)]);
  if (result.rollback) {
    const r = result.rollback;
    rows.push([
      'Rollback',
      `${r.succeeded ? '✅' : '❌'} ${link(code(r.id), r.url)}${r.status ? ` ${code(r.status)}` : ''} (${r.form === 'new-deployment' ? 'new deployment' : 'in place'})`,
    ]);
  }
  if (context.sha) rows.push(['Commit', link(code(context.sha.slice(0, 12)), context.commitUrl)]);

  const parts = [`### ${title(result)}`, '', escapeText(result.message), '', table(['Field', 'Value'], rows)];
  if (result.timeline.length > 0) {
    // How long each status held: until the next one (the last one is where it ended).
    const timeline = result.timeline.map((entry, i) => {
      const next = result.timeline[i + 1];
      return [
        `+${formatDuration(entry.atMs)}`,
        code(entry.deploymentId),
        code(entry.status),
        entry.note ? escapeText(entry.note) : describeClass(entry.reading),
        next ? formatDuration(Math.max(0, next.atMs - entry.atMs)) : '—',
      ];
    });
    parts.push('', '#### Timeline', '', table(['Time', 'Deployment', 'Status', 'Read as', 'For'], timeline));
  }
  if (context.runUrl) parts.push('', `<sub>${link('Workflow run', context.runUrl)}</sub>`);
  return `${parts.join('\n')}\n`;
}
