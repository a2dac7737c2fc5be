// A health result as the action's outputs and its job summary.
import type { HealthResult } from '../health/health.js';
import { code, escapeCell, table } from './markdown.js';

export function healthOutputs(result: HealthResult): Record<string, string> {
  const report = result.entries.map((e) => ({
    clawId: e.clawId,
    healthy: e.healthy,
    verdict: e.verdict,
    status: e.status,
    reply: e.reply ?? null,
    latencyMs: e.latencyMs,
    detail: e.detail,
  }));
  return { healthy: String(result.healthy), report: JSON.stringify(report) };
}

export function healthSummary(result: HealthResult): string {
  const rows = result.entries.map((e) => [
    e.healthy ? '✅' : '❌',
    code(e.clawId),
    e.verdict,
    e.status ? code(e.status) : '—',
    e.reply ? escapeCell(e.reply.slice(0, 80)) : '—',
    `${e.latencyMs} ms`,
    escapeCell(e.detail),
  ]);
  const head = `### ${result.healthy ? '✅' : '❌'} Claw health`;
  return `${head}\n\n${escapeCell(result.message)}\n\n${table(['', 'Claw', 'Verdict', 'Status', 'Reply', 'Latency', 'Detail'], rows)}\n`;
}
