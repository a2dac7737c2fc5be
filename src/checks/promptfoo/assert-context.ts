// What reading one assertion of a promptfoo config needs to know about its test and file: shared
// by the assertion reader, the grading prompts' reader and the select-best/max-score reader.
import type { Words } from '../../shared/words.js';
import type { JudgeSpec } from '../judge-spec.js';
import type { ConfigFiles } from './files.js';
import type { Obj, Places } from './located.js';

/** A file that would be run as code (a script), never read as a value or a template. */
export const SCRIPT_EXTENSIONS = /\.(?:js|cjs|mjs|ts|cts|mts)$/;

export interface AssertContext {
  places: Places;
  files: ConfigFiles;
  env: NodeJS.ProcessEnv;
  /** The test's vars, files loaded: what values are rendered with. */
  vars: Record<string, unknown>;
  /** The test's options (defaultTest's merged in): provider, rubricPrompt, factuality. */
  options: Obj;
  /** The event when the files may be a fork's: no code from the file runs (javascript, transform). */
  forkEvent?: string;
  /** Every judge used, by identity. */
  judges: Map<string, JudgeSpec>;
  /** `assertionTemplates`, for `$ref`. */
  templates?: Obj;
  /** How messages name where a variable is set, for the entry's user (absent: the action's). */
  words?: Words;
  /** Where what is ignored is named, for the file's one notice. */
  ignored?: string[];
  /** Set when a grader of the test is its `options.provider` (the config names an unused one once). */
  providerUsed?: boolean;
}
