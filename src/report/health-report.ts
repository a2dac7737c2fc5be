// A health result as the action's outputs and its job summary.
import type { HealthResult } from '../health/health.js';
import { type ClawStatus, type DayClass, dayClass, percent } from '../health/uptime.js';
import { code, escapeText, link, table } from './markdown.js';

/** The `report` output stays well under GitHub's 1 MiB limit for a step's outputs. */
export const MAX_REPORT_BYTES = 512 * 1024;

/**
 * The `report` output: a JSON array, cut to whole entries when it would pass `maxBytes`, with a
 * note for the log saying how many were left out.
 */
export function reportOutput(
  entries: unknown[],
  maxBytes = MAX_REPORT_BYTES,
  name = 'report',
): { json: string; notes: string[] } {
  const parts: string[] = [];
  let bytes = 2;
  for (const entry of entries) {
    const part = JSON.stringify(entry);
    const size = Buffer.byteLength(part, 'utf8') + 1;
    if (bytes + size > maxBytes) break;
    parts.push(part);
    bytes += size;
  }
  const left = entries.length - parts.length;
  const cap = `${Math.round(maxBytes / 1024)} KiB`;
  const notes =
    left > 0 ? [`The ${name} output left out ${left} of ${entries.length} entries: it is capped at ${cap}.`] : [];
  return { json: `[${parts.join(',')}]`, notes };
}

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
      'One square a day, oldest first: 🟩 all up, 🟨 a few failures, 🟥 mostly down, ⬜ no data.',
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
