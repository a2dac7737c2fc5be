// The job summary of a step that could not do what it was asked (outcome `error`): a headline and
// the one-line reason, so the summary never stays empty while the log holds the answer.
import { escapeText } from './markdown.js';

const WHAT: Record<string, string> = {
  deploy: 'Deploy',
  wait: 'Wait',
  rollback: 'Rollback',
  health: 'Health check',
  plan: 'Plan',
  apply: 'Apply',
  drift: 'Drift',
};

export function errorSummary(command: string, message: string, cancelled = false): string {
  const what = WHAT[command] ?? command;
  const title = cancelled ? `### 🛑 ${what}: cancelled` : `### ❌ ${what}: error`;
  return `${title}\n\n${escapeText(message)}\n`;
}
