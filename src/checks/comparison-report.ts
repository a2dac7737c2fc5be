// A comparison (src/compare/) as the outputs `behaviour` and `comparison` (a contract: these names
// and fields), a job summary's table and a comment's. Check names are the checks file's words,
// and a reason may quote a judge's model: everything is escaped, and the tables are capped.
import { type ClawComparison, worstBehaviour } from './comparison.js';
import type { MetricResult } from '../compare/index.js';
import { MAX_REPORT_BYTES, reportOutput } from '../report/report-output.js';
import { code, escapeText, table } from '../report/markdown.js';
import { ANSWER_CHARS, type Answer, type AnswerPair } from './answers.js';

export type { ClawComparison } from './comparison.js';

/** The most metric rows a summary or a comment shows; the output has them all (to its cap). */
export const MAX_TABLE_ROWS = 40;

/** One `comparison` entry, as the contract names its fields (and `bound`, the one-sided bound the verdict reads). */
export function comparisonEntry(m: MetricResult, clawId?: string): Record<string, unknown> {
  return {
    ...(clawId === undefined ? {} : { clawId }),
    check: m.check,
    metric: m.metric,
    baseline: { value: m.baseline.value, n: m.baseline.n },
    candidate: { value: m.candidate.value, n: m.candidate.n },
    change: m.change,
    low: m.low,
    high: m.high,
    bound: m.bound,
    verdict: m.verdict,
    ...(m.reason ? { reason: m.reason } : {}),
  };
}

/** `behaviour` (the worst over the Claws) and `comparison`; both empty when nothing was compared. */
export function comparisonOutputs(list: ClawComparison[] | undefined): {
  outputs: Record<string, string>;
  notes: string[];
} {
  if (!list || list.length === 0) return { outputs: { behaviour: '', comparison: '' }, notes: [] };
  const several = list.length > 1;
  const entries = list.flatMap(({ clawId, compared }) =>
    compared.metrics.map((m) => comparisonEntry(m, several ? clawId : undefined)),
  );
  const behaviour = worstBehaviour(list.map((c) => c.compared.behaviour));
  const { json, notes } = reportOutput(entries, MAX_REPORT_BYTES, 'comparison');
  return { outputs: { behaviour, comparison: behaviour === '' && entries.length === 0 ? '' : json }, notes };
}

const ICON: Record<string, string> = { regressed: '🔻', improved: '🔺', unchanged: '⚪', inconclusive: '❔' };

/** A figure as a person reads it: shares as percentages, latency in ms, scores to two places. */
export function showFigure(metric: string, value: number | null, signed = false): string {
  if (value === null) return '—';
  const sign = signed && value > 0 ? '+' : '';
  if (metric === 'pass-rate' || metric === 'unjudged') return `${sign}${(value * 100).toFixed(1)}%`;
  if (metric.startsWith('latency')) return `${sign}${Math.round(value)} ms`;
  return `${sign}${value.toFixed(2)}`;
}

/**
 * The change as shown beside the two values: their difference, or (latency's median) the shift
 * within questions, which is not the difference of the two medians shown, so it is named.
 */
export function showChange(m: MetricResult): string {
  const shown = showFigure(m.metric, m.change, true);
  return m.estimator && m.change !== null ? `${shown} (${m.estimator})` : shown;
}

/** The rows a person reads: the verdict's metrics first (the primary ones, then the rest). */
export function comparisonRows(list: ClawComparison[]): { clawId: string; m: MetricResult }[] {
  return list.flatMap(({ clawId, compared }) => compared.metrics.map((m) => ({ clawId, m })));
}

/** What the interval and the verdicts mean, said under every table (docs/comparing.md says more). */
export const INTERVAL_NOTE =
  'The 95% interval is how large a change the data still allow. A metric is regressed (or improved) when its one-sided ' +
  '95% bound (`bound` in the output) lies past its tolerance and its test holds at its share of the 5% that every ' +
  'metric shares; inconclusive when the data cannot speak (too few values, times known too loosely, a check that ' +
  'flipped with too few attempts to tell), or a change is plainly there but may or may not pass its tolerance; ' +
  'unchanged otherwise, saying so when only the shared level kept it unchanged.';

/** The most questions whose answers a summary shows side by side; the checks output has them all. */
export const MAX_ANSWER_ROWS = 20;

/** One side's answer in a cell: which attempt, then the reply as literal text. */
function answerCell(a: Answer): string {
  if (a.reply === undefined) return '*no reply kept*';
  return `${a.attempt ? `*${escapeText(a.attempt)}:* ` : ''}${escapeText(a.reply)}`;
}

/** The answers side by side: a row per question, the baseline's reply beside the candidate's. */
export function answersSummary(list: ClawComparison[]): string {
  const several = list.length > 1;
  const pairs = list.flatMap(({ clawId, compared }) => (compared.answers ?? []).map((p) => ({ clawId, p })));
  if (pairs.length === 0) return '';
  const first: AnswerPair = pairs[0].p;
  const rows = pairs
    .slice(0, MAX_ANSWER_ROWS)
    .map(({ clawId, p }) => [
      ...(several ? [code(clawId)] : []),
      `${escapeText(p.check)} (${escapeText(p.why)})`,
      answerCell(p.baseline),
      answerCell(p.candidate),
      escapeText(p.candidate.failure ?? p.baseline.failure ?? '—'),
    ]);
  const head = [
    ...(several ? ['Claw'] : []),
    'Question',
    `Baseline (${escapeText(first.baseline.label)})`,
    `Candidate (${escapeText(first.candidate.label)})`,
    'Failed assertion',
  ];
  return [
    `##### Answers side by side (each reply cut to ${ANSWER_CHARS} characters)`,
    '',
    table(head, rows),
    '',
    ...(pairs.length > rows.length
      ? [`${pairs.length - rows.length} more question(s) are in the checks output (\`checks-output\`).`, '']
      : []),
  ].join('\n');
}

/** The Markdown section: the verdict, then a table of metrics (capped, escaped). */
export function comparisonSummary(list: ClawComparison[] | undefined, title = 'Behaviour compared'): string {
  if (!list || list.length === 0) return '';
  const behaviour = worstBehaviour(list.map((c) => c.compared.behaviour));
  const several = list.length > 1;
  const rows = comparisonRows(list);
  const shown = rows
    .slice(0, MAX_TABLE_ROWS)
    .map(({ clawId, m }) => [
      ...(several ? [code(clawId)] : []),
      m.check === '*' ? '*(suite)*' : escapeText(m.check),
      code(m.metric),
      `${showFigure(m.metric, m.baseline.value)} (n ${m.baseline.n})`,
      `${showFigure(m.metric, m.candidate.value)} (n ${m.candidate.n})`,
      showChange(m),
      m.low === null && m.high === null
        ? '—'
        : `${showFigure(m.metric, m.low, true)} to ${showFigure(m.metric, m.high, true)}`,
      `${ICON[m.verdict] ?? ''} ${m.verdict}${m.reason ? `: ${escapeText(m.reason.slice(0, 200))}` : ''}`,
    ]);
  const notCompared = list
    .filter((c) => c.compared.behaviour === '' && c.compared.reason)
    .map((c) => `${code(c.clawId)}: ${escapeText(c.compared.reason!)}`);
  const head = [
    ...(several ? ['Claw'] : []),
    'Check',
    'Metric',
    'Baseline',
    'Candidate',
    'Change',
    '95% interval',
    'Verdict',
  ];
  return [
    `#### ${title}: ${behaviour ? `${ICON[behaviour]} **${behaviour}**` : 'nothing compared'}`,
    '',
    ...notCompared.map((line) => `- ${line}`),
    ...(notCompared.length ? [''] : []),
    ...(shown.length ? [table(head, shown), '', INTERVAL_NOTE, ''] : []),
    ...(rows.length > shown.length
      ? [`${rows.length - shown.length} more metric(s) are in the \`comparison\` output.`, '']
      : []),
    answersSummary(list),
  ].join('\n');
}
