// A line of the action's stdout as the Actions log viewer shows it: the runner obeys workflow
// commands rather than printing them, so the demo does too. A mask and a debug line are never
// shown (debug appears only with step debug logging on), a group is its title with its lines
// indented under it, and an annotation is its message under its kind.

/** The viewer's state across lines: whether a group is open. */
export interface RunnerLog {
  inGroup: boolean;
}

const ANNOTATION: Record<string, string> = { error: 'Error', warning: 'Warning', notice: 'Notice' };

/** What a command's data means once the runner has unescaped it. */
function unescape(data: string): string {
  return data.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%');
}

/** The line as shown, or undefined when the viewer shows nothing for it. */
export function viewLine(line: string, log: RunnerLog): string | undefined {
  const command = /^::([a-z-]+)(?: [^:]*)?::(.*)$/.exec(line);
  const indent = log.inGroup ? '  ' : '';
  if (!command) return `${indent}${line}`;
  const [, name, data] = command;
  if (name === 'add-mask' || name === 'debug') return undefined;
  if (name === 'group') {
    log.inGroup = true;
    return `▾ ${unescape(data)}`;
  }
  if (name === 'endgroup') {
    log.inGroup = false;
    return undefined;
  }
  const kind = ANNOTATION[name];
  if (kind) return `${indent}${kind}: ${unescape(data)}`.replaceAll('\n', `\n${indent}  `);
  return `${indent}${line}`;
}
