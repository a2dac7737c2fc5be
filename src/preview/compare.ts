// Production's checks beside the preview's, question by question: a check that passes in production
// and not in the preview is a regression; the other way round, fixed; an attempt that could not be
// judged on either side is an error (never a regression); otherwise unchanged.
import { type CheckEntry, type ChecksResult, verdictOf } from '../checks/result.js';

export type RowVerdict = 'regression' | 'fixed' | 'unchanged' | 'error';

export interface CheckRow {
  check: string;
  production?: CheckEntry;
  preview?: CheckEntry;
  verdict: RowVerdict;
}

export function compareChecks(result: ChecksResult, productionId: string, previewId: string): CheckRow[] {
  const names = [
    ...new Set(result.entries.filter((e) => e.clawId === previewId || e.clawId === productionId).map((e) => e.check)),
  ];
  return names.map((check) => {
    const production = result.entries.find((e) => e.check === check && e.clawId === productionId);
    const preview = result.entries.find((e) => e.check === check && e.clawId === previewId);
    const sides = [production, preview].map((e) => (e ? verdictOf(e) : 'error'));
    let verdict: RowVerdict;
    if (sides.includes('error')) verdict = 'error';
    else if (production!.passed && !preview!.passed) verdict = 'regression';
    else if (!production!.passed && preview!.passed) verdict = 'fixed';
    else verdict = 'unchanged';
    return { check, production, preview, verdict };
  });
}
