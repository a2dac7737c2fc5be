// What a check read from a promptfoo config keeps of where it came from: enough for a script's
// `context` (vars, the test) and for the output file promptfoo imports (which test, which prompt).
// Plain data, rendered when the file was read.
import type { DerivedMetric } from './derived.js';

/** One of the config's prompts (a template), as promptfoo lists them. */
export interface PromptfooPrompt {
  raw: string;
  label: string;
  /** The id written beside `raw` (`{id, label, raw}`), which a test's `prompts` may name. */
  id?: string;
}

export interface PromptfooSuite {
  description?: string;
  prompts: PromptfooPrompt[];
  /** The config as read (providers' secrets removed), for the output file's `config`. */
  config: Record<string, unknown>;
  /** `derivedMetrics`: expressions over each prompt's named metrics, shown beside them. */
  derivedMetrics?: DerivedMetric[];
}

export interface CaseOrigin {
  /** The test's place after defaultTest, scenarios and vars expansion: promptfoo's testIdx. */
  testIdx: number;
  /** Which of the suite's prompts. */
  promptIdx: number;
  /** The vars the prompt was rendered with (files loaded). */
  vars: Record<string, unknown>;
  /** The test as promptfoo sees it (description, vars, assert, options, threshold, metadata). */
  testCase: Record<string, unknown>;
}
