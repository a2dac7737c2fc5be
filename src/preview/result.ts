// What a preview run gives back, as plain data: the command builds it, the report renders it.
import type { ChecksResult } from '../checks/result.js';
import type { CheckRow } from './compare.js';
import type { Compared } from '../checks/comparison.js';

/** One production Claw and its preview. */
export interface PreviewEntry {
  claw: string;
  previewId?: string;
  url?: string;
  deploymentId?: string;
  /** The preview's deployment outcome, or why there is none (`capped`, `closed`, `error`). */
  outcome: string;
  checksPassed?: boolean;
  /** The metrics the comparison with production calls `regressed`. */
  regressions: number;
  rows: CheckRow[];
  /** Production's checks and the preview's, every attempt on both sides, compared. */
  comparison?: Compared;
  /** What a reviewer should know: secrets left out, an error. */
  notes: string[];
  created: boolean;
  githubDeployment?: number;
}

export interface PreviewResult {
  mode: 'up' | 'down' | 'sweep' | 'none';
  pr?: number;
  headSha: string;
  ok: boolean;
  /** Whether not ok fails the step (a cap or a fork never does). */
  failStep: boolean;
  message: string;
  entries: PreviewEntry[];
  /** Previews deleted (down, sweep, a run the close overtook), and previews kept (sweep), each with why. */
  removed: { id: string; why: string }[];
  kept: { id: string; why: string }[];
  regressions: number;
  checks?: ChecksResult;
  /** Lines for the log as notices (the cap). */
  notices: string[];
  /** What the comment said, when one was written (for the log). */
  comment?: 'written' | 'refused' | 'none';
}

/** A result with nothing in it yet. */
export function emptyResult(mode: PreviewResult['mode'], headSha: string, pr?: number): PreviewResult {
  return {
    mode,
    pr,
    headSha,
    ok: true,
    failStep: true,
    message: '',
    entries: [],
    removed: [],
    kept: [],
    regressions: 0,
    notices: [],
  };
}
