// What the command line writes, and where: results on stdout (a person's summary, or one JSON
// object with --json), diagnostics on stderr (the log, warnings, errors, the live line). Every
// byte passes through the run's redactor. A reader that went away (`| head -n 2` closing the pipe,
// EPIPE) stops the writes to that stream and nothing else: the run goes on, rolls back as its
// policy says, and exits with its own code.
import { type ChecksResult, attemptLabel, failingReply, failureText, verdictOf } from '../checks/result.js';
import type { ManifestResult } from '../manifest/result.js';
import { planBlocks, planCounts } from '../manifest/plan-report.js';
import type { ExitCode } from './exit-codes.js';
import { columnsOf, table, terminalLine, wrapColumns } from './terminal.js';

/** The streams the command line writes to (process.stdout, process.stderr, or a test's). */
export type Stream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; destroyed?: boolean };

/** A stream that redacts every write and, once its reader is gone, drops writes instead of failing. */
export class Output {
  private closed = false;

  constructor(
    private readonly stream: Stream,
    private readonly redact: (text: string) => string,
  ) {
    // Without a listener an EPIPE would be thrown at the run; with it, the stream is only closed.
    stream.on('error', () => {
      this.closed = true;
    });
  }

  get isTTY(): boolean {
    return this.stream.isTTY === true;
  }

  get columns(): number | undefined {
    return this.stream.columns;
  }

  /** Whether writes still reach a reader. */
  get open(): boolean {
    return !this.closed && this.stream.destroyed !== true;
  }

  write(text: string): boolean {
    if (!this.open) return false;
    try {
      return this.stream.write(this.redact(text));
    } catch {
      this.closed = true;
      return false;
    }
  }

  on(event: 'resize', listener: () => void): void {
    this.stream.on(event, listener);
  }

  off(event: 'resize', listener: () => void): void {
    this.stream.off?.(event, listener);
  }
}

/** Outputs whose text is a boolean, a number, or JSON: --json gives them as values, not strings. */
const BOOLEAN_OUTPUTS = new Set(['rolled-back', 'healthy', 'checks-passed']);
const NUMBER_OUTPUTS = new Set(['duration', 'changes', 'regressions']);
const JSON_OUTPUTS = new Set(['checks-report', 'report', 'plan', 'previews', 'comparison', 'deployments']);

export type { ExitCode };

/**
 * The one JSON object of --json: the outcome, the exit code, the message, and the outputs the
 * action would set, each typed (true/false as booleans, counts and seconds as numbers, reports and
 * plans as arrays and objects). Its shape is the JSON Schema in docs/cli.md.
 */
export function jsonResult(
  outputs: Record<string, string>,
  fields: { outcome: string; exitCode: ExitCode; message: string },
): Record<string, unknown> {
  const typed: Record<string, unknown> = {
    outcome: fields.outcome,
    'exit-code': fields.exitCode,
    message: fields.message,
  };
  for (const [name, text] of Object.entries(outputs)) {
    if (text === '' || name === 'outcome') continue;
    if (BOOLEAN_OUTPUTS.has(name)) typed[name] = text === 'true';
    else if (NUMBER_OUTPUTS.has(name) && Number.isFinite(Number(text))) typed[name] = Number(text);
    else if (JSON_OUTPUTS.has(name)) typed[name] = parsedOr(text);
    else typed[name] = text;
  }
  return typed;
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const paint = (on: boolean, code: string, text: string): string => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

/** The outputs a person reads in the table: the short ones (the long JSON ones are in --json). */
export function outputsTable(outputs: Record<string, string>): string {
  const rows: [string, string][] = Object.entries(outputs)
    .filter(([name, value]) => value !== '' && !JSON_OUTPUTS.has(name))
    .map(([name, value]) => [name, terminalLine(value, 120)]);
  return rows.length ? `Outputs:\n${table(rows)}` : '';
}

/** How many lines of a failed check's reply are shown (wrapped to the width); --json has it whole. */
export const REPLY_LINES = 8;

/** The checks as a table; under each that did not pass, which attempt failed and the start of its reply, wrapped to `width`. */
export function checksTable(result: ChecksResult, width: number, color: boolean): string {
  const lines = [`Checks (${result.entries.filter((e) => e.passed).length} of ${result.entries.length} passed):`];
  const nameWidth = Math.max(...result.entries.map((e) => columnsOf(terminalLine(`${e.clawId} · ${e.check}`, 80))));
  for (const e of result.entries) {
    const name = terminalLine(`${e.clawId} · ${e.check}`, 80);
    const verdict = verdictOf(e);
    const mark = {
      passed: paint(color, '32', '✔ passed'),
      failed: paint(color, '31', '✘ failed'),
      error: paint(color, '33', '! error'),
    }[verdict];
    lines.push(`  ${name}${' '.repeat(nameWidth - columnsOf(name))}  ${mark} ${e.passes}/${e.attempts}`);
    if (e.passed) continue;
    const indent = '      ';
    if (e.failure)
      lines.push(
        ...wrapColumns(terminalLine(failureText(e), 600), width - indent.length - 1).map((l) => `${indent}${l}`),
      );
    // The failing attempt's own reply: a later attempt's may have passed.
    const reply = failingReply(e);
    const label = attemptLabel(e);
    if (reply !== undefined)
      lines.push(...replyLines(reply, indent, width, color, label ? `reply of ${label}:` : 'reply:'));
  }
  return lines.join('\n');
}

/** A reply as it reads, under what it failed: its own lines, each wrapped, the first few of them. */
function replyLines(reply: string, indent: string, width: number, color: boolean, title = 'reply:'): string[] {
  const wrapped = reply
    .split(/\r?\n/)
    .flatMap((line) => wrapColumns(terminalLine(line, 2000), width - indent.length - 3));
  const shown = wrapped.slice(0, REPLY_LINES);
  const lines = [`${indent}${title}`, ...shown.map((l) => `${indent}${paint(color, '2', '│')} ${l}`)];
  if (wrapped.length > shown.length) {
    lines.push(`${indent}${paint(color, '2', `… ${wrapped.length - shown.length} more line(s)`)}`);
  }
  return lines;
}

/**
 * health's Claws that are not healthy (from its `report` output), each with why and the reply that
 * failed the probe, as the checks show theirs; undefined when every Claw is healthy.
 */
export function unhealthyText(report: string, width: number, color: boolean): string | undefined {
  let entries: unknown;
  try {
    entries = JSON.parse(report);
  } catch {
    return undefined;
  }
  if (!Array.isArray(entries)) return undefined;
  const lines: string[] = [];
  for (const e of entries as {
    clawId?: unknown;
    healthy?: unknown;
    verdict?: unknown;
    detail?: unknown;
    reply?: unknown;
  }[]) {
    if (e.healthy !== false || typeof e.clawId !== 'string') continue;
    lines.push(`  ${paint(color, '31', '✘')} ${terminalLine(e.clawId, 80)}: ${terminalLine(String(e.verdict), 20)}`);
    const indent = '      ';
    if (typeof e.detail === 'string')
      lines.push(...wrapColumns(terminalLine(e.detail, 600), width - indent.length - 1).map((l) => `${indent}${l}`));
    if (typeof e.reply === 'string') lines.push(...replyLines(e.reply, indent, width, color));
  }
  return lines.length ? `Not healthy:\n${lines.join('\n')}` : undefined;
}

/** A plan (plan, drift, apply) as terraform shows one: counts, then the diff per Claw, coloured on a TTY. */
export function planText(result: ManifestResult, title: string, color: boolean): string {
  const { plan } = result;
  const { add, change, remove } = planCounts(plan);
  const head =
    plan.changes === 0 && plan.writeOnly.length === 0
      ? `${title} for ${terminalLine(plan.manifest)}: no changes (plan id ${plan.id}).`
      : `${title} for ${terminalLine(plan.manifest)}: ${paint(color, '32', `+${add} to add`)}, ${paint(color, '33', `~${change} to change`)}, ${paint(color, '31', `-${remove} to remove`)} (Claws, skills and members: the lines below are their settings; plan id ${plan.id}).`;
  const mark = (line: string): string => {
    const safe = terminalLine(line, 4000);
    if (safe.startsWith('+')) return paint(color, '32', safe);
    if (safe.startsWith('-')) return paint(color, '31', safe);
    if (safe.startsWith('!')) return paint(color, '33', safe);
    return safe;
  };
  const blocks = planBlocks(plan).flatMap((block) => [
    '',
    block.clawId === undefined ? 'Team members' : `Claw ${terminalLine(block.clawId)}`,
    ...block.lines.map((l) => `  ${mark(l)}`),
  ]);
  const blocked = plan.blocked.length
    ? [
        '',
        `Cannot be applied (${plan.blocked.length}), left out of the plan: ${plan.blocked.map((b) => terminalLine(b.reason)).join('; ')}`,
      ]
    : [];
  return [head, ...blocks, ...blocked].join('\n');
}
