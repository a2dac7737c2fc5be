// A command's table in the terminal (a `table` view: the deployments command's rows): its title, a
// head and the rows, each column as wide as its widest cell. Every cell passes terminalLine (the
// service's words were redacted and cut before): nothing it sends reaches the terminal as a control.
import type { ResultView } from '../contract/command.js';
import { columnsOf, terminalLine } from './terminal.js';

/** The table drawn: an empty cell is a dash, each cut to its column's `max`. */
export function tableText(view: Extract<ResultView, { kind: 'table' }>): string {
  const cells = view.rows.map((row) => row.map((value, i) => (value ? terminalLine(value, view.max[i]) : '—')));
  const { head } = view;
  const widths = head.map((h, i) => Math.max(columnsOf(h), ...cells.map((r) => columnsOf(r[i]))));
  const line = (r: string[]) =>
    r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i] - columnsOf(c)))).join('  ');
  return [`${view.title}:`, `  ${line(head)}`, ...cells.map((r) => `  ${line(r)}`)].join('\n');
}
