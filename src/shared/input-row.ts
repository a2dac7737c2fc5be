// What one input is, in one row kept with the feature that owns it (deploy/inputs.ts,
// health/inputs.ts, …, gathered in inputs.ts): its name, its words, its default, its group, the
// commands that read it, the parser that turns its text into its typed field, and the rules it
// carries. The Settings types, the reader, --help, action.yml's `inputs:` and docs/reference.md's
// table all come from the rows (`npm run generate` writes the two files; a test fails when stale).
import type { Words } from './words.js';

/** Whether the command whose help is shown reads an input. */
export type Reads = (input: string) => boolean;

export interface InputRow {
  name: string;
  /** action.yml's words; --help says them with the shell's (flags, the current folder). */
  description: string;
  /** docs/reference.md's words (Markdown, with links). */
  reference: string;
  /** Required inputs have no default. */
  required?: true;
  default?: string;
  /** An empty value (`comment: ''`) takes the default, as a left-out input does; else empty is a value. */
  emptyMeansDefault?: true;
  /** Where action.yml, docs/reference.md and --help list it (a title of GROUPS in inputs.ts). */
  group: string;
  /** --help's group for a command, when it is not `group` (undefined: that command's help leaves it out). */
  helpGroup?: (reads: Reads) => string | undefined;
  /** The commands that read it, or every command. */
  readBy: readonly string[] | 'every';
  /** A command's own words for it in its --help, where they differ from `description`. */
  help?: Readonly<Record<string, string>>;
  /** Said after the commands that read it when it is set for another ("which run checks"). */
  onlyWithWhy?: string;
  /** With `parse`: whether its value counts as set, for a command that does not read it (refused then). */
  setWhen?: (value: never) => boolean;
  /** Said instead of the commands that read it, when it is set for another. */
  onlyWith?: string;
  /** The command line refuses it as a flag, saying why: it needs the GitHub run around it. */
  actionOnly?: string;
  /** The command line's words, where it is a switch of its own there (listed by --help though action-only). */
  commandLine?: string;
  /** The fields of Settings it fills. */
  fills: string | readonly string[];
  /** Its text to its typed field (throws a ParseError saying what was expected); without it, settings.ts reads it. */
  parse?: (text: string, w: Words) => unknown;
}
