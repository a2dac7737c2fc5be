// Under an event not known to carry the repository's own commit (github/run.ts: every event but
// push, schedule, workflow_dispatch, release, merge_group, create, delete and a pull request or
// workflow_run from this repository), nothing a file says may run code or choose where a secret goes. Every such refusal ends the same way: the event, and the one
// input that opts out, for a workflow that knows its checkout is the repository's own.

/** The opt-in, as a refusal names it. */
export const TRUSTED_FILES = "'trusted-files: true'";

/** `refused under <event>, where the file may come from a fork: …`, the end of every such refusal. */
export function forkRefusal(event: string, instead?: string): string {
  return `refused under ${event}, where the file may come from a fork: ${instead ? `${instead}, or ` : ''}set ${TRUSTED_FILES} when the workflow checks out the repository's own code`;
}
