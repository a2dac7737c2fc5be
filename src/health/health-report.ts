// A health result as the action's outputs and its job summary.
import type { HealthResult } from './health.js';
import { type ClawStatus, DAY_CLASS_TEXT, type DayClass, dayClass, percent } from './uptime.js';
import { code, escapeText, link, table } from '../report/markdown.js';
import { reportOutput } from '../report/report-output.js';

export function healthOutputs(result: HealthResult): { outputs: Record<string, string>; notes: string[] } {
  const report = result.entries.map((e) => ({
    clawId: e.clawId,
    healthy: e.healthy,
    verdict: e.verdict,
    status: e.status,
    reply: e.reply ?? null,
    latencyMs: e.latencyMs ?? null,
    detail: e.detail,
  }));
  const { json, notes } = reportOutput(report);
  return { outputs: { healthy: String(result.healthy), report: json }, notes };
}

export function healthSummary(result: HealthResult): string {
  const rows = result.entries.map((e) => [
    e.healthy ? '✅' : '❌',
    code(e.clawId),
    e.verdict,
    e.status ? code(e.status) : '—',
    e.reply ? code(e.reply.slice(0, 80)) : '—',
    e.latencyMs === undefined ? '—' : `${e.latencyMs} ms`,
    escapeText(e.detail),
  ]);
  const head = `### ${result.healthy ? '✅' : '❌'} Claw health`;
  return `${head}\n\n${escapeText(result.message)}\n\n${table(['', 'Claw', 'Verdict', 'Status', 'Reply', 'Latency', 'Detail'], rows)}\n`;
}

const SQUARE: Record<DayClass, string> = { up: '🟩', minor: '🟨', major: '🟥', none: '⬜' };

/** An incident this run opened, commented, reopened or closed, or one still open. */
export interface IncidentLine {
  /** A Claw's id, or empty for the service. */
  claw: string;
  action: 'opened' | 'commented' | 'reopened' | 'closed' | 'open';
  number: number;
  url: string;
}

/**
 * The strip of the status page for the Claws this run checked (a square a day, oldest first) with
 * their uptime, and the incidents this run touched.
 */
export function healthTimeSummary(statuses: ClawStatus[], incidents: IncidentLine[]): string {
  const parts: string[] = [];
  if (statuses.length) {
    const rows = statuses.map((c) => [
      code(c.claw),
      c.days.map((d) => SQUARE[dayClass(d)]).join(''),
      percent(c.uptime.day),
      percent(c.uptime.week),
      percent(c.uptime.month),
      percent(c.uptime.quarter),
    ]);
    parts.push(
      '#### Last 90 days',
      '',
      `One square a day, oldest first: ${(['up', 'minor', 'major', 'none'] as const).map((c) => `${SQUARE[c]} ${DAY_CLASS_TEXT[c]}`).join(', ')}.`,
      '',
      table(['Claw', '90 days', '24 h', '7 d', '30 d', '90 d'], rows),
    );
  }
  if (incidents.length) {
    const lines = incidents.map((i) => {
      const who = i.claw ? code(i.claw) : 'the service';
      return `- ${i.action === 'open' ? 'still open' : i.action}: ${link(`#${i.number}`, i.url)} (${who})`;
    });
    parts.push('#### Incidents', '', ...lines);
  }
  return parts.length ? `${parts.join('\n')}\n` : '';
}
