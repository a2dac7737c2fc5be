// A health result as the action's outputs and its job summary.
import type { HealthResult } from '../health/health.js';
import { code, escapeText, table } from './markdown.js';

/** The `report` output stays well under GitHub's 1 MiB limit for a step's outputs. */
export const MAX_REPORT_BYTES = 512 * 1024;

/**
 * A JSON array, cut to whole entries when it would pass `maxBytes`; `left` says how many
 * entries were left out, for a line in the log.
 */
export function cappedJsonArray(entries: unknown[], maxBytes = MAX_REPORT_BYTES): { json: string; left: number } {
  const parts: string[] = [];
  let bytes = 2;
  for (const entry of entries) {
    const part = JSON.stringify(entry);
    const size = Buffer.byteLength(part, 'utf8') + 1;
    if (bytes + size > maxBytes) break;
    parts.push(part);
    bytes += size;
  }
  return { json: `[${parts.join(',')}]`, left: entries.length - parts.length };
}

export function healthOutputs(result: HealthResult): { outputs: Record<string, string>; notes: string[] } {
  const report = result.entries.map((e) => ({
    clawId: e.clawId,
    healthy: e.healthy,
    verdict: e.verdict,
    status: e.status,
    reply: e.reply ?? null,
    latencyMs: e.latencyMs,
    detail: e.detail,
  }));
  const { json, left } = cappedJsonArray(report);
  const notes =
    left > 0 ? [`The report output left out ${left} of ${report.length} entries: it is capped at 512 KiB.`] : [];
  return { outputs: { healthy: String(result.healthy), report: json }, notes };
}

export function healthSummary(result: HealthResult): string {
  const rows = result.entries.map((e) => [
    e.healthy ? '✅' : '❌',
    code(e.clawId),
    e.verdict,
    e.status ? code(e.status) : '—',
    e.reply ? code(e.reply.slice(0, 80)) : '—',
    `${e.latencyMs} ms`,
    escapeText(e.detail),
  ]);
  const head = `### ${result.healthy ? '✅' : '❌'} Claw health`;
  return `${head}\n\n${escapeText(result.message)}\n\n${table(['', 'Claw', 'Verdict', 'Status', 'Reply', 'Latency', 'Detail'], rows)}\n`;
}
