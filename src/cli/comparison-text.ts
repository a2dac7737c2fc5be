// A comparison as the terminal shows it: the verdict, then one row per metric, columns aligned by
// their width on screen. Check names come from the checks file and reasons may quote a judge's
// model: every cell passes terminalLine, so nothing reaches the terminal as a control.
import type { ClawComparison } from '../checks/comparison.js';
import { worstBehaviour } from '../checks/comparison.js';
import { INTERVAL_NOTE, comparisonRows, showChange, showFigure } from '../checks/comparison-report.js';
import { columnsOf, terminalLine, wrapColumns } from './terminal.js';
import { ANSWER_CHARS, type Answer } from '../checks/answers.js';

/** The most metric rows printed; --json has them all. */
const MAX_ROWS = 60;
/** The most questions whose answers are printed side by side; --output has them all. */
const MAX_ANSWERS = 20;

/** One side's reply, as a labelled block: its name and attempt, then the reply's lines, wrapped. */
function answerLines(side: string, a: Answer, width: number): string[] {
  const head = `    ${side} ${terminalLine(a.label, 80)}${a.attempt ? `, ${a.attempt}` : ''}:`;
  if (a.reply === undefined) return [head, '      (no reply kept)'];
  const lines = a.reply.split(/\r?\n/).flatMap((l) => wrapColumns(terminalLine(l, 2 * ANSWER_CHARS), width - 8));
  return [head, ...lines.map((l) => `      │ ${l}`)];
}

/** The answers side by side: per question, the baseline's reply above the candidate's, and what failed. */
export function answersText(list: ClawComparison[], width = 100): string {
  const pairs = list.flatMap(({ clawId, compared }) => (compared.answers ?? []).map((p) => ({ clawId, p })));
  if (pairs.length === 0) return '';
  const several = list.length > 1;
  const lines = [`Answers side by side (each reply cut to ${ANSWER_CHARS} characters):`];
  for (const { clawId, p } of pairs.slice(0, MAX_ANSWERS)) {
    lines.push(
      `  ${several ? `${terminalLine(clawId, 40)} · ` : ''}${terminalLine(p.check, 80)} (${terminalLine(p.why, 120)})`,
    );
    lines.push(...answerLines('baseline ', p.baseline, width), ...answerLines('candidate', p.candidate, width));
    const failed = p.candidate.failure ?? p.baseline.failure;
    if (failed) lines.push(...wrapColumns(`failed: ${terminalLine(failed, 600)}`, width - 4).map((l) => `    ${l}`));
  }
  if (pairs.length > MAX_ANSWERS) lines.push(`  … ${pairs.length - MAX_ANSWERS} more question(s) in --output`);
  return lines.join('\n');
}

export function comparisonText(list: ClawComparison[], color: boolean, width = 100): string {
  const behaviour = worstBehaviour(list.map((c) => c.compared.behaviour));
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const shade = { regressed: '31', improved: '32', inconclusive: '33', unchanged: '2' } as const;
  const several = list.length > 1;
  const rows = comparisonRows(list);
  const cells = rows
    .slice(0, MAX_ROWS)
    .map(({ clawId, m }) => [
      ...(several ? [terminalLine(clawId, 40)] : []),
      terminalLine(m.check === '*' ? '* (suite)' : m.check, 40),
      m.metric,
      `${showFigure(m.metric, m.baseline.value)} n=${m.baseline.n}`,
      `${showFigure(m.metric, m.candidate.value)} n=${m.candidate.n}`,
      showChange(m),
      m.low === null && m.high === null
        ? '—'
        : `${showFigure(m.metric, m.low, true)}…${showFigure(m.metric, m.high, true)}`,
      m.verdict + (m.reason ? ` (${terminalLine(m.reason, 120)})` : ''),
    ]);
  const head = [
    ...(several ? ['claw'] : []),
    'check',
    'metric',
    'baseline',
    'candidate',
    'change',
    '95% interval',
    'verdict',
  ];
  const widths = head.map((h, i) => Math.max(columnsOf(h), ...cells.map((r) => columnsOf(r[i]))));
  const line = (r: string[]) =>
    r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i] - columnsOf(c)))).join('  ');
  const notCompared = list
    .filter((c) => c.compared.behaviour === '' && c.compared.reason)
    .map((c) => `  ${terminalLine(c.clawId, 40)}: ${terminalLine(c.compared.reason!, 300)}`);
  return [
    `Behaviour: ${behaviour ? paint(shade[behaviour], behaviour) : 'nothing compared'}`,
    ...notCompared,
    ...(cells.length ? [`  ${line(head)}`, ...cells.map((r) => `  ${line(r)}`), `  ${INTERVAL_NOTE}`] : []),
    ...(rows.length > cells.length ? [`  … ${rows.length - cells.length} more metric(s) in --json`] : []),
    ...(list.some((c) => c.compared.answers?.length) ? ['', answersText(list, width)] : []),
  ].join('\n');
}
