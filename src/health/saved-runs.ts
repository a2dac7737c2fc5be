// The gate's saved runs in the history store: one file per Claw (`saved-runs/<claw>.json`), the run
// of the version its last gate left live, as one sealed line whose seal binds the Claw (a run moved
// to another Claw's file does not verify). Anyone with push access writes the branch: a file past
// the size the action writes is not read, one without this action's seal is not used, and what
// the seal covers is still parsed as untrusted (checks/saved-run.ts). A run replayed from an older
// commit of the same Claw verifies; the validity rule (its deployment, configuration and age) is
// what keeps it from standing for another version.
import type { Clock, Logger } from '../shared/clock.js';
import type { SealKey } from '../shared/seal.js';
import { MAX_SAVED_RUN_BYTES, type SavedGateRun, parseSavedRun, savedRunJson } from '../checks/saved-run.js';
import { type HistoryBranch, hostError, isQuiet } from './host.js';
import { sealLine, unsealLine } from './sealed-line.js';

/** Where a Claw's saved run is kept (outside `history/`, whose parts the index names). */
export const savedRunPath = (clawId: string): string => `saved-runs/${encodeURIComponent(clawId)}.json`;
const kind = (clawId: string) => `saved-run ${clawId}` as const;
/** The seal's share of the line, past the run's own bytes. */
const SEAL_BYTES = 64;
const ATTEMPTS = 3;

export type SavedRunRead =
  { state: 'found'; run: SavedGateRun } | { state: 'absent' } | { state: 'refused'; problem: string };

/** The Claw's saved run on the branch: two calls (the listing, the file), whatever the branch holds. */
export async function readSavedRun(branch: HistoryBranch, clawId: string, seal: SealKey): Promise<SavedRunRead> {
  const snapshot = await branch.snapshot();
  const file = snapshot?.files.find((f) => f.path === savedRunPath(clawId));
  if (!file) return { state: 'absent' };
  if (file.size > MAX_SAVED_RUN_BYTES + SEAL_BYTES)
    return { state: 'refused', problem: 'it is larger than the action writes' };
  const text = (await branch.read(file)).trim();
  if (text.length > MAX_SAVED_RUN_BYTES + SEAL_BYTES)
    return { state: 'refused', problem: 'it is larger than the action writes' };
  const content = unsealLine(text, seal, kind(clawId));
  if (content === undefined) return { state: 'refused', problem: 'it does not carry this action’s seal for this Claw' };
  const run = parseSavedRun(content);
  if (typeof run === 'string') return { state: 'refused', problem: run };
  if (run.claw !== clawId) return { state: 'refused', problem: `it is of another Claw (${run.claw})` };
  return { state: 'found', run };
}

/**
 * Writes the Claw's saved run in one commit (read again and retried when the branch moved). Never
 * throws: the deployment's outcome stands; a failure is one warning, and the next gate asks the
 * live Claw.
 */
export async function keepSavedRun(
  ctx: { clock: Clock; log: Logger; signal?: AbortSignal },
  target: { branch: HistoryBranch; name: string; seal: SealKey },
  run: SavedGateRun,
): Promise<boolean> {
  const json = savedRunJson(run);
  if (json.length > MAX_SAVED_RUN_BYTES) {
    ctx.log.info(`History: the run of deployment ${run.deployment} is larger than a saved run may be; not saved.`);
    return false;
  }
  const line = `${sealLine(json, target.seal, kind(run.claw))}\n`;
  try {
    for (let attempt = 1; ; attempt++) {
      const snapshot = await target.branch.snapshot();
      const change = { path: savedRunPath(run.claw), content: line };
      const message = `saved run: Claw ${run.claw}, deployment ${run.deployment}`;
      if ((await target.branch.commit(snapshot, [change], message)) === 'written') break;
      if (attempt >= ATTEMPTS) throw new Error(`the branch '${target.name}' kept moving`);
      await ctx.clock.sleep(250 * attempt, ctx.signal);
    }
    ctx.log.info(
      `History: saved the checks' run of deployment ${run.deployment} on '${target.name}': the next deploy of Claw ${run.claw} with baseline saved compares with it.`,
    );
    return true;
  } catch (err) {
    if (!isQuiet(err))
      ctx.log.warning(
        `History: could not save the checks' run of deployment ${run.deployment} on '${target.name}' (${hostError(err, 'contents: write')}); the next gate asks the live Claw for its baseline.`,
      );
    return false;
  }
}
