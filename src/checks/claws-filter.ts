// The checks' `claws:` filters: which Claws a file leaves without a check, and why, in one line.
// Known before any request when the run names its Claws, so such a run is refused then (run.ts);
// with `*` the list comes from the service and the gate reports it per Claw (gate.ts).
import type { CheckSuite } from './check.js';

/** The filters that left `clawId` without a check, named: "no check of F applies to Claw C: …". */
export function noCheckFor(suite: CheckSuite, clawId: string): string {
  const filters = suite.checks
    .filter((c) => c.claws)
    .map((c) => `'claws' of ${JSON.stringify(c.name)} names ${c.claws!.join(', ')} only`);
  const shown = filters.slice(0, 3).join('; ');
  const more = filters.length > 3 ? `; and ${filters.length - 3} more check(s) for other Claws` : '';
  return `no check of ${suite.file} applies to Claw ${clawId}: ${shown}${more}`;
}

/** The first of `clawIds` the file's filters leave without a check, or undefined. */
export function clawWithoutChecks(suite: CheckSuite, clawIds: readonly string[]): string | undefined {
  return clawIds.find((id) => !suite.checks.some((c) => !c.claws || c.claws.includes(id)));
}
