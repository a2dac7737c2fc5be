// `probe-expect`: matched with RE2 semantics, in time linear in the reply, so a hostile reply can
// never stall the step. Backreferences and lookaround (which need backtracking) are refused.
import { RE2JS } from 're2js';

/** Replies are matched on their first characters only. */
export const MAX_MATCHED_CHARS = 16 * 1024;

export interface ReplyPattern {
  /** The pattern as the user wrote it. */
  source: string;
  test(text: string): boolean;
}

/**
 * Compiles an RE2 pattern, case-insensitive unless told otherwise (`probe-expect` is; a check's
 * `regex` is not, but may say `(?i)`); throws with the reason when RE2 refuses it.
 */
export function compilePattern(source: string, { caseInsensitive = true } = {}): ReplyPattern {
  const re = RE2JS.compile(source, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  return { source, test: (text) => re.matcher(text.slice(0, MAX_MATCHED_CHARS)).find() };
}

/** What a user is told when RE2 refuses a pattern. */
export const PATTERN_EXPECTED = 'a regular expression in RE2 syntax, without backreferences or lookaround';

/** RE2's reason for refusing a pattern, without its prefix. */
export function patternProblem(err: unknown): string {
  return (err instanceof Error ? err.message : 'invalid').replace(/^error parsing regexp: /, '');
}
