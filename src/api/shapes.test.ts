import { describe, expect, it } from 'vitest';
import { toClaw, toDeployment } from './client.js';
import {
  readChatAnswer,
  readId,
  readLinkNext,
  readList,
  readNextPage,
  readObject,
  readReply,
  readStatus,
  readUrl,
} from './shapes.js';

describe('readObject', () => {
  const dep = { id: 'd1', status: 'live' };
  it.each([
    ['bare', dep],
    ['data', { data: dep }],
    ['named', { deployment: dep }],
    ['data then named', { data: { deployment: dep } }],
  ])('%s', (_, body) => expect(readObject(body, 'deployment')).toEqual(dep));

  it('is undefined for non-objects', () => {
    expect(readObject('text', 'deployment')).toBeUndefined();
    expect(readObject(undefined, 'deployment')).toBeUndefined();
  });
});

describe('readList', () => {
  const items = [{ id: 'a' }, { id: 'b' }];
  it.each([
    ['array', items],
    ['data', { data: items }],
    ['items', { items }],
    ['plural', { deployments: items }],
    ['results', { results: items }],
    ['nested', { data: { items } }],
  ])('%s', (_, body) => expect(readList(body, 'deployments')).toEqual(items));

  it('is undefined when there is no list', () => expect(readList({ message: 'hi' }, 'deployments')).toBeUndefined());
});

describe('readId and readStatus', () => {
  it('reads id, <resource>Id and <resource>_id', () => {
    expect(readId({ id: 'x' }, 'deployment')).toBe('x');
    expect(readId({ deploymentId: 'y' }, 'deployment')).toBe('y');
    expect(readId({ deployment_id: 'z' }, 'deployment')).toBe('z');
    expect(readId({ id: 42 }, 'deployment')).toBe('42');
    expect(readId({}, 'deployment')).toBeUndefined();
  });

  it('reads status, state and nested status objects', () => {
    expect(readStatus({ status: 'live' })).toBe('live');
    expect(readStatus({ state: 'pending' })).toBe('pending');
    expect(readStatus({ status: { state: 'failed' } })).toBe('failed');
    expect(readStatus({ status: { name: 'paused' } })).toBe('paused');
    expect(readStatus({})).toBeUndefined();
  });
});

describe('toDeployment and toClaw', () => {
  it('reads a deployment in any naming', () => {
    const d = toDeployment({
      deploymentId: 'd9',
      state: 'live',
      claw: { id: 'c1' },
      created_at: '2026-01-01T00:00:00Z',
      url: 'https://x.test/d9',
    });
    expect(d).toMatchObject({
      id: 'd9',
      status: 'live',
      clawId: 'c1',
      url: 'https://x.test/d9',
      createdAt: Date.parse('2026-01-01T00:00:00Z'),
    });
  });

  it.each([
    ['nested', { id: 'c1', status: 'online', deployment: { id: 'd1', status: 'live' } }],
    ['nested state', { clawId: 'c1', state: 'online', currentDeployment: { deploymentId: 'd1', state: 'live' } }],
    ['flat', { id: 'c1', status: 'online', currentDeploymentId: 'd1', deploymentStatus: 'live' }],
  ])('reads a Claw whose deployment is %s', (_, body) => {
    expect(toClaw(body)).toMatchObject({ id: 'c1', status: 'online', deploymentId: 'd1', deploymentStatus: 'live' });
  });
});

describe('readUrl and readNextPage', () => {
  it('takes only http(s) URLs', () => {
    expect(readUrl({ url: 'https://a.test/x' })).toBe('https://a.test/x');
    expect(readUrl({ links: { html: { href: 'https://a.test/y' } } })).toBe('https://a.test/y');
    expect(readUrl({ url: 'javascript:alert(1)' })).toBeUndefined();
  });

  it('finds cursors and links', () => {
    expect(readNextPage({ data: [], nextCursor: 'c2' })).toEqual({ cursor: 'c2' });
    expect(readNextPage({ items: [], meta: { next_cursor: 'c3' } })).toEqual({ cursor: 'c3' });
    expect(readNextPage({ data: [], links: { next: '/v1/claws?page=2' } })).toEqual({ url: '/v1/claws?page=2' });
    expect(readNextPage({ data: [] })).toBeUndefined();
    expect(readNextPage([])).toBeUndefined();
  });
});

describe('readReply', () => {
  it.each([
    [{ reply: 'pong' }, 'pong'],
    [{ message: { content: 'pong' } }, 'pong'],
    [{ data: { response: { text: 'pong' } } }, 'pong'],
    [{ result: { reply: 'pong' } }, 'pong'],
    [
      {
        messages: [
          { role: 'user', content: 'ping' },
          { role: 'assistant', content: 'pong' },
        ],
      },
      'pong',
    ],
    [{ choices: [{ message: { content: 'pong' } }] }, 'pong'],
    [{ taskId: 't1' }, undefined],
    [{}, undefined],
    // Answers that echo what was sent: the echo is never the reply.
    [{ message: 'ping', reply: 'pong' }, 'pong'],
    [{ message: 'ping', reply: '' }, undefined],
    [{ input: 'ping', output: 'pong' }, 'pong'],
    [{ request: { text: 'ping' }, response: { text: 'pong' } }, 'pong'],
    [{ message: { role: 'user', content: 'ping' } }, undefined],
    [{ message: 'pong' }, 'pong'],
    [{ message: 'ping' }, undefined],
    [{ data: { message: 'ping', content: 'ping' } }, undefined],
    // Marked as the Claw's own, the text is the reply even when it repeats the message.
    [{ role: 'assistant', content: 'ping' }, 'ping'],
    [{ message: { role: 'assistant', content: 'ping' } }, 'ping'],
    [{ data: { speaker: 'claw', text: 'ping' } }, 'ping'],
    [
      {
        messages: [
          { role: 'user', content: 'ping' },
          { role: 'assistant', content: 'ping' },
        ],
      },
      'ping',
    ],
    [{ message: { role: 'user', content: 'ping' }, reply: 'ping' }, undefined],
  ])('%j → %s', (body, text) => expect(readReply(body, 'ping')).toBe(text));
});

describe('readChatAnswer', () => {
  // Every shape the simulator and the design name: the reply is found, never the echo of 'ping'.
  it.each([
    [{ reply: 'pong' }, 'pong'],
    [{ message: 'ping', reply: 'pong' }, 'pong'],
    [{ message: { role: 'user', content: 'ping' }, reply: 'pong' }, 'pong'],
    [{ message: { role: 'user', content: 'ping' }, reply: { role: 'assistant', content: 'pong' } }, 'pong'],
    [{ message: { text: 'ping' }, response: { text: 'pong' } }, 'pong'],
    [{ data: { message: 'ping', reply: 'pong' } }, 'pong'],
    [{ message: { message: 'ping', reply: 'pong' } }, 'pong'],
    [{ data: { message: { role: 'user', content: 'ping' }, reply: 'pong' } }, 'pong'],
    [{ message: { role: 'user', content: 'ping' } }, undefined],
  ])('%j → %s', (body, reply) => expect(readChatAnswer(body, 'ping').reply).toBe(reply));

  it.each([
    [{ taskId: 't1' }, 't1'],
    [{ task: { id: 't2' } }, 't2'],
    [{ data: { task_id: 't3' } }, 't3'],
    [{ message: { taskId: 't4' } }, 't4'],
  ])('finds the task in %j', (body, taskId) => {
    expect(readChatAnswer(body, 'ping')).toMatchObject({ taskId, reply: undefined });
  });
});

describe('readLinkNext', () => {
  it.each([
    ['<https://api.example.com/v1/claws?page=2>; rel="next"', 'https://api.example.com/v1/claws?page=2'],
    ['<https://a.example/x?p=1>; rel="prev", <https://a.example/x?p=3>; rel="next"', 'https://a.example/x?p=3'],
    ['</v1/claws?cursor=b>; title="more"; rel=next', '/v1/claws?cursor=b'],
    ['<https://a.example/x?p=9>; rel="last"', undefined],
    ['<https://a.example/x?p=2>; rel="next prefetch"', 'https://a.example/x?p=2'],
    ['', undefined],
  ])('%s → %s', (header, next) => expect(readLinkNext(header)).toBe(next));

  it('a Link header wins over the body', () => {
    expect(readNextPage([], '</v1/claws?page=2>; rel="next"')).toEqual({ url: '/v1/claws?page=2' });
  });
});
