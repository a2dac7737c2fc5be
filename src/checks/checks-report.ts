// Conversation checks as the action's outputs and a section of the job summary. Replies are the
// Claw's words (LLM output anyone can steer): they pass the same escaping as every service value.
import { type ChecksResult, failureText, judgeTotals, verdictOf } from './result.js';
import { formatDuration } from '../shared/format.js';
import { MAX_REPORT_BYTES, reportOutput } from '../report/report-output.js';
import { code, escapeText, table } from '../report/markdown.js';

/** `checks-passed` and `checks-report`; both empty when no checks ran. */
export function checksOutputs(result: ChecksResult | undefined): { outputs: Record<string, string>; notes: string[] } {
  if (!result) return { outputs: { 'checks-passed': '', 'checks-report': '' }, notes: [] };
  const report = result.entries.map((e) => ({
    check: e.check,
    clawId: e.clawId,
    passed: e.passed,
    passes: e.passes,
    repeat: e.repeat,
    errors: e.errors,
    latencyMs: e.latencyMs ?? null,
    failure: e.failure ?? null,
    // Which attempt the failure (and the reply it quotes) is: 1-based, of `repeat`.
    ...(e.failedAttempt ? { failedAttempt: e.failedAttempt.attempt } : {}),
    ...(e.judge ? { judge: e.judge } : {}),
  }));
  const { json, notes } = reportOutput(report, MAX_REPORT_BYTES, 'checks-report');
  return { outputs: { 'checks-passed': String(result.passed), 'checks-report': json }, notes };
}

/** The longest stretch of a failure (reply excerpt included) shown in a cell. */
const FAILURE_CELL_CHARS = 300;

/** A summary section: one row per check and Claw. */
export function checksSummary(result: ChecksResult | undefined): string {
  if (!result || result.entries.length === 0) return '';
  const passed = result.entries.filter((e) => e.passed).length;
  const rows = result.entries.map((e) => [
    code(e.clawId),
    escapeText(e.check),
    { passed: '✅ passed', failed: '❌ failed', error: '⚠️ error' }[verdictOf(e)],
    `${e.passes} of ${e.attempts} (needs ${e.minPass} of ${e.repeat})`,
    String(e.errors),
    e.latencyMs === undefined ? '—' : formatDuration(e.latencyMs),
    e.failure ? escapeText(failureText(e).slice(0, FAILURE_CELL_CHARS)) : '',
  ]);
  const judge = judgeTotals(result);
  const judgeLine = judge
    ? `Judge: ${judge.calls} call(s), ${judge.cacheHits} from the cache, ${judge.tokens} token(s)${judge.model ? ` · model ${code(judge.model)}` : ''}${judge.fingerprint ? ` · fingerprint ${code(judge.fingerprint)}` : ''}`
    : '';
  return [
    `#### Conversation checks: ${passed} of ${result.entries.length} passed`,
    '',
    ...(judgeLine ? [judgeLine, ''] : []),
    table(['Claw', 'Check', 'Result', 'Passes', 'Errors', 'Latency', 'Failure'], rows),
    '',
  ].join('\n');
}
