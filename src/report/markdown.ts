// Small helpers for the job summary's Markdown. Values from the service are escaped: a status
// word must not be able to break a table or inject HTML.

export function escapeCell(value: string): string {
  return value.replace(/[\\`*|<>[\]]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

export function code(value: string): string {
  return `\`${value.replace(/`/g, "'").replace(/\r?\n/g, ' ')}\``;
}

export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
