// The deployments command's table for the terminal, from its `deployments` output (the same capped
// JSON the action sets): one row per deployment, newest first. The command line draws it as any
// command's table, so no entry reads that output by its name.

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

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The table, or undefined when the output holds no list. */
export function deploymentsView(
  output: string,
): { kind: 'table'; title: string; head: string[]; max: number[]; rows: string[][] } | undefined {
  let rows: unknown;
  try {
    rows = JSON.parse(output);
  } catch {
    return undefined;
  }
  if (!Array.isArray(rows) || rows.length === 0) return undefined;
  return {
    kind: 'table',
    title: 'Deployments, newest first',
    head: ['deployment', 'created', 'status', 'strategy', 'commit', 'verdict', 'run'],
    max: [40, 40, 40, 40, 40, 60, 40],
    rows: (rows as Row[]).map((d) => [
      text(d.id),
      text(d.at),
      text(d.status),
      text(d.strategy),
      text(d.commit).slice(0, 7),
      typeof d.outcome === 'string'
        ? `${d.outcome}${typeof d.behaviour === 'string' ? `, behaviour ${d.behaviour}` : ''}`
        : '',
      text(d.run),
    ]),
  };
}
