// The command line's boundary to the terminal: every line the layers log, and every value shown,
// passes through `terminalLine`, so nothing the service sends can move the cursor, recolour the
// screen or hide text: control characters (ESC among them) are shown as visible escapes, `\x1b[`
// as text. Colour and the live line are the tool's own, and only on a TTY without NO_COLOR.
import type { Logger } from '../shared/clock.js';
import { clip } from '../shared/format.js';
import { MAX_LOG_LINE } from '../report/log-line.js';

/* eslint-disable no-control-regex */
const CONTROL_OR_INVISIBLE =
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
/* eslint-enable no-control-regex */

/** One line of visible text: controls shown as escapes (`\x1b`, `\n`, `\u202e`), cut when endless. */
export function terminalLine(text: string, max = MAX_LOG_LINE): string {
  return clip(text, max).replace(CONTROL_OR_INVISIBLE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// Characters a terminal draws two columns wide (East Asian wide and full-width forms, emoji) and
// those it draws over the one before (combining marks): enough to keep a line inside its width.
// Emoji drawn as emoji by default (🚀, ✅, 🛑: Unicode's Emoji_Presentation) are two columns in
// every terminal that follows Unicode 9 or later, wherever their block.
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}/u;
const ZERO_WIDTH = /\p{Mn}|\p{Me}/u;

/** How many columns a terminal gives one character. */
function columnsOfChar(char: string): number {
  if (ZERO_WIDTH.test(char)) return 0;
  return WIDE.test(char) ? 2 : 1;
}

/** How many columns `text` (visible text, no escape sequences) takes. */
export function columnsOf(text: string): number {
  let n = 0;
  for (const char of text) n += columnsOfChar(char);
  return n;
}

/** `text` cut to at most `width` columns, ending in `…` when it was cut. */
export function fitColumns(text: string, width: number): string {
  if (columnsOf(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = columnsOfChar(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return width > 0 ? `${out}…` : '';
}

/** `text` (one visible line) broken into lines of at most `width` columns, at spaces where it can. */
export function wrapColumns(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const word of text.split(/(?<= )/)) {
    const w = columnsOf(word);
    if (used + w > width && line.trim() !== '') {
      lines.push(line.trimEnd());
      line = '';
      used = 0;
    }
    if (w <= width - used) {
      line += word;
      used += w;
      continue;
    }
    for (const char of word) {
      const c = columnsOfChar(char);
      if (used + c > width) {
        lines.push(line);
        line = '';
        used = 0;
      }
      line += char;
      used += c;
    }
  }
  if (line.trim() !== '' || lines.length === 0) lines.push(line.trimEnd());
  return lines;
}

/** The columns a terminal has: what it says, else a width that reads well in a CI log. */
export const columnsFor = (out: { columns?: number }): number => (out.columns && out.columns > 0 ? out.columns : 100);

/** Where a terminal's lines go: a stream, with its width and resizes when it is a TTY. */
export interface TerminalOut {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  on?(event: 'resize', listener: () => void): unknown;
  off?(event: 'resize', listener: () => void): unknown;
}

export interface TerminalOptions {
  /** Where lines go: stderr, so stdout holds the results alone. */
  out: TerminalOut;
  /** Colour and the live line: a TTY, and NO_COLOR unset. */
  color: boolean;
  /** The live line for a wait: a TTY, not disabled by --no-progress or NO_COLOR. */
  progress: boolean;
  verbose: boolean;
  /** The run's redactor: every line written passes through it. */
  redact?: (text: string) => string;
  /** The time, for the live line's seconds and spinner (tests give a clock of their own). */
  now?: () => number;
  /** Calls `tick` every `ms` until the returned stop is called (tests tick by hand). */
  every?: (ms: number, tick: () => void) => () => void;
}

const paint = (on: boolean, code: string, text: string): string => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

/** How long the live line has waited: 7s, 2m05s, 1h02m. */
function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const REDRAW_MS = 120;
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * The layers' Logger, for a person at a terminal (or a CI log): one line per event. While a
 * command waits on a TTY, one live line under them says what it waits on: it always fits the
 * terminal's current width (a column short of it, so no terminal wraps it), and it is drawn with
 * the cursor left at its start, so erasing from the cursor to the end of the screen removes it
 * whole, even where a terminal narrowed since has re-flowed it onto two rows.
 */
export class Terminal implements Logger {
  private live?: { stop: () => void; text: string; since: number; onResize: () => void };
  private readonly now: () => number;

  constructor(private readonly options: TerminalOptions) {
    this.now = options.now ?? Date.now;
  }

  info = (message: string): void => this.line(terminalLine(message));
  warning = (message: string): void =>
    this.line(paint(this.options.color, '33', `warning: ${terminalLine(message)}`), terminalLine(message));
  debug = (message: string): void => {
    if (this.options.verbose) this.line(paint(this.options.color, '2', `debug: ${terminalLine(message)}`));
  };
  // A group names a phase; the live line keeps saying what the last event was.
  startGroup = (name: string): void =>
    this.line(paint(this.options.color, '1', `▸ ${terminalLine(name)}`), this.live?.text);
  endGroup = (): void => {};

  error(message: string): void {
    this.line(paint(this.options.color, '31', `error: ${terminalLine(message)}`));
  }

  /** Writes whole lines the tool made itself (tables), already safe. */
  raw(text: string): void {
    this.clearLive();
    this.write(`${text}\n`);
    this.drawLive();
  }

  /** The columns lines are laid out in: the terminal's, else 100. */
  get columns(): number {
    return columnsFor(this.options.out);
  }

  /** Whether colour is on (a TTY without NO_COLOR), for the tool's own tables. */
  get color(): boolean {
    return this.options.color;
  }

  /** A live line (a spinner, what is awaited, the time so far) while `work` runs; only on a TTY. */
  async whileWaiting<T>(what: string, work: Promise<T>): Promise<T> {
    if (!this.options.progress) return work;
    const every =
      this.options.every ??
      ((ms, tick) => {
        const timer = setInterval(tick, ms);
        return () => clearInterval(timer);
      });
    const onResize = (): void => this.drawLive();
    this.live = {
      text: terminalLine(what),
      since: this.now(),
      stop: every(REDRAW_MS, () => this.drawLive()),
      onResize,
    };
    this.options.out.on?.('resize', onResize);
    this.drawLive();
    try {
      return await work;
    } finally {
      this.stopLive();
    }
  }

  /** Ends the live line and erases it (also before an exit that cannot wait for the work). */
  stopLive(): void {
    const live = this.live;
    if (!live) return;
    live.stop();
    this.options.out.off?.('resize', live.onResize);
    this.clearLive();
    this.live = undefined;
  }

  private write(text: string): void {
    this.options.out.write(this.options.redact?.(text) ?? text);
  }

  private line(text: string, plain: string | undefined = text): void {
    this.clearLive();
    this.write(`${text}\n`);
    // The last event is what the live line says it is waiting on (never with colour codes cut).
    // The line's own "[12s]" is the time the wait began at: the live line shows the one clock.
    if (this.live && plain !== undefined) this.live.text = plain.replace(/^\[\d[\dhms.]*\] /, '');
    this.drawLive();
  }

  private clearLive(): void {
    // The cursor is at the live line's start: erase from there to the end of the screen.
    if (this.live) this.write('\r\u001b[J');
  }

  private drawLive(): void {
    if (!this.live) return;
    const now = this.now();
    const frame = FRAMES[Math.floor(now / REDRAW_MS) % FRAMES.length];
    // Redacted before it is cut, so a secret is never shown in part.
    const rest = ` ${elapsed(now - this.live.since)} · ${this.options.redact?.(this.live.text) ?? this.live.text}`;
    const fitted = fitColumns(rest, this.columns - 2);
    this.write(`\r\u001b[J${paint(true, '36', frame)}${fitted}\r`);
  }
}

/** A two-column table of names and values, padded for a terminal. */
export function table(rows: [string, string][]): string {
  const width = Math.max(0, ...rows.map(([name]) => columnsOf(name)));
  return rows.map(([name, value]) => `  ${name}${' '.repeat(width - columnsOf(name))}  ${value}`).join('\n');
}
