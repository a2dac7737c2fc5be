// What a checks suite is, whichever reader made it (the native file or a promptfoo config), and
// the ceilings both readers hold a file to. Below both readers, so neither depends on the other.
import type { CaseOrigin, PromptfooSuite } from './promptfoo/case.js';
import type { JudgeSpec } from './judge-spec.js';
import type { TurnAssertion } from './scoring.js';
import type { Script } from './script.js';
import type { Tolerances } from '../compare/index.js';

export interface Turn {
  send: string;
  /** Empty: the turn only needs a reply (a setup turn). */
  assert: TurnAssertion[];
  /** promptfoo's test `threshold`: the weighted score that passes (scoring.ts); without it, all must hold. */
  threshold?: number;
  /** promptfoo's `options.transform`: applied to the reply before every assertion. */
  transform?: Script;
  /** The judge is asked even once the turn has failed: max-score reads every assertion's score. */
  gradeAll?: boolean;
}

export interface Check {
  name: string;
  /** Only these Claws; undefined: every Claw the step covers. */
  claws?: string[];
  turns: Turn[];
  repeat: number;
  minPass: number;
  /** Per attempt: every turn, task polls included. */
  timeoutMs: number;
  /** Where a check read from a promptfoo config came from: its test, prompt and vars. */
  origin?: CaseOrigin;
  /** promptfoo's select-best and max-score: decided across the Claws that answered (compare-claws.ts). */
  compare?: CompareAssertion[];
  /** How far this check's metrics may move before a comparison counts it (the file's `tolerance`). */
  tolerance?: Tolerances;
}

/**
 * An assertion on a test's replies from several Claws at once: promptfoo's `select-best` (the
 * judge picks the best reply) and `max-score` (the highest score of the test's other assertions).
 */
export type CompareAssertion = (
  | {
      type: 'select-best';
      criteria: string;
      judge: JudgeSpec;
      /** promptfoo's `rubricPrompt` (its text or JSON messages), in place of its select-best prompt. */
      rubricPrompt?: string;
    }
  | {
      type: 'max-score';
      method: 'average' | 'sum';
      /** Per assertion type, as written (default 1). */
      weights: Record<string, number>;
      /** The highest score passes only when it reaches this. */
      threshold?: number;
    }
) & {
  /** `file, line N`: where the assertion is written, for the one-Claw refusal. */
  where: string;
  /** The assertion as the file wrote it, for the output file. */
  written: Record<string, unknown>;
};

export interface CheckSuite {
  /** The file, as the user named it. */
  file: string;
  checks: Check[];
  /** Every judge the checks use, each once. */
  judges: JudgeSpec[];
  /** Read from a promptfoo config: its description, prompts and the config itself (for the output file). */
  promptfoo?: PromptfooSuite;
  /** What the file's reader wants said once (a promptfoo config's ignored keys). */
  notices?: string[];
  /** The suite's tolerances for a comparison (`defaults: tolerance:`); a check's own override them. */
  tolerance?: Tolerances;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 60_000;
/** Ceilings a file cannot pass: attempts of one check, checks in a file, turns of one check. */
export const MAX_REPEAT = 100;
export const MAX_CHECKS = 500;
export const MAX_TURNS = 50;
