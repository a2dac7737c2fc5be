// A plan (or drift, or an apply) as outputs, a job summary and a pull-request comment. Per Claw a
// fenced `diff` block: `+` added, `-` removed, `!` changed, so GitHub colours them. The service's
// values are untrusted: each line is one line of visible text, and the fence is longer than any
// run of backticks inside, so no value can close the block.
import type { ApplyResult } from './apply.js';
import { describeOperation } from './apply.js';
import { type ConfigChange, MASK } from './diff.js';
import { CLAW_OPERATIONS, type Operation, type Plan, planJson } from './plan.js';
import { flattenControls } from '../shared/format.js';
import { diffStats, isLongText, textDiff, textLines } from '../report/text-diff.js';
import { MAX_REPORT_BYTES, reportOutput } from '../report/report-output.js';
import { code, escapeText } from '../report/markdown.js';

/**
 * `changes`, `plan` and `plan-id`. A plan too large for an output keeps its object's shape
 * (`planId`, `changes`, `writeOnly`, …) with as many whole operations as fit, and says so in `cut`;
 * the whole plan is in `plan-json`.
 */
export function planOutputs(plan: Plan): { outputs: Record<string, string>; notes: string[] } {
  const whole = planJson(plan) as Record<string, unknown>;
  let json = JSON.stringify(whole);
  const notes: string[] = [];
  if (Buffer.byteLength(json, 'utf8') > MAX_REPORT_BYTES) {
    const cap = `${Math.round(MAX_REPORT_BYTES / 1024)} KiB`;
    const cut = (kept: number): string =>
      `the plan output holds ${kept} of ${plan.operations.length} operations (it is capped at ${cap}); the whole plan is in the plan-json file`;
    // What the operations leave room for, with the note at its longest.
    const frame = { ...whole, operations: [], cut: cut(plan.operations.length) };
    const room = MAX_REPORT_BYTES - Buffer.byteLength(JSON.stringify(frame), 'utf8');
    const { json: operations } = reportOutput(plan.operations, Math.max(2, room), 'plan');
    const kept = (JSON.parse(operations) as unknown[]).length;
    json = JSON.stringify({ ...frame, operations: JSON.parse(operations) as unknown[], cut: cut(kept) });
    notes.push(
      `The plan output left out ${plan.operations.length - kept} of ${plan.operations.length} operations: it is capped at ${cap}.`,
    );
  }
  return { outputs: { changes: String(plan.changes), plan: json, 'plan-id': plan.id }, notes };
}

/** A value shown in a diff line: JSON, on one line, whole (the summary holds it; the comment is capped apart). */
function shown(value: unknown): string {
  return flattenControls(JSON.stringify(value) ?? 'null');
}

/** A text that can be shown line by line: a long or multi-line string, never a masked one. */
function text(value: unknown): value is string {
  return isLongText(value) && value !== MASK;
}

/** A line of a long text under its key: the mark, then the text indented, one line of visible text. */
const under = (mark: string, line: string): string => `${mark}   ${flattenControls(line)}`;

function configLines(change: ConfigChange): string[] {
  const key = flattenControls(change.path.join('.'));
  const { before, after } = change;
  switch (change.action) {
    case 'add':
      if (text(after)) {
        const lines = textLines(after);
        return [`+ ${key}: text, ${lines.length} line(s)`, ...lines.map((l) => under('+', l))];
      }
      return [`+ ${key}: ${shown(after)}`];
    case 'remove':
      return [text(before) ? `- ${key} (was text of ${before.length} characters)` : `- ${key}`];
    case 'change':
      if (typeof before === 'string' && typeof after === 'string' && (text(before) || text(after)) && before !== MASK) {
        const lines = textDiff(before, after);
        const { removed, added } = diffStats(lines);
        return [
          `! ${key}: text, ${removed} line(s) removed, ${added} added`,
          ...lines.map((l) => (l.mark === '…' ? `    … ${l.text}` : under(l.mark, l.text))),
        ];
      }
      return [`! ${key}: ${shown(before)} → ${shown(after)}`];
    case 'write-only':
      return [`  ${key}: *** (write-only: sent with a patch of this Claw, or with rewrite-secrets)`];
  }
}

function operationLines(op: Operation): string[] {
  switch (op.kind) {
    case 'create-claw':
      return ['+ (create this Claw)', ...(op.changes ?? []).flatMap(configLines)];
    case 'update-claw':
      return (op.changes ?? []).flatMap(configLines);
    case 'install-skill':
      return [`+ skill ${flattenControls(op.skill ?? '')}`];
    case 'remove-skill':
      return [`- skill ${flattenControls(op.skill ?? '')}`];
    case 'invite-member':
      return [`+ ${flattenControls(op.target)}: ${flattenControls(op.after ?? '')} (invite)`];
    case 'change-role':
      return [
        `! ${flattenControls(op.target)}: ${flattenControls(op.before ?? '')} → ${flattenControls(op.after ?? '')}`,
      ];
    case 'remove-member':
      return [`- ${flattenControls(op.target)}${op.before ? ` (${flattenControls(op.before)})` : ''}`];
  }
}

/** A fenced block no line inside can close: its fence is longer than any backtick run in it. */
export function fenced(language: string, lines: string[]): string {
  const longest = Math.max(0, ...lines.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((run) => run.length))));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${language}`, ...lines, fence].join('\n');
}

/** Counts as GitHub shows them: + to add, ~ to change, - to remove. */
export function planCounts(plan: Plan): { add: number; change: number; remove: number } {
  const add = plan.operations.filter((o) => ['create-claw', 'install-skill', 'invite-member'].includes(o.kind)).length;
  const remove = plan.operations.filter((o) => ['remove-skill', 'remove-member'].includes(o.kind)).length;
  return { add, change: plan.changes - add - remove, remove };
}

export interface PlanView {
  /** `Plan`, `Drift` or `Apply`. */
  title: string;
  apply?: ApplyResult;
  /** Where the full plan is, for a capped comment. */
  runUrl?: string;
}

/** The plan in Markdown: headline, counts, removals apart, then a diff per Claw and for the team. */
export function planMarkdown(plan: Plan, view: PlanView): string {
  const { add, change, remove } = planCounts(plan);
  const headline =
    plan.changes === 0 && plan.writeOnly.length === 0
      ? `### ✅ ${view.title} for ${code(plan.manifest)}: no changes`
      : `### 📋 ${view.title} for ${code(plan.manifest)}: ${plan.changes} change(s)`;
  const parts = [
    headline,
    '',
    `**+${add}** to add · **~${change}** to change · **-${remove}** to remove (Claws, skills and members; the lines below are their settings) · plan id ${code(plan.id)}`,
  ];
  if (view.apply) parts.push('', applyLines(view.apply));
  const removals = plan.operations.filter((o) => o.kind === 'remove-skill' || o.kind === 'remove-member');
  if (removals.length > 0) {
    parts.push(
      '',
      `#### Removals (${removals.length})`,
      '',
      ...removals.map((o) => `- ${escapeText(describeOperation(o))}`),
    );
  }
  if (plan.blocked.length > 0) {
    parts.push(
      '',
      `#### ⚠️ Cannot be applied (${plan.blocked.length})`,
      '',
      'These are left out of the plan and never written; the rest goes ahead.',
      '',
      ...plan.blocked.map((b) => `- ${escapeText(describeOperation(b.operation))}: ${escapeText(b.reason)}`),
    );
  }
  for (const block of planBlocks(plan)) {
    const title = block.clawId === undefined ? '#### Team members' : `#### Claw ${code(block.clawId)}`;
    parts.push('', title, '', fenced('diff', block.lines));
  }
  return `${parts.join('\n')}\n`;
}

/**
 * The plan's diff, per Claw and then for the team: lines marked `+` added, `-` removed, `!`
 * changed, each one line of visible text. The summary, the comment and the terminal show these.
 */
export function planBlocks(plan: Plan): { clawId?: string; lines: string[] }[] {
  const blocks: { clawId?: string; lines: string[] }[] = [];
  const clawOps = plan.operations.filter((o) => CLAW_OPERATIONS.includes(o.kind));
  for (const clawId of new Set([...clawOps.map((o) => o.target), ...plan.writeOnly.map((w) => w.clawId)])) {
    const ops = clawOps.filter((o) => o.target === clawId);
    const lines = ops.flatMap(operationLines);
    // A create lists its secrets already; an existing Claw's are listed as write-only.
    if (!ops.some((o) => o.kind === 'create-claw')) {
      for (const secret of plan.writeOnly.filter((w) => w.clawId === clawId)) {
        lines.push(...configLines({ path: secret.path, action: 'write-only' }));
      }
    }
    blocks.push({ clawId, lines });
  }
  const team = plan.operations.filter((o) => !CLAW_OPERATIONS.includes(o.kind));
  if (team.length > 0) blocks.push({ lines: team.flatMap(operationLines) });
  return blocks;
}

function applyLines(apply: ApplyResult): string {
  const done = apply.applied.map(describeOperation).join('; ');
  const lines = [`Applied ${apply.applied.length} write(s)${done ? `: ${done}` : ''}.`];
  if (apply.secretsRewritten.length)
    lines.push(`Write-only secrets rewritten on ${apply.secretsRewritten.join(', ')}.`);
  if (apply.failed) {
    lines.push(
      `**Stopped** at: ${describeOperation(apply.failed.operation)}: ${apply.failed.message}`,
      `Not applied (${apply.notApplied.length}): ${apply.notApplied.map(describeOperation).join('; ') || 'nothing else'}.`,
    );
  }
  return escapeText(lines.join(' ')).replace(/&#42;&#42;Stopped&#42;&#42;/, '**Stopped**');
}

/** GitHub refuses comments over 65,536 characters; this leaves room for the marker and the note. */
export const MAX_COMMENT_CHARS = 60_000;

/** The hidden marker that finds this manifest's comment again: the path, encoded so it cannot end the HTML comment. */
export function commentMarker(manifest: string): string {
  return `<!-- claw-deploy plan: ${encodeURIComponent(manifest)} -->`;
}

/**
 * The pull-request comment: the marker, then the plan. Over the cap, the counts stay and the diff
 * is cut at a line (its block closed), with a line saying where the full plan is.
 */
export function commentBody(plan: Plan, view: PlanView, max = MAX_COMMENT_CHARS): string {
  const marker = commentMarker(plan.manifest);
  const full = `${marker}\n${planMarkdown(plan, view)}`;
  if (full.length <= max) return full;
  const where = view.runUrl ? `the job summary of [this run](${view.runUrl})` : "this run's job summary";
  const note = (left: number) => `\n\n_The plan is cut here: ${left} more line(s). The full plan is in ${where}._\n`;
  const lines = full.split('\n');
  const kept: string[] = [];
  let size = 0;
  let openFence: string | undefined;
  for (const line of lines) {
    const closing = openFence ? `\n${openFence}` : '';
    if (size + line.length + 1 + closing.length + note(lines.length).length > max) break;
    kept.push(line);
    size += line.length + 1;
    const fence = /^(`{3,})/.exec(line)?.[1];
    if (fence) openFence = openFence === undefined ? fence : line.trim() === openFence ? undefined : openFence;
  }
  if (openFence) kept.push(openFence);
  return `${kept.join('\n')}${note(lines.length - kept.length)}`;
}
