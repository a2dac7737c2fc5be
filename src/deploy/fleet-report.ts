// A fleet rollout as the action's outputs and its job summary.
import { type FleetResult, tally } from './fleet.js';
import { formatDuration } from '../shared/format.js';
import { reportOutput } from '../report/report-output.js';
import { code, escapeText, table } from '../report/markdown.js';

/** `outcome`, `duration` and `report`; the single-Claw outputs stay empty for a fleet. */
export function fleetOutputs(result: FleetResult): { outputs: Record<string, string>; notes: string[] } {
  const report = result.entries.map((e) => ({
    clawId: e.clawId,
    wave: e.wave,
    deploymentId: e.deploymentId ?? null,
    status: e.status ?? null,
    outcome: e.outcome,
    rolledBack: e.rolledBack,
    rollbackId: e.rollbackId ?? null,
    durationMs: e.durationMs ?? null,
  }));
  const { json, notes } = reportOutput(report);
  return {
    outputs: { outcome: result.outcome, duration: String(Math.round(result.durationMs / 100) / 10), report: json },
    notes,
  };
}

const ICON: Record<string, string> = {
  succeeded: '✅',
  failed: '❌',
  paused: '⏸️',
  'timed-out': '⏱️',
  cancelled: '🛑',
  error: '⛔',
  skipped: '⏭️',
  'in-progress': '⏳',
};

export function fleetSummary(result: FleetResult): string {
  const t = tally(result.entries);
  const headline = [
    `**${t.deployed}** deployed`,
    `**${t.failed}** failed`,
    `**${t.rolledBack}** rolled back`,
    `**${t.skipped}** skipped`,
  ].join(' · ');
  const rows = result.entries.map((e) => [
    String(e.wave),
    code(e.clawId),
    e.deploymentId ? code(e.deploymentId) : '—',
    e.status ? code(e.status) : '—',
    `${ICON[e.outcome] ?? ''} ${e.outcome}`,
    e.rollbackId ? `${e.rolledBack ? '✅' : '❌'} ${code(e.rollbackId)}` : '—',
    e.durationMs === undefined ? '—' : formatDuration(e.durationMs),
    e.detail ? escapeText(e.detail.slice(0, 300)) : '',
  ]);
  const title = `### ${ICON[result.outcome] ?? '❌'} Fleet rollout: ${result.outcome}`;
  return [
    title,
    '',
    headline,
    '',
    escapeText(result.message),
    '',
    table(['Wave', 'Claw', 'Deployment', 'Status', 'Outcome', 'Rollback', 'Duration', 'Detail'], rows),
    '',
  ].join('\n');
}
