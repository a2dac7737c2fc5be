// The one boundary between the layers and the runner's log. The runner reads stdout as a command
// channel: a line that begins with `::` (after whitespace) or holds `##[` anywhere is obeyed. Every
// line the action logs passes through `sanitizeLogLine`, so service text can neither start a
// line of its own nor hide in control characters.
import { clip, flattenControls } from '../shared/format.js';

/** Longest line written to the log; anything longer is cut with a marker. */
export const MAX_LOG_LINE = 2000;

// ANSI escape sequences (CSI with ESC [ or the one-byte C1 CSI, and OSC ... BEL/ST), removed whole.
// eslint-disable-next-line no-control-regex
const ANSI = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]/g;
/** One safe log line: no control characters, no workflow command, not endless. */
export function sanitizeLogLine(text: string, max = MAX_LOG_LINE): string {
  let line = flattenControls(clip(text, max).replace(ANSI, ''));
  // `##[` anywhere starts a legacy command; `::` at the start (after any whitespace) a current one.
  while (line.includes('##[')) line = line.replaceAll('##[', '# #[');
  if (/^\s*::/u.test(line)) line = `› ${line.trimStart()}`;
  return line;
}
