// Which comments are ours: the token's identity from GET /user, else the job token's bot. Against a
// small Octokit stand-in (these are plain functions over what GitHub returns; the e2e tests run the
// real Octokit against the fake GitHub API).
import { describe, expect, it } from 'vitest';
import { Identity, JOB_TOKEN_LOGIN, type Octokit, ownWithMarker } from './own.js';

const octokit = (user: { status?: number; login?: string }): Octokit => ({
  request: async () => {
    if (user.status) throw Object.assign(new Error('refused'), { status: user.status });
    return { data: { login: user.login } };
  },
  paginate: async () => [],
});

const marker = '<!-- claw-deploy preview: claws.yml -->';
const comment = (id: number, login: string, body = marker) => ({
  id,
  body,
  user: { login },
  html_url: `https://github.example/o/r/pull/7#issuecomment-${id}`,
});

describe('Identity', () => {
  it('is the user GET /user names, else the job token’s bot (403), and throws on other failures', async () => {
    await expect(new Identity(async () => octokit({ login: 'Release-Bot' })).get()).resolves.toBe('Release-Bot');
    await expect(new Identity(async () => octokit({ status: 403 })).get()).resolves.toBe(JOB_TOKEN_LOGIN);
    await expect(new Identity(async () => octokit({ status: 500 })).get()).rejects.toThrow('refused');
  });

  it('names a GitHub App’s installation token by GraphQL’s viewer, at the Enterprise Server address too', async () => {
    const routes: string[] = [];
    const app: Octokit = {
      request: async (route) => {
        routes.push(route);
        if (route === 'GET /user') throw Object.assign(new Error('refused'), { status: 403 });
        return { data: { data: { viewer: { login: 'deployer[bot]' } } } };
      },
      paginate: async () => [],
    };
    await expect(new Identity(async () => app, 'https://ghe.example/api/v3').get()).resolves.toBe('deployer[bot]');
    expect(routes).toEqual(['GET /user', 'POST https://ghe.example/api/graphql']);
  });

  it('finds our comment with the marker and lists the others (logins compared without case)', async () => {
    const identity = new Identity(async () => octokit({ login: 'release-bot' }));
    const found = await ownWithMarker(
      identity,
      [comment(1, 'mallory'), comment(2, 'someone', 'no marker'), comment(3, 'Release-Bot'), comment(4, 'release-bot')],
      marker,
    );
    expect(found.own).toEqual({ id: 3, body: marker, url: 'https://github.example/o/r/pull/7#issuecomment-3' });
    expect(found.others).toEqual([
      'https://github.example/o/r/pull/7#issuecomment-1',
      'https://github.example/o/r/pull/7#issuecomment-4',
    ]);
  });

  it('never takes a comment without an author, or with a hostile URL, for ours', async () => {
    const identity = new Identity(async () => octokit({ status: 403 }));
    const found = await ownWithMarker(
      identity,
      [{ id: 5, body: marker, user: null, html_url: 'javascript:alert(1)' }],
      marker,
    );
    expect(found).toEqual({ others: ['comment 5'] });
  });
});
