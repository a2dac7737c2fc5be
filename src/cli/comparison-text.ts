// A comparison as the terminal shows it: the verdict, then one row per metric, columns aligned by
// their width on screen. Check names come from the checks file and reasons may quote a judge's
// model: every cell passes terminalLine, so nothing reaches the terminal as a control.
import type { ClawComparison } from '../checks/comparison.js';
import { worstBehaviour } from '../checks/comparison.js';
import { INTERVAL_NOTE, comparisonRows, showChange, showFigure } from '../checks/comparison-report.js';
import { columnsOf, terminalLine } from './terminal.js';

/** The most metric rows printed; --json has them all. */
const MAX_ROWS = 60;

export function comparisonText(list: ClawComparison[], color: boolean): string {
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
  ].join('\n');
}
