// The command line's boundary to the terminal: every line the layers log, and every value shown,
// passes through `terminalLine`, so nothing the service sends can move the cursor, recolour the
// screen or hide text: control characters (ESC among them) are shown as visible escapes, `\x1b[`
// as text. Colour and the live line are the tool's own, and only on a TTY without NO_COLOR.
import type { Logger } from '../clock.js';
import { clip } from '../format.js';
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

export interface TerminalOptions {
  /** Where lines go (stdout, or stderr with --json so stdout holds only the JSON). */
  out: NodeJS.WritableStream & { isTTY?: boolean };
  /** Colour and the live line: a TTY, and NO_COLOR unset. */
  color: boolean;
  /** The live line for a wait: a TTY, not disabled by --no-progress or NO_COLOR. */
  progress: boolean;
  verbose: boolean;
  /** The run's redactor: every line written passes through it. */
  redact?: (text: string) => string;
}

const paint = (on: boolean, code: string, text: string): string => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

/** The layers' Logger, for a person at a terminal (or a CI log): one line per event. */
export class Terminal implements Logger {
  private live?: { timer: NodeJS.Timeout; text: string; since: number };
  private readonly frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

  constructor(private readonly options: TerminalOptions) {}

  info = (message: string): void => this.line(terminalLine(message));
  warning = (message: string): void =>
    this.line(paint(this.options.color, '33', `warning: ${terminalLine(message)}`), terminalLine(message));
  debug = (message: string): void => {
    if (this.options.verbose) this.line(paint(this.options.color, '2', `debug: ${terminalLine(message)}`));
  };
  startGroup = (name: string): void => this.line(paint(this.options.color, '1', `▸ ${terminalLine(name)}`));
  endGroup = (): void => {};

  error(message: string): void {
    this.line(paint(this.options.color, '31', `error: ${terminalLine(message)}`));
  }

  /** Writes whole lines the tool made itself (tables), already safe. */
  raw(text: string): void {
    this.clearLive();
    this.options.out.write(`${this.redact(text)}\n`);
    this.drawLive();
  }

  /** A live line (a spinner, what is awaited, the time so far) while `work` runs; only on a TTY. */
  async whileWaiting<T>(what: string, work: Promise<T>): Promise<T> {
    if (!this.options.progress) return work;
    this.live = { text: terminalLine(what, 80), since: Date.now(), timer: setInterval(() => this.drawLive(), 120) };
    try {
      return await work;
    } finally {
      clearInterval(this.live.timer);
      this.clearLive();
      this.live = undefined;
    }
  }

  private readonly redact = (text: string): string => this.options.redact?.(text) ?? text;

  private line(text: string, plain = text): void {
    this.clearLive();
    this.options.out.write(`${this.redact(text)}\n`);
    // The last event is what the live line says it is waiting on (never with colour codes cut).
    if (this.live) this.live.text = clip(this.redact(plain), 80);
    this.drawLive();
  }

  private clearLive(): void {
    if (this.live) this.options.out.write('\r\u001b[2K');
  }

  private drawLive(): void {
    if (!this.live) return;
    const seconds = Math.floor((Date.now() - this.live.since) / 1000);
    const frame = this.frames[Math.floor(Date.now() / 120) % this.frames.length];
    this.options.out.write(`\r\u001b[2K${paint(true, '36', frame)} ${seconds}s · ${this.live.text}`);
  }
}

/** A two-column table of names and values, padded for a terminal. */
export function table(rows: [string, string][]): string {
  const width = Math.max(0, ...rows.map(([name]) => name.length));
  return rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`).join('\n');
}
