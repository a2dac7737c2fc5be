// Health over time, kept on a branch of the repository: each run appends one record per Claw (and
// one for the service) to this month's NDJSON file; once a day is over its records are folded
// into one daily line per Claw; raw months older than 90 days are deleted once folded. No file
// grows past 1 MiB: a full file is continued in `<month>.2.ndjson`, `.3`, … The whole read and
// write is a few calls, whatever the number of Claws: the branch's listing, the files the window
// needs, and one commit. Two runs that write at once both land: the commit that finds the branch
// moved reads it again and appends to what is there now. Anyone with push access writes the branch
// too: the parts this action wrote are named in its sealed index (store-index.ts) and read first,
// with the whole budget; other files only when the branch has no index yet. A file larger than a
// run ever writes is skipped unread, and only lines this action sealed, dated no later than now and
// naming a Claw the service lists, are read as records. The deployment records (deployment-log.ts
// writes them) are read here too, in their own folder and budget.
import type { Clock, Logger } from '../shared/clock.js';
import { CancelledError } from '../shared/errors.js';
import { WATCH_HISTORY_DAYS } from '../compare/watch.js';
import type { SealKey } from '../shared/seal.js';
import { type DeploymentRecord, deploymentKind, readDeploymentRecord } from './deployment-records.js';
import type { BranchFile, BranchSnapshot, FileChange, HistoryBranch } from './host.js';
import {
  type ClawRecord,
  type DailyRecord,
  type RunRecord,
  aggregateDay,
  dayOf,
  isClawRecord,
  monthOf,
  parseLines,
  readDailyRecord,
  readRunRecord,
  recordLine,
} from './records.js';
import { type LineKind, resealOlder, sealLine, unsealLine } from './sealed-line.js';
import {
  AREA_DIRS,
  type Area,
  type AreaParts,
  INDEX_PATH,
  INDEX_UNSEALED,
  type IndexEntry,
  type Part,
  type StoreIndex,
  areaKind,
  areaParts,
  byAge,
  checkWrites,
  cutWarning,
  foreignWarning,
  indexText,
  indexWarning,
  nextIndex,
  nextPart,
  partPath,
  readIndex,
  sealedLineCount,
  strayFiles,
} from './store-index.js';

export { type Part, partsOf } from './store-index.js';

export const MAX_FILE_BYTES = 1024 * 1024;
/** Raw records are kept this long (whole months), daily lines for good. */
export const RAW_DAYS = 90;
/**
 * The most one run's read of the branch takes, whatever the files hold (sealed lines or not, raw
 * or daily parts): bytes, and files (each one GitHub call). Past it, older days wait for another
 * run; daily parts take at most half, so the newest raw records (the incidents' streaks) are read.
 */
export const MAX_READ_BYTES = 8 * MAX_FILE_BYTES;
export const MAX_READ_FILES = 24;
/**
 * The deployment records' own share of a read, beside the health lines' (a record is ~400 bytes:
 * 4 MiB holds ~10,000 deployments, 90 days of a 1,000-Claw fleet deploying weekly). Newest first.
 */
export const MAX_DEPLOYMENT_READ_BYTES = 4 * MAX_FILE_BYTES;
export const MAX_DEPLOYMENT_READ_FILES = 8;
const DAY_MS = 24 * 3600_000;
/** Commits that find the branch moved are tried again this many times. */
const ATTEMPTS = 5;
/**
 * A record dated later than this past the run's own time was not written by a run (runners' clocks
 * differ by seconds): one dated ahead would be a Claw's last word, and its streaks', until then.
 * Such a line is skipped.
 */
export const MAX_AHEAD_MS = 5 * 60_000;
/**
 * A file larger than this is never read (the run writes parts of 1 MiB): one pushed by hand would
 * otherwise cost the run its memory, or its GitHub answer, and with it the incidents and the page.
 */
export const MAX_READABLE_BYTES = 5 * 1024 * 1024;

/** Lines read but not used, by why: counted over a read for one warning. */
interface Ignored {
  unsealed: number;
  future: number;
  unknownClaw: number;
  unusable: number;
  /** Sealed lines read before in this read: a copy of the action's own line is one run, not two. */
  repeated: number;
}
const noneIgnored = (): Ignored => ({ unsealed: 0, future: 0, unknownClaw: 0, unusable: 0, repeated: 0 });

/** What one read of the branch has taken, and what it left unread for want of room. */
class ReadBudget {
  bytes = 0;
  files = 0;
  readonly skipped: string[] = [];
  constructor(
    readonly maxBytes = MAX_READ_BYTES,
    readonly maxFiles = MAX_READ_FILES,
  ) {}
  /** Whether `file` fits (within `share` of the budget when given); one that does not is named. */
  take(file: BranchFile, share = 1): boolean {
    if (this.files + 1 > this.maxFiles * share || this.bytes + file.size > this.maxBytes * share) {
      this.skipped.push(file.path);
      return false;
    }
    this.files += 1;
    this.bytes += file.size;
    return true;
  }
}

/** Why `read` refused a record dated after the run. */
const AHEAD = 'a time after this run (dated in the future)';

/** What a run knows of the past: the window it read, and the branch's head for the commit. */
export interface HistoryView {
  /** Raw records read (the last day at least), oldest first. */
  recent: RunRecord[];
  /** Daily lines of the last 90 days, oldest first (those folded by this run included). */
  daily: DailyRecord[];
  /**
   * The deployment records of the last 90 days that this action sealed (newest files first, within
   * their budget), oldest first. A record copied verbatim is here once; one deployment may have
   * several records (its outcome, then its rollback): `mergeDeployments` (dora.ts) joins them.
   */
  deployments: DeploymentRecord[];
  /** Every file on the branch as it was read. */
  paths: string[];
}

interface Loaded extends HistoryView {
  snapshot?: BranchSnapshot;
  /** Texts of the parts read, by path (what a line is appended to). */
  texts: Map<string, string>;
  /** Every part read whole. */
  read: Set<string>;
  /** The blobs this read may replace: those it read, and those the index says the action wrote. */
  known: Set<string>;
  /** The index as read (empty when there was none, or it was not the action's). */
  index: StoreIndex;
  /** Each area's own parts after the read (the index's, and those adopted), oldest first. */
  own: Record<Area, Part[]>;
  /** The index's entries after the read, for the areas read. */
  entries: Partial<Record<Area, IndexEntry[]>>;
  /** Complete days found in raw and not yet folded, with their records. */
  toFold: Map<string, ClawRecord[]>;
  /** Raw months old enough to delete (their days are folded). */
  expired: Part[];
}

/** One read of the branch as it goes: its time, budget, and the texts kept for the commit. */
interface Reading {
  now: number;
  files: BranchFile[];
  index?: StoreIndex;
  budget: ReadBudget;
  texts: Map<string, string>;
  read: Set<string>;
  known: Set<string>;
  own: Record<Area, Part[]>;
  entries: Partial<Record<Area, IndexEntry[]>>;
  /** Files of the window that are not the action's parts (or held none of its lines): named once. */
  foreign: BranchFile[];
}

/** What one area's read gave: whether it reached back as far as it wanted (not stopped by the budget). */
interface AreaRead {
  reachedStart: boolean;
}

const dayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`);

export class HealthHistory {
  /** Texts of months' last parts by blob sha: a retry after a conflict reads only what changed. */
  private readonly cache = new Map<string, string>();
  private warned = new Set<string>();
  private readonly cutParts: string[] = [];
  /** What `load` read: the first commit goes on it, so a run reads the branch once unless it moved. */
  private loaded?: Loaded;

  private ignored: Ignored = noneIgnored();
  /** The sealed lines a read has taken, across its files: anyone with push access can copy one. */
  private taken = new Set<string>();

  constructor(
    private readonly branch: HistoryBranch,
    private readonly deps: {
      clock: Clock;
      log: Logger;
      signal?: AbortSignal;
      name: string;
      /** Seals the lines written; a line read must carry its seal. */
      seal: SealKey;
      /** The Claws the service lists, when the run listed them: lines of others are ignored. */
      known?: ReadonlySet<string>;
    },
  ) {}

  /** The warnings for own parts found cut since the action wrote them (each said once): for the summary. */
  get cuts(): readonly string[] {
    return this.cutParts;
  }

  /** The past as of now (health lines and deployment records). Throws when the branch cannot be read. */
  async load(now: number): Promise<HistoryView> {
    const loaded = await this.read(now);
    this.loaded = loaded;
    return { recent: loaded.recent, daily: loaded.daily, deployments: loaded.deployments, paths: loaded.paths };
  }

  /**
   * Appends `records`, folds finished days, drops expired months and writes `extra(view)` (the
   * status page) in one commit; on a conflict reads the branch again and retries. Returns the view
   * that was written. Throws when it cannot write.
   */
  async save(
    now: number,
    records: RunRecord[],
    extra: (view: HistoryView) => FileChange[],
    message: string,
  ): Promise<{ view: HistoryView; attempts: number }> {
    for (let attempt = 1; ; attempt++) {
      const loaded = (attempt === 1 && this.loaded) || (await this.read(now));
      const { changes, view } = this.build(loaded, records);
      const all = [...changes, ...extra(view)];
      const done = await this.branch.commit(loaded.snapshot, all, message);
      if (done === 'written') return { view, attempts: attempt };
      if (attempt >= ATTEMPTS) {
        throw new Error(`the branch '${this.deps.name}' kept moving: ${ATTEMPTS} commits in a row found it changed`);
      }
      this.deps.log.info(`History: the branch '${this.deps.name}' moved while this run wrote; reading it again.`);
      // Another run is writing: let it finish, then apply ours on top of what it wrote.
      await this.deps.clock.sleep(250 * attempt + Math.floor(Math.random() * 250), this.deps.signal);
    }
  }

  /** A file's text; kept for a retry only when the run may append to it (`keep`). */
  private async text(file: BranchFile, keep: boolean): Promise<string> {
    const cached = this.cache.get(file.sha);
    if (cached !== undefined) return cached;
    if (this.deps.signal?.aborted) throw new CancelledError();
    const text = await this.branch.read(file);
    if (keep) this.cache.set(file.sha, text);
    return text;
  }

  /**
   * The records of a file: lines this action sealed as `kind`, through `read`, of Claws the service
   * lists. What is left out is counted for the read's one warning.
   */
  private lines<T extends RunRecord | DailyRecord | DeploymentRecord>(
    text: string,
    read: (data: unknown) => T | string,
    kind: LineKind = 'history-line',
  ): T[] {
    const sealed: string[] = [];
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (line === '') continue;
      const content = unsealLine(line, this.deps.seal, kind);
      if (content === undefined) this.ignored.unsealed += 1;
      // A genuine line copied (push access) is still one run: counted twice, it would lift uptime.
      else if (this.taken.has(content)) this.ignored.repeated += 1;
      else {
        this.taken.add(content);
        sealed.push(content);
      }
    }
    const { records, broken } = parseLines(sealed.join('\n'), read);
    for (const b of broken) {
      if (b.problem === AHEAD) this.ignored.future += 1;
      else this.ignored.unusable += 1;
    }
    const { known } = this.deps;
    if (!known) return records;
    const kept = records.filter((r) => !('claw' in r) || known.has(r.claw));
    this.ignored.unknownClaw += records.length - kept.length;
    return kept;
  }

  /**
   * One warning for the lines a read left out, with how many of each kind; `withIndex`: the index
   * was not sealed by this action either, and no line read was (one cause, one line).
   */
  private warnIgnored(withIndex = false): void {
    const { unsealed, future, unknownClaw, unusable, repeated } = this.ignored;
    const total = unsealed + future + unknownClaw + unusable + repeated;
    if (total === 0) return;
    const parts = [
      unsealed ? `${unsealed} not sealed by this action` : '',
      future ? `${future} dated in the future` : '',
      unknownClaw ? `${unknownClaw} naming a Claw the service does not list` : '',
      unusable ? `${unusable} not a usable record` : '',
      repeated ? `${repeated} repeating a line already read` : '',
    ].filter(Boolean);
    this.warnOnce(
      'ignored',
      `History: ignored ${total} line(s) on '${this.deps.name}': ${parts.join(', ')}. Only lines this action wrote count.${
        withIndex
          ? ` Its index (${INDEX_PATH}) is not sealed by this action either (sealed under another key): read by file names this once; the next commit writes it again.`
          : ''
      }`,
    );
  }

  /**
   * The part's text, or undefined when it is too large to read (one warning names it) or past the
   * read's budget (named in the budget's one warning). An own part someone changed is read only
   * within what the action writes to a part: past it, it is not the action's any more.
   */
  private async readable(part: Part, budget: ReadBudget, share = 1): Promise<string | undefined> {
    const { file } = part;
    const limit = part.changed ? MAX_FILE_BYTES : MAX_READABLE_BYTES;
    if (file.size > limit) {
      this.warnOnce(
        `large:${file.path}@${file.sha}`,
        `History: skipped ${file.path} on '${this.deps.name}': ${(file.size / 1024 / 1024).toFixed(1)} MiB, over the ${limit / 1024 / 1024} MiB this action ever writes to a file${part.changed ? ' (it was changed since this action wrote it)' : ''}. It is left as it is; the run goes on without it.`,
      );
      return undefined;
    }
    if (!budget.take(file, share)) return undefined;
    return this.text(file, true);
  }

  private async read(now: number): Promise<Loaded> {
    const snapshot = await this.branch.snapshot();
    const files = snapshot?.files ?? [];
    this.ignored = noneIgnored();
    this.taken = new Set();
    const found = await readIndex(files, (file) => this.branch.read(file), this.deps.seal);
    const warning = indexWarning(found, files, this.deps.name);
    // An index refused (edited, forged) is worth a warning; none yet is a branch from before it.
    // One sealed under another key is said after the lines are read: when none of them is sealed
    // by this action either (a key rotated), it is the same cause, said once with them.
    const unsealedIndex = found.state === 'refused' && found.problem === INDEX_UNSEALED;
    if (warning && found.state === 'refused' && !unsealedIndex) this.warnOnce('index', warning);
    else if (warning && !unsealedIndex) this.deps.log.info(warning);
    const index = found.state === 'sealed' ? found.index : undefined;
    const reading: Reading = {
      now,
      files,
      index,
      budget: new ReadBudget(),
      texts: new Map(),
      read: new Set(),
      known: new Set(),
      own: { raw: [], daily: [], deployments: [] },
      entries: {},
      foreign: strayFiles(files),
    };
    const daily = await this.readDaily(reading);
    const { recent, readFrom } = await this.readRaw(reading, daily.at(-1)?.day);
    const deployments = await this.readDeployments(reading);
    this.warnBudget(reading.budget, 'Incidents and the page use what was read; older days are folded by a later run.');
    const allUnsealed = unsealedIndex && this.taken.size === 0 && this.ignored.unsealed > 0;
    if (unsealedIndex && !allUnsealed && warning) this.warnOnce('index', warning);
    this.warnIgnored(allUnsealed);
    const named = new Set(reading.budget.skipped);
    const foreign = foreignWarning(
      reading.foreign.filter((f) => !named.has(f.path)),
      this.deps.name,
    );
    if (foreign) this.warnOnce('foreign', foreign);
    return {
      snapshot,
      texts: reading.texts,
      read: reading.read,
      known: reading.known,
      index: index ?? {},
      own: reading.own,
      entries: reading.entries,
      recent,
      daily,
      deployments,
      paths: files.map((f) => f.path),
      ...foldPlan(now, recent, daily, reading.own.raw, reading.read, readFrom),
    };
  }

  /**
   * One area's parts of months from `from` on, through `take` (the records a text gave, and whether
   * the read has reached back far enough): the index's own parts newest first, with the budget
   * before anything else; other files are read only while the area has no index, and those that
   * held a record of this action's are adopted as its own. What is left is named once.
   */
  private async readArea(
    reading: Reading,
    area: Area,
    from: string,
    take: (text: string, part: Part) => { records: number; done: boolean },
    share = 1,
  ): Promise<AreaRead> {
    const parts = areaParts(reading.files, reading.index, area);
    const { budget } = reading;
    const order = (parts.indexed ? parts.own : parts.foreign).filter((p) => p.month >= from).reverse();
    const adopted: Part[] = [];
    let reachedStart = true;
    for (let i = 0; i < order.length; i++) {
      const part = order[i];
      const skippedBefore = budget.skipped.length;
      const text = await this.readable(part, budget, share);
      if (text === undefined) {
        // Past the budget: the rest is older still, and left for a later run.
        if (budget.skipped.length > skippedBefore) {
          for (const older of order.slice(i + 1)) budget.skipped.push(older.file.path);
          reachedStart = false;
          break;
        }
        continue; // too large: named in its own warning
      }
      reading.read.add(part.file.path);
      reading.texts.set(part.file.path, text);
      reading.known.add(part.file.sha);
      const { records, done } = take(text, part);
      this.warnCut(reading, area, part, text);
      if (!parts.indexed && records > 0) adopted.push(part);
      // An area without an index is read whole (within the budget) once, so its parts are adopted.
      if (parts.indexed && done) break;
    }
    this.settleArea(reading, area, parts, adopted, from);
    return { reachedStart };
  }

  /** One warning for an own part someone cut (fewer of its sealed lines than the index counted). */
  private warnCut(reading: Reading, area: Area, part: Part, text: string): void {
    const entry = reading.index?.[area]?.find((e) => e.path === part.file.path);
    const cut = cutWarning(part, entry, text, this.deps.seal, area, this.deps.name);
    if (cut && this.warnOnce(`cut:${part.file.path}@${part.file.sha}`, cut)) this.cutParts.push(cut);
  }

  /** The area's own parts and index entries after its read, and the files it names as not its own. */
  private settleArea(reading: Reading, area: Area, parts: AreaParts, adopted: Part[], from: string): void {
    const before = new Map((reading.index?.[area] ?? []).map((e) => [e.path, e]));
    const own = parts.indexed ? parts.own : adopted.map((p) => ({ ...p, own: true })).sort(byAge);
    for (const part of own) if (!part.changed) reading.known.add(part.file.sha);
    reading.own[area] = own;
    reading.entries[area] = own.map((part) => {
      const entry = before.get(part.file.path);
      const text = reading.texts.get(part.file.path);
      // A part changed since it was written, and read now, is kept at what it holds now.
      if (entry && !(part.changed && text !== undefined)) return entry;
      const lines = sealedLineCount(text ?? '', this.deps.seal, areaKind(area, part.month));
      return { path: part.file.path, sha: part.file.sha, lines, month: part.month };
    });
    if (parts.gone.length)
      this.warnOnce(
        `gone:${area}`,
        `History: ${parts.gone.length} part(s) this action wrote are gone from '${this.deps.name}' (deleted by someone): ${parts.gone.slice(0, 3).join(', ')}${parts.gone.length > 3 ? ', …' : ''}.`,
      );
    // Without an index every file was read (what held no record is in the ignored lines' warning)
    // or left by the budget (in its warning): only an indexed area names files it did not read.
    if (parts.indexed) for (const part of parts.foreign) if (part.month >= from) reading.foreign.push(part.file);
  }

  /** Daily lines of the window's months, newest first, in half the budget at most; oldest first. */
  private async readDaily(reading: Reading): Promise<DailyRecord[]> {
    const { now } = reading;
    const windowStart = now - RAW_DAYS * DAY_MS;
    const readDaily = (data: unknown): DailyRecord | string => {
      const r = readDailyRecord(data);
      return typeof r !== 'string' && r.day > dayOf(now + MAX_AHEAD_MS) ? AHEAD : r;
    };
    const daily: DailyRecord[] = [];
    await this.readArea(
      reading,
      'daily',
      monthOf(windowStart),
      (text) => {
        const records = this.lines(text, readDaily);
        for (const d of records) daily.push(d);
        return { records: records.length, done: false };
      },
      0.5,
    );
    daily.sort((a, b) => a.day.localeCompare(b.day));
    return daily;
  }

  /**
   * Raw records, newest part first, back to WATCH_HISTORY_DAYS ago and to the first day not yet folded;
   * `readFrom`: the oldest time read when every part before it was reached (else Infinity).
   */
  private async readRaw(
    reading: Reading,
    lastFolded: string | undefined,
  ): Promise<{ recent: RunRecord[]; readFrom: number }> {
    const { now } = reading;
    const windowStart = now - RAW_DAYS * DAY_MS;
    const readRun = (data: unknown): RunRecord | string => {
      const r = readRunRecord(data);
      return typeof r !== 'string' && r.at > now + MAX_AHEAD_MS ? AHEAD : r;
    };
    // Back to the first day not folded, and at least the runs the watches judge by (their baselines
    // and the weeks the drift is fitted on), which folded days no longer carry run by run.
    const wanted = Math.max(
      windowStart,
      Math.min(now - WATCH_HISTORY_DAYS * DAY_MS, lastFolded ? dayStart(lastFolded) + DAY_MS : windowStart),
    );
    const recent: RunRecord[] = [];
    const { reachedStart } = await this.readArea(reading, 'raw', monthOf(windowStart), (text) => {
      let oldest = Infinity;
      const records = this.lines(text, readRun);
      for (const r of records) {
        recent.push(r);
        oldest = Math.min(oldest, r.at);
      }
      return { records: records.length, done: oldest < wanted };
    });
    recent.sort((a, b) => a.at - b.at);
    return { recent, readFrom: recent.length && reachedStart ? recent[0].at : Infinity };
  }

  /**
   * The deployment records of the last 90 days, newest part first, in their own budget: each sealed
   * as a record of its file's month (deploymentKind) and dated no later than now.
   */
  private async readDeployments(reading: Reading): Promise<DeploymentRecord[]> {
    const { now } = reading;
    const budget = new ReadBudget(MAX_DEPLOYMENT_READ_BYTES, MAX_DEPLOYMENT_READ_FILES);
    const windowStart = now - RAW_DAYS * DAY_MS;
    const readRecord = (data: unknown): DeploymentRecord | string => {
      const r = readDeploymentRecord(data);
      return typeof r !== 'string' && r.at > now + MAX_AHEAD_MS ? AHEAD : r;
    };
    const records: DeploymentRecord[] = [];
    await this.readArea({ ...reading, budget }, 'deployments', monthOf(windowStart), (text, part) => {
      const found = this.lines(text, readRecord, deploymentKind(part.month)).filter((r) => r.at > windowStart);
      for (const r of found) records.push(r);
      return { records: found.length, done: false };
    });
    this.warnBudget(budget, 'The figures use the newest records read.', 'deployments');
    return records.sort((a, b) => a.at - b.at || a.claw.localeCompare(b.claw));
  }

  /** One warning naming the files a budget left unread. */
  private warnBudget(budget: ReadBudget, consequence: string, key = 'budget'): void {
    if (budget.skipped.length === 0) return;
    const named = budget.skipped.slice(0, 5).join(', ');
    this.warnOnce(
      key,
      `History: read ${budget.files} file(s), ${(budget.bytes / 1048576).toFixed(1)} MiB of '${this.deps.name}', the most one run reads (${budget.maxFiles} files, ${budget.maxBytes / 1048576} MiB); left ${budget.skipped.length} unread: ${named}${budget.skipped.length > 5 ? ', …' : ''}. ${consequence}`,
    );
  }

  /** A record's line, sealed. */
  private line(record: RunRecord | DailyRecord): string {
    return sealLine(recordLine(record), this.deps.seal);
  }

  /** Logs `message` unless `key` was said already; whether it was logged now. */
  private warnOnce(key: string, message: string): boolean {
    if (this.warned.has(key)) return false;
    this.warned.add(key);
    this.deps.log.warning(message);
    return true;
  }

  /** The files this run changes, and the view after it. */
  private build(loaded: Loaded, records: RunRecord[]): { changes: FileChange[]; view: HistoryView } {
    const changes: FileChange[] = [];
    const files = loaded.snapshot?.files ?? [];
    const listed = new Set(files.map((f) => f.path));
    // This run's records, by month (a run at midnight on the 1st may straddle two).
    const byMonth = new Map<string, RunRecord[]>();
    for (const r of records) byMonth.set(monthOf(r.at), [...(byMonth.get(monthOf(r.at)) ?? []), r]);
    for (const [month, list] of byMonth) {
      changes.push(
        ...appendLines(
          AREA_DIRS.raw,
          month,
          loaded.own.raw,
          loaded.texts,
          listed,
          list.map((r) => this.line(r)),
          (text) => resealOlder(text, this.deps.seal),
        ),
      );
    }
    // Finished days folded into daily lines, one per Claw.
    const newDaily: DailyRecord[] = [];
    for (const [day, dayRecords] of [...loaded.toFold].sort(([a], [b]) => a.localeCompare(b))) {
      const claws = [...new Set(dayRecords.map((r) => r.claw))].sort();
      for (const claw of claws) {
        newDaily.push(
          aggregateDay(
            day,
            claw,
            dayRecords.filter((r) => r.claw === claw),
          ),
        );
      }
    }
    const dailyByMonth = new Map<string, DailyRecord[]>();
    for (const d of newDaily) dailyByMonth.set(d.day.slice(0, 7), [...(dailyByMonth.get(d.day.slice(0, 7)) ?? []), d]);
    for (const [month, list] of dailyByMonth) {
      changes.push(
        ...appendLines(
          AREA_DIRS.daily,
          month,
          loaded.own.daily,
          loaded.texts,
          listed,
          list.map((r) => this.line(r)),
          (text) => resealOlder(text, this.deps.seal),
        ),
      );
    }
    for (const part of loaded.expired) changes.push({ path: part.file.path, content: null });
    checkWrites(files, changes, loaded.known);
    const index = nextIndex(
      loaded.index,
      loaded.entries,
      changes,
      (content) => this.branch.blobSha(content),
      (content, area, month) => sealedLineCount(content, this.deps.seal, areaKind(area, month)),
    );
    changes.push({ path: INDEX_PATH, content: indexText(index, this.deps.seal) });
    const view: HistoryView = {
      recent: [...loaded.recent, ...records].sort((a, b) => a.at - b.at),
      daily: [...loaded.daily, ...newDaily].sort((a, b) => a.day.localeCompare(b.day)),
      deployments: loaded.deployments,
      paths: loaded.paths,
    };
    return { changes, view };
  }
}

/**
 * Finished days whose records were read whole (a part before them was reached) and not folded,
 * and the raw months old enough to delete: the window has passed their end and every day is folded.
 */
function foldPlan(
  now: number,
  recent: RunRecord[],
  daily: DailyRecord[],
  rawParts: Part[],
  read: Set<string>,
  readFrom: number,
): Pick<Loaded, 'toFold' | 'expired'> {
  const windowStart = now - RAW_DAYS * DAY_MS;
  const folded = new Set(daily.map((d) => d.day));
  const lastFolded = daily.at(-1)?.day;
  const today = dayOf(now);
  // Parts of months before the window hold no day that is folded: only the window's count.
  const readAllParts = rawParts.every((p) => p.month < monthOf(windowStart) || read.has(p.file.path));
  const toFold = new Map<string, ClawRecord[]>();
  for (const record of recent) {
    if (!isClawRecord(record)) continue;
    const day = dayOf(record.at);
    if (day >= today || folded.has(day) || dayStart(day) < windowStart) continue;
    if (!readAllParts && readFrom >= dayStart(day)) continue;
    toFold.set(day, [...(toFold.get(day) ?? []), record]);
  }
  // Only a part as the action wrote it is deleted: one changed since and not read stays.
  const expired = rawParts.filter((p) => {
    if (p.changed && !read.has(p.file.path)) return false;
    const end = Date.parse(`${nextMonth(p.month)}-01T00:00:00Z`);
    return end <= windowStart && lastFolded !== undefined && dayStart(lastFolded) + DAY_MS >= end;
  });
  return { toFold, expired };
}

function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}

/**
 * `lines` appended to the month's last own part while it stays under 1 MiB, then to new parts. The
 * last part is appended to only when its text was read; else the lines start a new part, named
 * after the own parts and past every file listed (`nextPart`): nothing is written over unread.
 */
export function appendLines(
  dir: string,
  month: string,
  own: Part[],
  texts: Map<string, string>,
  /** Every path on the branch: a new part never takes one of them. */
  listed: ReadonlySet<string>,
  lines: string[],
  /** What the last part's lines become as it is written again (sealed anew after a change of key). */
  rewrite: (text: string) => string = (text) => text,
): FileChange[] {
  const last = own.filter((p) => p.month === month).at(-1);
  const lastText = last ? texts.get(last.file.path) : undefined;
  let number = last && lastText !== undefined ? last.part : nextPart(dir, month, own, listed);
  let text = lastText !== undefined ? rewrite(lastText) : '';
  if (text && !text.endsWith('\n')) text += '\n';
  // A part that gets no line is not written back: a full one (or one made huge by hand) would be
  // sent whole for nothing, and one too large for GitHub would fail every run's commit.
  const read = text;
  const changes: FileChange[] = [];
  let bytes = Buffer.byteLength(text, 'utf8');
  for (const line of lines) {
    const size = Buffer.byteLength(line, 'utf8') + 1;
    if (bytes + size > MAX_FILE_BYTES && bytes > 0) {
      if (text !== read) changes.push({ path: partPath(dir, month, number), content: text });
      do number += 1;
      while (listed.has(partPath(dir, month, number)));
      text = '';
      bytes = 0;
    }
    text += `${line}\n`;
    bytes += size;
  }
  changes.push({ path: partPath(dir, month, number), content: text });
  return changes;
}
