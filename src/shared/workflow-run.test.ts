import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forkEventOf, forkEventOfShell, githubRun } from './workflow-run.js';

const REPO = 1001;
const FORK = 2002;
const pr = (head: { id: unknown } | null) => ({ repository: { id: REPO }, pull_request: { head: { repo: head } } });

describe('forkEventOf: an allow-list of events that carry the repository’s own commit', () => {
  it.each(['push', 'schedule', 'workflow_dispatch', 'release', 'merge_group', 'create', 'delete'])(
    '%s is the repository’s own, whatever the payload',
    (event) => {
      expect(forkEventOf(event, {})).toBeUndefined();
      expect(forkEventOf(event, pr({ id: FORK }))).toBeUndefined();
    },
  );

  it.each(['pull_request', 'pull_request_review', 'pull_request_review_comment'])(
    '%s is the repository’s own only when the head repository is this one, by id',
    (event) => {
      expect(forkEventOf(event, pr({ id: REPO }))).toBeUndefined();
      const fork = `${event} from a fork`;
      expect(forkEventOf(event, pr({ id: FORK }))).toBe(fork);
      expect(forkEventOf(event, pr(null))).toBe(fork);
      expect(forkEventOf(event, pr({ id: String(REPO) }))).toBe(fork);
      // A payload that names no id cannot show the head is this repository.
      expect(forkEventOf(event, { pull_request: { head: { repo: { id: REPO } } } })).toBe(fork);
      expect(forkEventOf(event, {})).toBe(fork);
    },
  );

  it('workflow_run by its head repository’s id', () => {
    const run = (id: unknown) => ({ repository: { id: REPO }, workflow_run: { head_repository: { id } } });
    expect(forkEventOf('workflow_run', run(REPO))).toBeUndefined();
    expect(forkEventOf('workflow_run', run(FORK))).toBe('workflow_run from a fork');
    expect(forkEventOf('workflow_run', {})).toBe('workflow_run from a fork');
  });

  it('every other event, known or not, is a fork’s under its own name', () => {
    for (const event of [
      'pull_request_target',
      'check_suite',
      'check_run',
      'status',
      'repository_dispatch',
      'deployment',
      'deployment_status',
      'registry_package',
      'issues',
      'issue_comment',
      'discussion',
      'a_new_event_of_tomorrow',
    ])
      expect(forkEventOf(event, pr({ id: REPO })), event).toBe(event);
    expect(forkEventOf('issue_comment', { issue: { pull_request: {} } })).toBe('issue_comment on a pull request');
    expect(forkEventOf('', {})).toBe('an event the runner did not name');
    expect(forkEventOf('push\n::error::x', {})).toBe('an event the runner did not name');
  });
});

describe('forkEventOfShell: the command line applies the rule inside GitHub Actions only', () => {
  const eventFile = (payload: object): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'claw-event-')), 'event.json');
    writeFileSync(path, JSON.stringify(payload));
    return path;
  };

  it('reads the runner’s event name and payload', () => {
    const env = { GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'check_suite', GITHUB_EVENT_PATH: eventFile({}) };
    expect(forkEventOfShell(env)).toBe('check_suite');
    const own = eventFile(pr({ id: REPO }));
    expect(forkEventOfShell({ ...env, GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: own })).toBeUndefined();
    const fork = eventFile(pr({ id: FORK }));
    expect(forkEventOfShell({ ...env, GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: fork })).toBe(
      'pull_request from a fork',
    );
  });

  it('outside Actions (no GITHUB_ACTIONS) the user’s own files', () => {
    const path = eventFile({});
    expect(forkEventOfShell({ GITHUB_EVENT_NAME: 'pull_request_target', GITHUB_EVENT_PATH: path })).toBeUndefined();
  });

  it('inside Actions with no event file: only an event that needs no payload is trusted', () => {
    expect(forkEventOfShell({ GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'pull_request_target' })).toBe(
      'pull_request_target',
    );
    expect(forkEventOfShell({ GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'push' })).toBeUndefined();
  });

  it('an event file that cannot be read is no proof of the repository’s own commit', () => {
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: '/nonexistent/event.json',
    };
    expect(forkEventOfShell(env)).toBe('pull_request from a fork');
  });
});

describe('githubRun: when the change began, for lead time', () => {
  const eventFile = (payload: object): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'claw-event-')), 'event.json');
    writeFileSync(path, JSON.stringify(payload));
    return path;
  };

  it("a push's earliest commit, and a merged pull request's merged_at; nothing else is a time", () => {
    const push = eventFile({
      commits: [
        { timestamp: '2026-11-02T10:00:00+02:00' },
        { timestamp: '2026-11-02T07:30:00Z' },
        { timestamp: 'yesterday' },
        { timestamp: 12 },
        null,
      ],
    });
    expect(githubRun({ GITHUB_EVENT_PATH: push })).toMatchObject({
      firstCommitAt: Date.parse('2026-11-02T07:30:00Z'),
    });
    expect(githubRun({ GITHUB_EVENT_PATH: push }).mergedAt).toBeUndefined();
    const merged = eventFile({ pull_request: { number: 7, merged_at: '2026-11-03T09:00:00Z' }, commits: 'x' });
    expect(githubRun({ GITHUB_EVENT_PATH: merged })).toMatchObject({ mergedAt: Date.parse('2026-11-03T09:00:00Z') });
    expect(githubRun({ GITHUB_EVENT_PATH: merged }).firstCommitAt).toBeUndefined();
    const open = eventFile({ pull_request: { number: 7, merged_at: null } });
    expect(githubRun({ GITHUB_EVENT_PATH: open }).mergedAt).toBeUndefined();
  });
});
