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

/** Compiles a case-insensitive RE2 pattern; throws with the reason when RE2 refuses it. */
export function compilePattern(source: string): ReplyPattern {
  const re = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
  return { source, test: (text) => re.matcher(text.slice(0, MAX_MATCHED_CHARS)).find() };
}
