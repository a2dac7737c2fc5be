// The history branch's index of the action's own parts: for each part it wrote, the path, the
// blob's sha, its line count and month, kept in one sealed line (`history/index.json`) that every
// commit of health or deploy writes again. Anyone with push access writes the branch: a reader that
// chose files by their names gave its budget to whatever sorted first (eight empty `.9999` parts, a
// month in 2099) and a writer that named parts by a pattern wrote where the reader never looked.
// So the index's parts are read first, with the whole budget, and the files it does not name only
// in what they leave; a new part's name comes from the index and the listing, never from a width.
// A branch without an index (written before it existed), or one whose index does not carry this
// action's seal, is read by file names as before, and the parts that held its lines are adopted.
import type { SealKey } from '../shared/seal.js';
import { deploymentKind } from './deployment-records.js';
import type { BranchFile, FileChange } from './host.js';
import { type LineKind, sealLine, unsealLine } from './sealed-line.js';

export const INDEX_PATH = 'history/index.json';
/** Why an index is refused when another key sealed it (a key rotated, or anyone's hand). */
export const INDEX_UNSEALED = 'it does not carry this action’s seal';
/** An index past this is not the action's (a part is ~150 bytes: 7,000 parts). */
export const MAX_INDEX_BYTES = 1024 * 1024;

/** The three kinds of parts: health's raw lines, its daily lines, the deployment records. */
export type Area = 'raw' | 'daily' | 'deployments';
export const AREAS: readonly Area[] = ['raw', 'daily', 'deployments'];
export const AREA_DIRS: Record<Area, string> = {
  raw: 'history',
  daily: 'history/daily',
  deployments: 'history/deployments',
};

/**
 * A part's name: `<dir>/<month>.ndjson`, then `.2`, `.3`, … The reader takes any number up to 15
 * digits (a safe integer), and the writer never names one past what it read: nothing it writes is
 * out of the reader's sight.
 */
const partPattern = (dir: string): RegExp =>
  new RegExp(`^${dir.replace(/\//g, '\\/')}\\/(\\d{4}-\\d{2})(?:\\.([2-9]|[1-9]\\d{1,14}))?\\.ndjson$`);
export const AREA_PARTS: Record<Area, RegExp> = {
  raw: partPattern(AREA_DIRS.raw),
  daily: partPattern(AREA_DIRS.daily),
  deployments: partPattern(AREA_DIRS.deployments),
};

export interface Part {
  file: BranchFile;
  month: string;
  part: number;
  /** Named by the action's index (read first, with the whole budget). */
  own?: boolean;
  /** Named by the index, but its blob is not the one the action wrote: someone changed it. */
  changed?: boolean;
}

/** The files matching `pattern`, as parts, oldest first (by month, then part number). */
export function partsOf(files: BranchFile[], pattern: RegExp): Part[] {
  const parts: Part[] = [];
  for (const file of files) {
    const match = pattern.exec(file.path);
    if (match) parts.push({ file, month: match[1], part: Number(match[2] ?? 1) });
  }
  return parts.sort(byAge);
}

export const byAge = (a: Part, b: Part): number => a.month.localeCompare(b.month) || a.part - b.part;

export const partPath = (dir: string, month: string, part: number): string =>
  `${dir}/${month}${part === 1 ? '' : `.${part}`}.ndjson`;

/** One part the action wrote, as the index keeps it. */
export interface IndexEntry {
  path: string;
  sha: string;
  /** Its lines this action sealed when written (what a reader that finds fewer knows it lost). */
  lines: number;
  month: string;
}

/** The index: each area's parts; an area absent was never indexed (read by names, then adopted). */
export type StoreIndex = Partial<Record<Area, IndexEntry[]>>;

export type IndexRead =
  { state: 'absent' } | { state: 'sealed'; index: StoreIndex } | { state: 'refused'; problem: string };

const INDEX_KIND = 'history-index';

/** The index's text: one sealed line. */
export function indexText(index: StoreIndex, seal: SealKey): string {
  const areas: Record<string, IndexEntry[]> = {};
  for (const area of AREAS) {
    const entries = index[area];
    if (entries) areas[area] = [...entries].sort((a, b) => a.path.localeCompare(b.path));
  }
  return `${sealLine(JSON.stringify({ version: 1, areas }), seal, INDEX_KIND)}\n`;
}

/** The index in `text`, when it carries this action's seal and every entry is one it could write. */
export function parseIndex(text: string, seal: SealKey): IndexRead {
  if (text.length > MAX_INDEX_BYTES) return { state: 'refused', problem: 'it is larger than the action writes' };
  const content = unsealLine(text.trim(), seal, INDEX_KIND);
  if (content === undefined) return { state: 'refused', problem: INDEX_UNSEALED };
  let data: unknown;
  try {
    data = JSON.parse(content);
  } catch {
    return { state: 'refused', problem: 'it is not JSON' };
  }
  const areas = (data as { version?: unknown; areas?: unknown } | null)?.areas;
  if ((data as { version?: unknown }).version !== 1 || typeof areas !== 'object' || areas === null)
    return { state: 'refused', problem: 'it is not an index this version reads' };
  const index: StoreIndex = {};
  for (const area of AREAS) {
    const list = (areas as Record<string, unknown>)[area];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return { state: 'refused', problem: `its "${area}" is not a list` };
    const entries: IndexEntry[] = [];
    for (const item of list as unknown[]) {
      const entry = readEntry(item, area);
      if (!entry) return { state: 'refused', problem: `it names a part the action does not write` };
      entries.push(entry);
    }
    index[area] = entries;
  }
  return { state: 'sealed', index };
}

function readEntry(item: unknown, area: Area): IndexEntry | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { path, sha, lines, month } = item as Record<string, unknown>;
  if (typeof path !== 'string' || typeof sha !== 'string' || !/^[0-9a-f]{40,64}$/.test(sha)) return undefined;
  if (!Number.isSafeInteger(lines) || (lines as number) < 0) return undefined;
  const match = AREA_PARTS[area].exec(path);
  if (!match || match[1] !== month) return undefined;
  return { path, sha, lines: lines as number, month };
}

/** An area's parts on the branch: the index's own first, then the files it does not name. */
export interface AreaParts {
  /** Parts the index names that are on the branch, oldest first. */
  own: Part[];
  /** Files named like parts that the index does not name, oldest first. */
  foreign: Part[];
  /** Paths the index names that are gone from the branch. */
  gone: string[];
  /** Whether the index covers the area (else every part is foreign, and those read are adopted). */
  indexed: boolean;
}

export function areaParts(files: BranchFile[], index: StoreIndex | undefined, area: Area): AreaParts {
  const all = partsOf(files, AREA_PARTS[area]);
  const entries = index?.[area];
  if (!entries) return { own: [], foreign: all, gone: [], indexed: false };
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const own: Part[] = [];
  const foreign: Part[] = [];
  for (const part of all) {
    const entry = byPath.get(part.file.path);
    if (entry) own.push({ ...part, own: true, ...(entry.sha === part.file.sha ? {} : { changed: true }) });
    else foreign.push(part);
  }
  const listed = new Set(all.map((p) => p.file.path));
  return { own, foreign, gone: entries.filter((e) => !listed.has(e.path)).map((e) => e.path), indexed: true };
}

/**
 * The part a month's new lines start: after the month's last own part, at the first number no file
 * on the branch holds (a pushed `.9999` is stepped over, never written over). At most one step per
 * file listed.
 */
export function nextPart(dir: string, month: string, own: Part[], listed: ReadonlySet<string>): number {
  let number = Math.max(0, ...own.filter((p) => p.month === month).map((p) => p.part)) + 1;
  while (listed.has(partPath(dir, month, number))) number += 1;
  return number;
}

/** Lines of a part's text. */
export const lineCount = (text: string): number => text.split('\n').filter((l) => l.trim() !== '').length;

/** How the lines of an area's part are sealed: a deployment record names its month's file. */
export const areaKind = (area: Area, month: string): LineKind =>
  area === 'deployments' ? deploymentKind(month) : 'history-line';

/**
 * The lines of `text` this action sealed as `kind` (what the index counts: a part's own records
 * when written, so a reader that finds fewer knows how many it lost, whatever else was added).
 */
export function sealedLineCount(text: string, seal: SealKey, kind: LineKind): number {
  let count = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line !== '' && unsealLine(line, seal, kind) !== undefined) count += 1;
  }
  return count;
}

/**
 * The warning for an own part someone cut since the action wrote it: fewer of its sealed lines than
 * the index counted (a file truncated to its first lines is still valid, line by line). Undefined
 * for a part as written, or one that only gained lines. The records still there are read; the next
 * commit counts the part as it is, so the lost ones are said once and never counted as there.
 */
export function cutWarning(
  part: Part,
  entry: IndexEntry | undefined,
  text: string,
  seal: SealKey,
  area: Area,
  name: string,
): string | undefined {
  if (!part.changed || !entry) return undefined;
  const read = sealedLineCount(text, seal, areaKind(area, part.month));
  if (read >= entry.lines) return undefined;
  return `History: ${part.file.path} on '${name}' was cut since this action wrote it: ${entry.lines} record(s) expected, ${read} read; the ${entry.lines - read} lost are not counted. The records still there are used; the next commit indexes the file as it is now.`;
}

/**
 * The index after `changes`: each area's entries as read (own parts still there, and the parts the
 * read adopted), the parts written with their new sha and line count, the deleted ones gone.
 */
export function nextIndex(
  before: StoreIndex,
  areas: Partial<Record<Area, IndexEntry[]>>,
  changes: FileChange[],
  blobSha: (content: string) => string,
  /** A written part's count of lines (its records sealed as the area's kind, where the writer knows the seal). */
  count: (content: string, area: Area, month: string) => number = (content) => lineCount(content),
): StoreIndex {
  const index: StoreIndex = { ...before, ...areas };
  for (const area of AREAS) {
    const written = changes.filter((c) => AREA_PARTS[area].test(c.path));
    if (written.length === 0) continue;
    const entries = new Map((index[area] ?? []).map((e) => [e.path, e]));
    for (const change of written) {
      if (change.content === null) entries.delete(change.path);
      else {
        const month = AREA_PARTS[area].exec(change.path)![1];
        const lines = count(change.content, area, month);
        entries.set(change.path, { path: change.path, sha: blobSha(change.content), lines, month });
      }
    }
    index[area] = [...entries.values()];
  }
  return index;
}

/**
 * Throws when `changes` would replace a part whose blob, as the branch lists it, is not `known`
 * (read by this run, or the one the index says the action wrote): the commit goes on the head that
 * was listed, so what is replaced is what was read.
 */
export function checkWrites(files: BranchFile[], changes: FileChange[], known: ReadonlySet<string>): void {
  const listed = new Map(files.map((f) => [f.path, f.sha]));
  for (const change of changes) {
    if (!AREAS.some((a) => AREA_PARTS[a].test(change.path))) continue;
    const sha = listed.get(change.path);
    if (sha === undefined || known.has(sha)) continue;
    throw new Error(`${change.path} is on the branch and was not read: it is not written over`);
  }
}

/** The index on the branch: one read outside any budget (it is at most MAX_INDEX_BYTES). */
export async function readIndex(
  files: BranchFile[],
  read: (file: BranchFile) => Promise<string>,
  seal: SealKey,
): Promise<IndexRead> {
  const file = files.find((f) => f.path === INDEX_PATH);
  if (!file) return { state: 'absent' };
  if (file.size > MAX_INDEX_BYTES) return { state: 'refused', problem: 'it is larger than the action writes' };
  return parseIndex(await read(file), seal);
}

/** The line for an index not used (a warning when refused, an info line when absent), or undefined. */
export function indexWarning(found: IndexRead, files: BranchFile[], name: string): string | undefined {
  if (found.state === 'sealed') return undefined;
  if (found.state === 'absent') {
    if (!files.some((f) => AREAS.some((a) => AREA_PARTS[a].test(f.path)))) return undefined;
    return `History: '${name}' has no index of this action's parts (written before it kept one, or deleted): read by file names this once; the next commit writes one.`;
  }
  return `History: the index of this action's parts on '${name}' (${INDEX_PATH}) was not used: ${found.problem}. Read by file names this once; the next commit writes it again.`;
}

/** One warning naming the files a read left aside as not the action's: how many, their bytes, a few. */
export function foreignWarning(skipped: BranchFile[], name: string): string | undefined {
  if (skipped.length === 0) return undefined;
  const bytes = skipped.reduce((n, f) => n + f.size, 0);
  const named = skipped
    .slice(0, 3)
    .map((f) => f.path)
    .join(', ');
  return `History: skipped ${skipped.length} file(s) on '${name}' (${bytes} bytes) that are not among this action's parts: ${named}${skipped.length > 3 ? ', …' : ''}. Its own parts are named by its sealed index and read first; only lines it sealed count.`;
}

/** Files under `history/` that are no area's part nor the index: never read, named with the foreign ones. */
export const strayFiles = (files: BranchFile[]): BranchFile[] =>
  files.filter(
    (f) => f.path.startsWith('history/') && f.path !== INDEX_PATH && !AREAS.some((a) => AREA_PARTS[a].test(f.path)),
  );
