// What health needs from the code host (GitHub), as plain calls: a branch to keep its history and
// page in, and issues for incidents. The command never touches @actions/github; main.ts hands it
// an implementation (src/github/health-host.ts), the command line a folder (health/folder-host.ts),
// tests a fake over the fake GitHub API.
import { errorMessage } from '../shared/errors.js';
import { clip } from '../shared/format.js';

/**
 * A failure the host has already reported (GitHub's calls stopped for the run: a rate limit, the
 * step's deadline): the caller says nothing more of it.
 */
export function isQuiet(err: unknown): boolean {
  return (err as { quiet?: unknown } | undefined)?.quiet === true;
}

/** A failure that no later call of the run can get past: the token lacks a permission, or is refused. */
export function isRefused(err: unknown): boolean {
  const status = (err as { status?: unknown } | undefined)?.status;
  return status === 401 || status === 403;
}

/** A failed call to the host in a line: for 401/403/404, the permission the workflow lacks. */
export function hostError(err: unknown, permission: 'issues: write' | 'contents: write'): string {
  const status = (err as { status?: unknown }).status;
  if (status === 403 || status === 404) {
    return `${String(status)}: give the workflow 'permissions: ${permission}' (and 'github-token' that has it)`;
  }
  if (status === 401) return "401: 'github-token' was refused";
  return clip(errorMessage(err), 200);
}

/** A file on the branch, as its listing shows it. */
export interface BranchFile {
  path: string;
  /** The blob's sha: the same content has the same sha, so a file read once need not be read again. */
  sha: string;
  size: number;
}

export interface BranchSnapshot {
  /** The commit the branch points at, and its tree. */
  commit: string;
  tree: string;
  files: BranchFile[];
}

/** One change to a file: its whole new content, or null to delete it. */
export interface FileChange {
  path: string;
  content: string | null;
}

/** The history branch: read its files, and write a commit on top of the head that was read. */
export interface HistoryBranch {
  /** The head and its files; undefined when the branch does not exist yet. Throws when it cannot read. */
  snapshot(): Promise<BranchSnapshot | undefined>;
  /** A file's text. Throws when it cannot read. */
  read(file: BranchFile): Promise<string>;
  /**
   * One commit of `changes` on the head that was read (an orphan commit that creates the branch
   * when there was none). 'conflict' when the branch moved since: read again and retry. Throws
   * for anything else (no permission, GitHub failing).
   */
  commit(parent: BranchSnapshot | undefined, changes: FileChange[], message: string): Promise<'written' | 'conflict'>;
  /** The sha the listing will give a file holding `content` (what the index of own parts keeps). */
  blobSha(content: string): string;
}

/** An incident issue as the host found it. */
export interface IncidentIssue {
  number: number;
  url: string;
  state: 'open' | 'closed';
  title: string;
  body: string;
  /** Written by the token's own identity: only then may its state be read or the issue edited. */
  own: boolean;
  /**
   * Its labels' names, when the host gives them: of two issues whose states name one subject, the
   * one with the subject's label is its own (a collaborator may paste a state into another issue).
   */
  labels?: string[];
}

export interface NewIssue {
  title: string;
  body: string;
  labels: string[];
  assignees: string[];
}

/** Issues of the repository the run belongs to. */
export interface IssueHost {
  /**
   * Issues labelled `label` that are open, or were updated since `since` (epoch ms), newest first.
   * Throws when it cannot read (never read a failure as "no incident").
   */
  list(label: string, since: number): Promise<IncidentIssue[]>;
  create(issue: NewIssue): Promise<{ number: number; url: string }>;
  update(number: number, change: { title?: string; body?: string; state?: 'open' | 'closed' }): Promise<void>;
  comment(number: number, body: string): Promise<void>;
}

export interface HealthHost {
  branch: HistoryBranch;
  issues: IssueHost;
  /** A workflow run's page, by its id. */
  runUrl(runId: string): string | undefined;
  /** This run's id ('' outside GitHub). */
  runId: string;
  /** When a commit of the repository was made (its committer's time), or undefined; throws when it cannot ask. */
  commitTime?(sha: string): Promise<number | undefined>;
}
