// The deployments this action made, kept on the history branch beside health's lines: one sealed
// line per deployment in `history/deployments/<month>.ndjson`, parts past 1 MiB as health's are.
// One run writes one commit whatever its number of Claws (a fleet of 1,000 is one listing, one read
// of the month's last part and one commit); a commit that finds the branch moved reads it again and
// appends to what is there now. history.ts reads them back (HistoryView.deployments). The parts
// appended to are the ones the sealed index names (store-index.ts), and the commit writes the index
// again: a pushed part, however it is named, is neither written over nor read first.
import type { Clock, Logger } from '../shared/clock.js';
import type { SealKey } from '../shared/seal.js';
import {
  DEPLOYMENTS_DIR,
  type DeploymentRecord,
  type RunFacts,
  deploymentKind,
  deploymentRecordJson,
} from './deployment-records.js';
import {
  MAX_DEPLOYMENT_READ_BYTES,
  MAX_DEPLOYMENT_READ_FILES,
  MAX_FILE_BYTES,
  RAW_DAYS,
  appendLines,
} from './history.js';
import {
  type BranchSnapshot,
  type FileChange,
  type HealthHost,
  type HistoryBranch,
  hostError,
  isQuiet,
} from './host.js';
import { monthOf } from './records.js';
import { resealOlder, sealLine, unsealLine } from './sealed-line.js';
import {
  INDEX_PATH,
  type Part,
  type StoreIndex,
  areaParts,
  checkWrites,
  cutWarning,
  indexText,
  indexWarning,
  nextIndex,
  readIndex,
  sealedLineCount,
} from './store-index.js';

/** Commits that find the branch moved are tried again this many times (as health's). */
const ATTEMPTS = 5;

export interface DeploymentLogDeps {
  clock: Clock;
  log: Logger;
  signal?: AbortSignal;
  /** The branch's name, for messages. */
  name: string;
  /** The seal of health's lines (the same key), bound to the kind `deployment-record`. */
  seal: SealKey;
}

/** A record's line as it is kept: its JSON, sealed as a deployment record of its month. */
export function deploymentLine(record: DeploymentRecord, seal: SealKey): string {
  return sealLine(JSON.stringify(deploymentRecordJson(record)), seal, deploymentKind(monthOf(record.at)));
}

/** What one append cost: the commits tried, and the calls the host was asked for. */
export interface AppendCost {
  attempts: number;
  /** Files read (each one GitHub call) over every attempt. */
  reads: number;
  /** Bytes of the lines appended. */
  bytes: number;
}

/**
 * Appends `records` (one run's deployments) to their months' files in one commit. Throws when it
 * cannot read or write the branch: the caller warns, the deployment's outcome stands.
 */
export async function appendDeploymentRecords(
  branch: HistoryBranch,
  records: DeploymentRecord[],
  deps: DeploymentLogDeps,
  message: string,
): Promise<AppendCost> {
  const cost: AppendCost = { attempts: 0, reads: 0, bytes: 0 };
  if (records.length === 0) return cost;
  const byMonth = new Map<string, string[]>();
  for (const r of records)
    byMonth.set(monthOf(r.at), [...(byMonth.get(monthOf(r.at)) ?? []), deploymentLine(r, deps.seal)]);
  cost.bytes = [...byMonth.values()].flat().reduce((n, line) => n + Buffer.byteLength(line, 'utf8') + 1, 0);
  for (;;) {
    cost.attempts += 1;
    const snapshot = await branch.snapshot();
    const changes = await appendChanges(branch, snapshot, byMonth, deps, cost);
    if ((await branch.commit(snapshot, changes, message)) === 'written') return cost;
    if (cost.attempts >= ATTEMPTS)
      throw new Error(`the branch '${deps.name}' kept moving: ${ATTEMPTS} commits in a row found it changed`);
    deps.log.info(`History: the branch '${deps.name}' moved while this run wrote; reading it again.`);
    await deps.clock.sleep(250 * cost.attempts + Math.floor(Math.random() * 250), deps.signal);
  }
}

/** What the appending run takes as the action's own deployment parts, with the texts it read. */
interface OwnParts {
  own: Part[];
  texts: Map<string, string>;
  /** Blobs read, or written by the action as the index says: the only ones a commit replaces. */
  known: Set<string>;
  index: StoreIndex;
}

/**
 * The deployment parts the index names, each month's last read when the run appends to its month.
 * A branch whose index does not cover them (written before it, or its index not the action's) has
 * its deployment parts of the last 90 days read newest first within health's budget for them, and
 * those holding a record this action sealed are adopted.
 */
async function ownParts(
  branch: HistoryBranch,
  snapshot: BranchSnapshot | undefined,
  months: string[],
  deps: DeploymentLogDeps,
  cost: AppendCost,
): Promise<OwnParts> {
  const files = snapshot?.files ?? [];
  const found = await readIndex(files, (file) => branch.read(file), deps.seal);
  const warning = indexWarning(found, files, deps.name);
  if (warning) (found.state === 'refused' ? deps.log.warning : deps.log.info)(warning);
  const index = found.state === 'sealed' ? found.index : {};
  const parts = areaParts(files, index, 'deployments');
  const texts = new Map<string, string>();
  const known = new Set<string>();
  const read = async (part: Part): Promise<string> => {
    const text = await branch.read(part.file);
    cost.reads += 1;
    texts.set(part.file.path, text);
    known.add(part.file.sha);
    return text;
  };
  if (parts.indexed) {
    for (const part of parts.own) if (!part.changed) known.add(part.file.sha);
    for (const month of months) {
      const last = parts.own.filter((p) => p.month === month).at(-1);
      // One changed past what the action writes is not read: the lines start a new part.
      if (!last || last.file.size > MAX_FILE_BYTES) continue;
      // A part cut since it was written is said before this commit indexes it as it is now.
      const entry = index.deployments?.find((e) => e.path === last.file.path);
      const cut = cutWarning(last, entry, await read(last), deps.seal, 'deployments', deps.name);
      if (cut) deps.log.warning(cut);
    }
    return { own: parts.own, texts, known, index };
  }
  const windowStart = monthOf(deps.clock.now() - RAW_DAYS * 24 * 3600_000);
  const adopted: Part[] = [];
  let count = 0;
  let bytes = 0;
  for (const part of [...parts.foreign].reverse()) {
    if (part.month < windowStart || part.file.size > MAX_FILE_BYTES) continue;
    if (count + 1 > MAX_DEPLOYMENT_READ_FILES || bytes + part.file.size > MAX_DEPLOYMENT_READ_BYTES) break;
    count += 1;
    bytes += part.file.size;
    const text = await read(part);
    const kind = deploymentKind(part.month);
    if (text.split('\n').some((line) => line.trim() && unsealLine(line.trim(), deps.seal, kind) !== undefined))
      adopted.push({ ...part, own: true });
  }
  return { own: adopted.reverse(), texts, known, index: { ...index, deployments: [] } };
}

/** Each month's lines appended to its last own part, and the index written again. */
async function appendChanges(
  branch: HistoryBranch,
  snapshot: BranchSnapshot | undefined,
  byMonth: Map<string, string[]>,
  deps: DeploymentLogDeps,
  cost: AppendCost,
): Promise<FileChange[]> {
  const { own, texts, known, index } = await ownParts(branch, snapshot, [...byMonth.keys()], deps, cost);
  const files = snapshot?.files ?? [];
  const listed = new Set(files.map((f) => f.path));
  const changes: FileChange[] = [];
  for (const [month, lines] of byMonth) {
    changes.push(
      ...appendLines(DEPLOYMENTS_DIR, month, own, texts, listed, lines, (text) =>
        resealOlder(text, deps.seal, deploymentKind(month)),
      ),
    );
  }
  checkWrites(files, changes, known);
  const before = new Map((index.deployments ?? []).map((e) => [e.path, e]));
  const entries = own.map(
    (p) =>
      (p.changed && texts.has(p.file.path) ? undefined : before.get(p.file.path)) ?? {
        path: p.file.path,
        sha: p.file.sha,
        lines: sealedLineCount(texts.get(p.file.path) ?? '', deps.seal, deploymentKind(p.month)),
        month: p.month,
      },
  );
  const next = nextIndex(
    index,
    { deployments: entries },
    changes,
    (content) => branch.blobSha(content),
    (content, _area, month) => sealedLineCount(content, deps.seal, deploymentKind(month)),
  );
  changes.push({ path: INDEX_PATH, content: indexText(next, deps.seal) });
  return changes;
}

/** Where a run keeps its deployments, and what it knows of its commit. */
export interface KeepRequest {
  host: HealthHost;
  /** The history branch. */
  branch: string;
  seal: SealKey;
  /** The commit the run deploys (GITHUB_SHA) and who started it; '' outside GitHub. */
  sha: string;
  actor: string;
  /** When the change began (the event payload's): for lead time. */
  firstCommitAt?: number;
  mergedAt?: number;
}

/**
 * Records a run's deployments (`build` makes them from the run's facts) in one commit. Never
 * throws: a deployment that happened stands whatever the branch does; a failure is one warning.
 */
export async function keepDeploymentRecords(
  ctx: { clock: Clock; log: Logger; signal?: AbortSignal },
  request: KeepRequest,
  build: (facts: RunFacts) => DeploymentRecord[],
): Promise<AppendCost | undefined> {
  const { log } = ctx;
  let records: DeploymentRecord[] = [];
  try {
    const commit = /^[0-9a-f]{40}$/.test(request.sha) ? request.sha : undefined;
    // The commit's time, for lead time: one call; without it the record still counts.
    const committedAt = commit ? await request.host.commitTime?.(commit).catch(() => undefined) : undefined;
    const facts: RunFacts = {
      at: ctx.clock.now(),
      run: request.host.runId,
      ...(commit ? { commit } : {}),
      ...(committedAt !== undefined ? { committedAt } : {}),
      ...(request.firstCommitAt !== undefined ? { firstCommitAt: request.firstCommitAt } : {}),
      ...(request.mergedAt !== undefined ? { mergedAt: request.mergedAt } : {}),
      ...(request.actor ? { actor: request.actor } : {}),
    };
    records = build(facts);
    if (records.length === 0) return undefined;
    const cost = await appendDeploymentRecords(
      request.host.branch,
      records,
      { ...ctx, name: request.branch, seal: request.seal },
      `deployments: ${request.host.runId ? `run ${request.host.runId}, ` : ''}${records.length} record(s)`,
    );
    log.info(`History: recorded ${records.length} deployment(s) on '${request.branch}' in one commit.`);
    return cost;
  } catch (err) {
    if (!isQuiet(err))
      log.warning(
        `History: could not record ${records.length || 'the'} deployment(s) on '${request.branch}' (${hostError(err, 'contents: write')}); the deployment's outcome stands.`,
      );
    return undefined;
  }
}
