// A Claw's health from the words its record carries (its own status, its deployment's status).
import { type Classifier, normalizeStatus } from '../deploy/status.js';

export type Verdict = 'healthy' | 'unhealthy' | 'unknown';

const HEALTHY_EXTRA = new Set(['running', 'online', 'ok', 'up']);
const UNHEALTHY_EXTRA = new Set(['offline', 'down', 'stopped', 'degraded', 'unhealthy']);

export function readWord(word: string, classify: Classifier): Verdict {
  const normalized = normalizeStatus(word);
  if (HEALTHY_EXTRA.has(normalized)) return 'healthy';
  if (UNHEALTHY_EXTRA.has(normalized)) return 'unhealthy';
  const reading = classify(word);
  if (reading === 'succeeded') return 'healthy';
  if (reading === 'in_progress') return 'unknown';
  return 'unhealthy'; // failed, paused, rolled back
}

/** Unhealthy if any word says so; healthy only if every word present says so; otherwise unknown. */
export function clawVerdict(words: (string | undefined)[], classify: Classifier): Verdict {
  const present = words.filter((w): w is string => w !== undefined);
  if (present.length === 0) return 'unknown';
  const verdicts = present.map((w) => readWord(w, classify));
  if (verdicts.includes('unhealthy')) return 'unhealthy';
  return verdicts.every((v) => v === 'healthy') ? 'healthy' : 'unknown';
}
