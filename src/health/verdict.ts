// A Claw's health from the words its record carries (its own status, its deployment's status).
import { type Classifier, normalizeStatus } from '../shared/status.js';

export type Verdict = 'healthy' | 'unhealthy' | 'unknown';

const HEALTHY_EXTRA = new Set(['running', 'online', 'ok', 'up']);
const UNHEALTHY_EXTRA = new Set(['offline', 'down', 'stopped', 'degraded', 'unhealthy']);

/** One word's reading; `rolled-back` means it serves the previous release, which says nothing bad. */
function readWord(word: string, classify: Classifier): Verdict | 'rolled-back' {
  const normalized = normalizeStatus(word);
  if (HEALTHY_EXTRA.has(normalized)) return 'healthy';
  if (UNHEALTHY_EXTRA.has(normalized)) return 'unhealthy';
  const reading = classify(word);
  if (reading === 'succeeded') return 'healthy';
  if (reading === 'rolled_back') return 'rolled-back';
  if (reading === 'in_progress') return 'unknown';
  return 'unhealthy'; // failed, paused
}

export interface ClawHealth {
  verdict: Verdict;
  /** Its current deployment was rolled back: it serves the previous release. */
  rolledBack: boolean;
}

/**
 * Unhealthy if any word says so; healthy only if every word present says so; otherwise unknown.
 * A rolled-back deployment leaves the verdict to the Claw's own status (healthy without one).
 */
export function clawVerdict(words: (string | undefined)[], classify: Classifier): ClawHealth {
  const readings = words.filter((w): w is string => w !== undefined).map((w) => readWord(w, classify));
  const rolledBack = readings.includes('rolled-back');
  const verdicts = readings.filter((r): r is Verdict => r !== 'rolled-back');
  if (verdicts.length === 0) return { verdict: rolledBack ? 'healthy' : 'unknown', rolledBack };
  if (verdicts.includes('unhealthy')) return { verdict: 'unhealthy', rolledBack };
  return { verdict: verdicts.every((v) => v === 'healthy') ? 'healthy' : 'unknown', rolledBack };
}
