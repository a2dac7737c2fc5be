// Reading status words the spec never lists. Case-insensitive; '-' and spaces read as '_'.

export type StatusClass = 'succeeded' | 'failed' | 'rolled_back' | 'paused' | 'in_progress';

const BUILT_IN: Record<Exclude<StatusClass, 'in_progress'>, string[]> = {
  succeeded: [
    'succeeded',
    'success',
    'successful',
    'completed',
    'complete',
    'done',
    'deployed',
    'live',
    'active',
    'healthy',
    'ready',
  ],
  failed: [
    'failed',
    'failure',
    'error',
    'errored',
    'crashed',
    'rejected',
    'aborted',
    'cancelled',
    'canceled',
    'timed_out',
    'timeout',
    'expired',
  ],
  rolled_back: ['rolled_back', 'rolledback', 'reverted'],
  paused: ['paused', 'halted', 'on_hold', 'needs_attention'],
};

export function normalizeStatus(word: string): string {
  return word
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '_');
}

export type Classifier = (status: string | undefined) => StatusClass;

/** A classifier with the user's extra words (`success-statuses`, `failure-statuses`) checked first. */
export function statusClassifier(extra: { success?: string[]; failure?: string[] } = {}): Classifier {
  const success = new Set((extra.success ?? []).map(normalizeStatus));
  const failure = new Set((extra.failure ?? []).map(normalizeStatus));
  const builtIn = new Map<string, StatusClass>();
  for (const [cls, words] of Object.entries(BUILT_IN)) for (const w of words) builtIn.set(w, cls as StatusClass);
  return (status) => {
    if (status === undefined) return 'in_progress';
    const word = normalizeStatus(status);
    if (success.has(word)) return 'succeeded';
    if (failure.has(word)) return 'failed';
    return builtIn.get(word) ?? 'in_progress';
  };
}

/** How a status reads to people, for the log and the summary. */
export function describeClass(cls: StatusClass): string {
  return {
    succeeded: 'success',
    failed: 'failure',
    rolled_back: 'rolled back',
    paused: 'paused (needs a human)',
    in_progress: 'in progress',
  }[cls];
}

/** Outcomes that may trigger an automatic rollback (`rollback-on`). */
export const ROLLBACK_TRIGGERS = ['failed', 'timed-out', 'paused', 'cancelled'] as const;
export type RollbackTrigger = (typeof ROLLBACK_TRIGGERS)[number];
