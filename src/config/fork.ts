// Under an event where the checked-out files may be a fork's (pull_request_target, a workflow_run
// or pull_request from a fork, an issue_comment on a pull request), nothing a file says may run
// code or choose where a secret goes. Every such refusal ends the same way: the event, and the one
// input that opts out, for a workflow that knows its checkout is the repository's own.

/** The opt-in, as a refusal names it. */
export const TRUSTED_FILES = "'trusted-files: true'";

/** `refused under <event>, where the file may come from a fork: …`, the end of every such refusal. */
export function forkRefusal(event: string, instead?: string): string {
  return `refused under ${event}, where the file may come from a fork: ${instead ? `${instead}, or ` : ''}set ${TRUSTED_FILES} when the workflow checks out the repository's own code`;
}
