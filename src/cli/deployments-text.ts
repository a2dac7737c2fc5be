// The deployments command in the terminal: one row per deployment, from its `deployments` output.
// Every cell passes terminalLine (the service's words were redacted and cut before): nothing it
// sends reaches the terminal as a control.
import { columnsOf, terminalLine } from './terminal.js';

interface Row {
  id?: unknown;
  at?: unknown;
  status?: unknown;
  strategy?: unknown;
  commit?: unknown;
  outcome?: unknown;
  behaviour?: unknown;
  run?: unknown;
}

const cell = (value: unknown, max = 40): string =>
  typeof value === 'string' && value ? terminalLine(value, max) : '—';

/** The table, or undefined when the output holds no list. */
export function deploymentsText(output: string): string | undefined {
  let rows: unknown;
  try {
    rows = JSON.parse(output);
  } catch {
    return undefined;
  }
  if (!Array.isArray(rows) || rows.length === 0) return undefined;
  const head = ['deployment', 'created', 'status', 'strategy', 'commit', 'verdict', 'run'];
  const cells = (rows as Row[]).map((d) => [
    cell(d.id),
    cell(d.at),
    cell(d.status),
    cell(d.strategy),
    typeof d.commit === 'string' ? cell(d.commit.slice(0, 7)) : '—',
    typeof d.outcome === 'string'
      ? cell(`${d.outcome}${typeof d.behaviour === 'string' ? `, behaviour ${d.behaviour}` : ''}`, 60)
      : '—',
    cell(d.run),
  ]);
  const widths = head.map((h, i) => Math.max(columnsOf(h), ...cells.map((r) => columnsOf(r[i]))));
  const line = (r: string[]) =>
    r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i] - columnsOf(c)))).join('  ');
  return ['Deployments, newest first:', `  ${line(head)}`, ...cells.map((r) => `  ${line(r)}`)].join('\n');
}
